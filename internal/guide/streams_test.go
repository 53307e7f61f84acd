package guide_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/vanetest"
)

// WatchNotes is the stream's input: bound and validated before the stream
// starts. A reconnecting browser sends the last event's id back.
type WatchNotes struct {
	LastEventID string `header:"Last-Event-ID" pattern:"^[0-9]*$"`
}

// NoteChanged is the one event type of the stream: its name on the wire is
// the type's, "NoteChanged".
type NoteChanged struct {
	ID      int64 `json:"id"`
	Version int64 `json:"version"`
}

// registerWatch adds GET /notes/events, a stream of server-sent events that
// ends when the client leaves or the server shuts down (ctx ends).
func registerWatch(r *vane.Router, changes <-chan Note) {
	vane.Stream(r, "/notes/events", map[string]any{"NoteChanged": NoteChanged{}},
		func(ctx context.Context, in *WatchNotes, send vane.Sender) error {
			for {
				select {
				case <-ctx.Done():
					return nil
				case n := <-changes:
					id := strconv.FormatInt(n.ID, 10) + "." + strconv.FormatInt(n.Version, 10)
					if err := send(vane.Event{ID: id, Data: NoteChanged{ID: n.ID, Version: n.Version}}); err != nil {
						return err // the client has gone
					}
				}
			}
		}, vane.ID("watchNotes"))
}

func TestStreams(t *testing.T) {
	store := newNotes()
	store.events = make(chan Note, 16)
	r := vane.New()
	registerWatch(r, store.events)
	srv := httptest.NewServer(r)
	defer srv.Close()

	res, err := http.Get(srv.URL + "/notes/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	store.Create(t.Context(), "ada", "watched", nil)
	ev := <-vanetest.Events(res.Body)
	if ev.Name != "NoteChanged" || ev.ID != "1.1" || ev.Data != `{"id":1,"version":1}` {
		t.Errorf("event %+v", ev)
	}
}
