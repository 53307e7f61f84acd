package vane

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"
)

type corsPet struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

type corsPetOut struct {
	ETag         string       `header:"ETag"`
	LastModified time.Time    `header:"Last-Modified"`
	Link         []string     `header:"Link"`
	Session      *http.Cookie `header:"Set-Cookie"`
	Body         corsPet
}

type corsCreated struct {
	Status   int
	Location string `header:"Location"`
	Body     corsPet
}

type corsGetIn struct {
	ID int `path:"id"`
}

type corsPutIn struct {
	Conditional
	ID   int `path:"id"`
	Body corsPet
}

type corsPostIn struct {
	Key  string `header:"Idempotency-Key"`
	Body corsPet
}

type corsEventsIn struct {
	LastID string `header:"Last-Event-ID"`
}

// CORSHeaders exposes every response header the operations document,
// Retry-After, and what vane answers an unreadable body with; it allows
// every header an input reads, the conditional headers of a GET that
// answers 304, Accept, Content-Type and Content-Encoding for bodies, and
// Authorization for secured operations. Set-Cookie is never exposed.
func TestCORSHeaders(t *testing.T) {
	if exposed, allowed := New().CORSHeaders(); len(exposed) != 0 || len(allowed) != 0 {
		t.Errorf("no operations: %v %v", exposed, allowed)
	}
	r := New()
	get := func(ctx context.Context, in *corsGetIn) (*corsPetOut, error) { return &corsPetOut{}, nil }
	put := func(ctx context.Context, in *corsPutIn) (*corsPetOut, error) { return &corsPetOut{}, nil }
	Get(r, "/pets/{id}", get)
	Put(r, "/pets/{id}", put)
	MergePatch(r, "/pets/{id}", get, put)
	Post(r, "/pets", func(ctx context.Context, in *corsPostIn) (*corsCreated, error) { return &corsCreated{}, nil },
		Security("bearer"), Problems(ProblemType{Status: 401, Headers: map[string]string{"WWW-Authenticate": "How to log in."}}))
	Stream(r, "/pets/events", map[string]any{"created": corsPet{}}, func(ctx context.Context, in *corsEventsIn, send Sender) error { return nil })

	exposed, allowed := r.CORSHeaders()
	wantExposed := []string{"Accept-Encoding", "Accept-Patch", "Etag", "Last-Modified", "Link", "Location", "Retry-After", "Www-Authenticate"}
	wantAllowed := []string{"Accept", "Authorization", "Content-Encoding", "Content-Type", "Idempotency-Key", "If-Match",
		"If-Modified-Since", "If-None-Match", "If-Unmodified-Since", "Last-Event-Id"}
	if !slices.Equal(exposed, wantExposed) {
		t.Errorf("exposed %q,\n   want %q", exposed, wantExposed)
	}
	if !slices.Equal(allowed, wantAllowed) {
		t.Errorf("allowed %q,\n   want %q", allowed, wantAllowed)
	}
}

func ExampleRouter_CORSHeaders() {
	type getPet struct {
		ID int `path:"id"`
	}
	type pet struct {
		ETag string `header:"ETag"`
		Body struct {
			Name string `json:"name"`
		}
	}
	type putPet struct {
		Conditional
		ID   int `path:"id"`
		Body struct {
			Name string `json:"name"`
		}
	}
	r := New()
	Get(r, "/pets/{id}", func(ctx context.Context, in *getPet) (*pet, error) { return &pet{}, nil })
	Put(r, "/pets/{id}", func(ctx context.Context, in *putPet) (*pet, error) { return &pet{}, nil })

	exposed, allowed := r.CORSHeaders() // for rs/cors: ExposedHeaders, AllowedHeaders
	fmt.Println(exposed)
	fmt.Println(allowed)
	// Output:
	// [Accept-Encoding Etag Retry-After]
	// [Accept Content-Encoding Content-Type If-Match If-Modified-Since If-None-Match If-Unmodified-Since]
}
