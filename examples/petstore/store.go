package main

import (
	_ "embed"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
)

// PetInput is what a client sends to create or replace a pet. Its tags are
// the whole contract: they validate the request and document the API.
type PetInput struct {
	Name      string   `json:"name" minLength:"1" maxLength:"80" doc:"The pet's name." example:"Rex"`
	Species   string   `json:"species" enum:"dog,cat,bird,fish,rabbit" example:"dog"`
	Status    string   `json:"status,omitempty" enum:"available,pending,adopted" doc:"Where the pet is in the adoption process; available when absent."`
	Tags      []string `json:"tags,omitempty" maxItems:"10" uniqueItems:"true" maxLength:"32" doc:"Free-form labels." example:"friendly,trained"`
	BirthDate string   `json:"birthDate,omitempty" format:"date" example:"2021-04-01"`
	Owner     *string  `json:"owner,omitempty" nullable:"true" doc:"Who adopted the pet, if anyone."`
}

// Pet is a stored pet: the client's fields (embedded, so they appear at the
// top level of the JSON, as encoding/json flattens them) and the server's.
type Pet struct {
	ID int64 `json:"id" readOnly:"true" doc:"Assigned by the server." example:"1"`
	PetInput
	HasPhoto  bool      `json:"hasPhoto" readOnly:"true" doc:"Whether a photo has been uploaded."`
	CreatedAt time.Time `json:"createdAt" readOnly:"true"`
	UpdatedAt time.Time `json:"updatedAt" readOnly:"true"`
}

// Photo is an uploaded picture of a pet.
type Photo struct {
	ContentType string
	Data        []byte
}

// errNotFound is returned by the store for an unknown ID.
var errNotFound = errors.New("no such pet")

// Filter selects pets for List. Zero fields match everything.
type Filter struct {
	Species string
	Status  string
	Tags    []string // a pet must have all of them
	Query   string   // case-insensitive substring of the name
}

// Store is an in-memory pet store, safe for concurrent use. A real service
// would put a database behind the same methods.
type Store struct {
	mu     sync.RWMutex
	pets   map[int64]*Pet
	photos map[int64]Photo
	nextID int64
	now    func() time.Time
}

//go:embed pets.json
var defaultPets []byte

// NewStore returns a store holding the pets of pets.json, embedded in the
// binary, so the service has data to show on its first run.
func NewStore() *Store {
	s := &Store{pets: map[int64]*Pet{}, photos: map[int64]Photo{}, now: time.Now}
	var seed []PetInput
	if err := json.Unmarshal(defaultPets, &seed); err != nil {
		panic("petstore: embedded pets.json: " + err.Error())
	}
	for _, p := range seed {
		s.Create(p)
	}
	return s
}

// List returns the pets matching f, in ID order, from offset on, at most
// limit of them, and how many match in all.
func (s *Store) List(f Filter, offset, limit int) ([]Pet, int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ids := make([]int64, 0, len(s.pets))
	for id, p := range s.pets {
		if f.matches(p) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	total := len(ids)
	if offset > total {
		offset = total
	}
	ids = ids[offset:min(total, offset+limit)]
	out := make([]Pet, len(ids))
	for i, id := range ids {
		out[i] = *s.cloned(s.pets[id])
	}
	return out, total
}

func (f Filter) matches(p *Pet) bool {
	if f.Species != "" && p.Species != f.Species {
		return false
	}
	if f.Status != "" && p.Status != f.Status {
		return false
	}
	for _, t := range f.Tags {
		if !slices.Contains(p.Tags, t) {
			return false
		}
	}
	return f.Query == "" || strings.Contains(strings.ToLower(p.Name), strings.ToLower(f.Query))
}

// Get returns the pet with id.
func (s *Store) Get(id int64) (Pet, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.pets[id]
	if !ok {
		return Pet{}, errNotFound
	}
	return *s.cloned(p), nil
}

// Create stores a new pet and returns it as stored.
func (s *Store) Create(in PetInput) Pet {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	now := s.now().UTC().Truncate(time.Second)
	p := &Pet{ID: s.nextID, PetInput: in, CreatedAt: now, UpdatedAt: now}
	if p.Status == "" {
		p.Status = "available"
	}
	s.pets[p.ID] = s.cloned(p)
	return *s.cloned(p)
}

// Update replaces the client's fields of the pet with id.
func (s *Store) Update(id int64, in PetInput) (Pet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pets[id]
	if !ok {
		return Pet{}, errNotFound
	}
	p.PetInput = s.cloned(&Pet{PetInput: in}).PetInput
	if p.Status == "" {
		p.Status = "available"
	}
	p.UpdatedAt = s.now().UTC().Truncate(time.Second)
	return *s.cloned(p), nil
}

// Delete removes the pet with id and its photo.
func (s *Store) Delete(id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.pets[id]; !ok {
		return errNotFound
	}
	delete(s.pets, id)
	delete(s.photos, id)
	return nil
}

// SetPhoto stores the photo of the pet with id.
func (s *Store) SetPhoto(id int64, ph Photo) (Pet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pets[id]
	if !ok {
		return Pet{}, errNotFound
	}
	s.photos[id] = ph
	p.HasPhoto = true
	p.UpdatedAt = s.now().UTC().Truncate(time.Second)
	return *s.cloned(p), nil
}

// Photo returns the photo of the pet with id.
func (s *Store) Photo(id int64) (Photo, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ph, ok := s.photos[id]
	if !ok {
		return Photo{}, errNotFound
	}
	return ph, nil
}

// cloned returns a copy of p that shares no memory with it, so that what
// the store keeps and what it hands out never alias.
func (s *Store) cloned(p *Pet) *Pet {
	c := *p
	c.Tags = slices.Clone(p.Tags)
	if p.Owner != nil {
		o := *p.Owner
		c.Owner = &o
	}
	return &c
}
