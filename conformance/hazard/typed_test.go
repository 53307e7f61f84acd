package hazard

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/middleware"
)

// Overlap cases over typed operations: what a typed handler keeps from its
// input, or its ctx, must stay its own after it returns, while later
// requests of the same operation are bound and served.

// hazardIn is what every typed input of the suite binds besides its own
// fields: the request's ID and role.
type hazardIn struct {
	HID  string `header:"X-Hazard-Id"`
	Role string `header:"X-Hazard-Role"`
}

type idOut struct {
	ID string `json:"id"`
}

// postTyped sends a POST with body and checks the answer: status and, for
// 200, the ID the operation returned.
func (rg *rig) postTyped(path string, r role, id, body, contentType string, status int) error {
	a, err := rg.do(http.MethodPost, path, r, id, body, contentType)
	if err != nil {
		return err
	}
	if a.status != status {
		return fmt.Errorf("%s (%s): answered %d %q, want %d", path, id, a.status, a.body, status)
	}
	if status != 200 {
		return nil
	}
	var out idOut
	if err := json.Unmarshal([]byte(a.body), &out); err != nil || out.ID != id {
		return fmt.Errorf("%s (%s): answered %q (%v)", path, id, a.body, err)
	}
	return nil
}

type item struct {
	Name string   `json:"name"`
	Tags []string `json:"tags"`
}

type itemIn struct {
	ID string `path:"id"`
	hazardIn
	Body item
}

func itemBody(id string) string {
	return fmt.Sprintf(`{"name":"name-%s","tags":["t-%s","u-%s"]}`, id, id, id)
}

// testTypedBodyPointer: a typed handler keeps &in.Body in a cache (a map),
// as ordinary Go code does, and reads it again after later requests of the
// same operation were bound and served: it must be as it was.
func testTypedBodyPointer(t *testing.T, e engine) {
	rg := newRig(t, e)
	r := vane.New()
	var mu sync.Mutex
	cache := map[string]*item{}
	vane.Post(r, "/items/{id}", func(ctx context.Context, in *itemIn) (*idOut, error) {
		id := in.HID
		rg.expect(id, "in.ID", in.ID, id)
		rg.expect(id, "in.Body.Name", in.Body.Name, "name-"+id)
		switch role(in.Role) {
		case roleFirst:
			mu.Lock()
			cache[id] = &in.Body
			mu.Unlock()
			rg.park(func() string {
				mu.Lock()
				p := cache[id]
				mu.Unlock()
				return p.Name + "|" + strings.Join(p.Tags, ",")
			})
		case roleHeld:
			rg.hold(id)
		}
		return &idOut{ID: id}, nil
	})
	rg.native(r)
	rg.start(r, false)
	rg.runOverlap(overlap{
		rounds: rounds, later: later,
		send: func(r role, id string) error { return rg.postTyped("/items/"+id, r, id, itemBody(id), "", 200) },
		judge: func(id, got string) error {
			return own("name-"+id, "t-"+id+",u-"+id)(got)
		},
	})
}

type blobIn struct {
	ID string `path:"id"`
	hazardIn
	Body struct {
		Raw  json.RawMessage `json:"raw"`
		Blob []byte          `json:"blob"`
	}
}

type rawIn struct {
	ID string `path:"id"`
	hazardIn
	Body []byte
}

// testTypedBodyBytes: a typed handler keeps byte slices from its body, a
// json.RawMessage and a []byte of a JSON body, or the whole body as []byte,
// and reads them after later requests: they must be as they were.
func testTypedBodyBytes(t *testing.T, e engine) {
	t.Run("json", func(t *testing.T) {
		rg := newRig(t, e)
		r := vane.New()
		vane.Post(r, "/blobs/{id}", func(ctx context.Context, in *blobIn) (*idOut, error) {
			id := in.HID
			rg.expect(id, "in.ID", in.ID, id)
			rg.expect(id, "in.Body.Raw", string(in.Body.Raw), rawFor(id))
			raw, blob := in.Body.Raw, in.Body.Blob
			rg.act(role(in.Role), id, func() string { return string(raw) + "|" + string(blob) })
			return &idOut{ID: id}, nil
		})
		rg.native(r)
		rg.start(r, false)
		rg.runOverlap(overlap{
			rounds: rounds, later: later,
			send: func(r role, id string) error {
				body := fmt.Sprintf(`{"raw":%s,"blob":"%s"}`, rawFor(id), base64.StdEncoding.EncodeToString([]byte("blob-"+id)))
				return rg.postTyped("/blobs/"+id, r, id, body, "", 200)
			},
			judge: func(id, got string) error { return own(rawFor(id), "blob-"+id)(got) },
		})
	})
	t.Run("raw", func(t *testing.T) {
		rg := newRig(t, e)
		r := vane.New()
		vane.Post(r, "/uploads/{id}", func(ctx context.Context, in *rawIn) (*idOut, error) {
			id := in.HID
			rg.expect(id, "in.ID", in.ID, id)
			rg.expect(id, "in.Body", string(in.Body), "upload-"+id)
			kept := in.Body
			rg.act(role(in.Role), id, func() string { return string(kept) })
			return &idOut{ID: id}, nil
		})
		rg.native(r)
		rg.start(r, false)
		rg.runOverlap(overlap{
			rounds: rounds, later: later,
			send: func(r role, id string) error {
				return rg.postTyped("/uploads/"+id, r, id, "upload-"+id, "application/octet-stream", 200)
			},
			judge: func(id, got string) error { return own("upload-" + id)(got) },
		})
	})
}

func rawFor(id string) string { return `{"of":"` + id + `"}` }

type whoIn struct {
	ID string `path:"id"`
	hazardIn
}

// testTypedContext: a typed handler spawns work with its ctx, which reads
// the user that router-wide middleware put there after later requests were
// served.
func testTypedContext(t *testing.T, e engine) {
	rg := newRig(t, e)
	r := vane.New()
	r.Use(withUser)
	vane.Get(r, "/who/{id}", func(ctx context.Context, in *whoIn) (*idOut, error) {
		id := in.HID
		rg.expect(id, "in.ID", in.ID, id)
		rg.expect(id, "the user", userOf(ctx), userFor(id))
		rg.act(role(in.Role), id, func() string { return userOf(ctx) })
		return &idOut{ID: id}, nil
	})
	rg.start(r, false)
	rg.runOverlap(overlap{
		rounds: rounds, later: later,
		send: func(r role, id string) error {
			return rg.get("/who/"+id, r, id, 200, `{"id":"`+id+`"}`)
		},
		judge: func(id, got string) error { return own(userFor(id))(got) },
	})
}

// testTypedVaneContext: a typed handler under vane's own middleware
// (RequestID, which has an engine form, so that the fast engine serves
// the operation natively) keeps its ctx and its input, and reads the
// request ID the middleware put in the ctx, and its path parameter, after
// later requests were served.
func testTypedVaneContext(t *testing.T, e engine) {
	rg := newRig(t, e)
	r := vane.New()
	r.Use(middleware.RequestID)
	vane.Get(r, "/rid/{id}", func(ctx context.Context, in *whoIn) (*idOut, error) {
		id := in.HID
		rg.expect(id, "in.ID", in.ID, id)
		rg.expect(id, "the request ID", middleware.RequestIDFrom(ctx), id)
		rg.act(role(in.Role), id, func() string { return middleware.RequestIDFrom(ctx) + "|" + in.ID + "|" + in.HID })
		return &idOut{ID: id}, nil
	})
	rg.native(r)
	rg.start(r, false)
	rg.runOverlap(overlap{
		rounds: rounds, later: later,
		send: func(r role, id string) error {
			return rg.get("/rid/"+id, r, id, 200, `{"id":"`+id+`"}`)
		},
		judge: func(id, got string) error { return own(id, id, id)(got) },
	})
}

type noteIn struct {
	ID string `path:"id"`
	hazardIn
	Body struct {
		Name   string `json:"name"`
		Secret string `json:"secret,omitempty"`
	}
}

// testTypedPanic: a typed handler keeps &in.Body, leaves a reader behind
// and panics; the operation's middleware recovers. Later requests of the
// operation must not see its input (its secret), and the reader must read
// its own.
func testTypedPanic(t *testing.T, e engine) {
	rg := newRig(t, e)
	r := vane.New()
	r.Use(withUser)
	vane.Post(r, "/notes/{id}", func(ctx context.Context, in *noteIn) (*idOut, error) {
		id := in.HID
		rg.expect(id, "in.ID", in.ID, id)
		rg.expect(id, "in.Body.Name", in.Body.Name, "name-"+id)
		switch role(in.Role) {
		case roleFirst:
			kept := &in.Body
			rg.park(func() string { return kept.Name + "|" + kept.Secret + "|" + userOf(ctx) })
			panic("the handler of " + id + " fails")
		case roleHeld:
			rg.expect(id, "in.Body.Secret", in.Body.Secret, "")
			rg.hold(id)
		default:
			rg.expect(id, "in.Body.Secret", in.Body.Secret, "")
		}
		return &idOut{ID: id}, nil
	}, vane.Middleware(recoverer))
	rg.start(r, false)
	rg.runOverlap(overlap{
		rounds: rounds, later: later,
		send: func(r role, id string) error {
			if r == roleFirst {
				body := fmt.Sprintf(`{"name":"name-%s","secret":"s-%s"}`, id, id)
				return rg.postTyped("/notes/"+id, r, id, body, "", 500)
			}
			return rg.postTyped("/notes/"+id, r, id, `{"name":"name-`+id+`"}`, "", 200)
		},
		judge: func(id, got string) error { return own("name-"+id, "s-"+id, userFor(id))(got) },
	})
}
