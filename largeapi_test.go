package vane

import (
	"context"
	"strings"
	"testing"
)

type idEvent struct {
	N int `json:"n"`
}

// The operationId index sees the operations that other registrations
// (Stream, MergePatch) add: a typed operation that reuses a stream's ID
// is refused, naming both.
func TestDuplicateIDAfterStream(t *testing.T) {
	r := New()
	Get(r, "/a", func(context.Context, *struct{}) (*struct{}, error) { return nil, nil }, func(op *Op) { op.ID = "first" })
	Stream(r, "/events", map[string]any{"e": idEvent{}}, func(context.Context, *struct{}, Sender) error { return nil },
		func(op *Op) { op.ID = "events" })
	defer func() {
		msg, _ := recover().(string)
		if want := `operation ID "events" of GET /b is already used by GET /events`; !strings.Contains(msg, want) {
			t.Errorf("panic %q, want %q", msg, want)
		}
	}()
	Get(r, "/b", func(context.Context, *struct{}) (*struct{}, error) { return nil, nil }, func(op *Op) { op.ID = "events" })
}
