package guide_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// Note is what the guide's notes service keeps.
type Note struct {
	ID      int64     `json:"id" readOnly:"true"`
	Owner   string    `json:"owner" readOnly:"true"`
	Text    string    `json:"text" minLength:"1" maxLength:"10000"`
	Tags    []string  `json:"tags,omitempty" maxItems:"10"`
	Version int64     `json:"version" readOnly:"true" doc:"Moves on with every change."`
	Changed time.Time `json:"changed" readOnly:"true"`
}

var errNoNote = errors.New("no such note")

// notes is an in-memory store with the one operation conditional writes
// need: a compare-and-swap on the version. A database does the same with
// UPDATE … WHERE id = $1 AND version = $2.
type notes struct {
	mu     sync.Mutex
	byID   map[int64]Note
	nextID int64
	now    func() time.Time
	events chan Note // every change, for the stream (nil: none)
}

func newNotes() *notes {
	return &notes{byID: map[int64]Note{}, now: time.Now}
}

func (s *notes) Get(ctx context.Context, id int64) (Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.byID[id]
	if !ok {
		return Note{}, errNoNote
	}
	return n, nil
}

func (s *notes) Create(ctx context.Context, owner, text string, tags []string) Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	n := Note{ID: s.nextID, Owner: owner, Text: text, Tags: tags, Version: 1, Changed: s.now()}
	s.byID[n.ID] = n
	s.publish(n)
	return n
}

// UpdateIf replaces the text and tags of note id if it is still at
// version, and reports whether it was.
func (s *notes) UpdateIf(ctx context.Context, id, version int64, text string, tags []string) (Note, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.byID[id]
	if !ok {
		return Note{}, false, errNoNote
	}
	if n.Version != version {
		return n, false, nil
	}
	n.Text, n.Tags, n.Version, n.Changed = text, slices.Clone(tags), n.Version+1, s.now()
	s.byID[id] = n
	s.publish(n)
	return n, true, nil
}

// DeleteIf deletes note id if it is still at version.
func (s *notes) DeleteIf(ctx context.Context, id, version int64) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.byID[id]
	if !ok {
		return false, errNoNote
	}
	if n.Version != version {
		return false, nil
	}
	delete(s.byID, id)
	return true, nil
}

// After returns up to limit notes with IDs above after, in ID order.
func (s *notes) After(ctx context.Context, after int64, limit int) []Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	var page []Note
	for id := after + 1; id <= s.nextID && len(page) < limit; id++ {
		if n, ok := s.byID[id]; ok {
			page = append(page, n)
		}
	}
	return page
}

func (s *notes) publish(n Note) {
	if s.events != nil {
		select {
		case s.events <- n:
		default:
		}
	}
}
