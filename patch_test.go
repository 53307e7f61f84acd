package vane

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vane-http/vane/problem"
)

type patchPet struct {
	Name    string   `json:"name" minLength:"1"`
	Species string   `json:"species" enum:"cat,dog"`
	Tags    []string `json:"tags,omitempty"`
	Note    string   `json:"note,omitempty"`
}

type petID struct {
	ID int `path:"id"`
}

type petPut struct {
	Conditional
	ID   int `path:"id"`
	Body patchPet
}

type petBody struct {
	ETag string `header:"ETag"`
	Body patchPet
}

// petStore keeps versioned pets and writes with compare-and-swap, as a
// database's UPDATE … WHERE version = $2 does. race, when set, runs
// between a write's read and its compare-and-swap, so that tests can let
// other writers in there.
type petStore struct {
	mu   sync.Mutex
	pets map[int]*storedPet
	puts int
	race func()
}

type storedPet struct {
	version int
	pet     patchPet
}

func etagOf(v int) string { return `"` + strconv.Itoa(v) + `"` }

func (s *petStore) get(ctx context.Context, in *petID) (*petBody, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pets[in.ID]
	if !ok {
		return nil, NotFound("no such pet")
	}
	pet := p.pet
	pet.Tags = append([]string(nil), pet.Tags...)
	return &petBody{ETag: etagOf(p.version), Body: pet}, nil
}

func (s *petStore) put(ctx context.Context, in *petPut) (*petBody, error) {
	var version int
	err := in.Write(ctx, func(context.Context) (Version, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		p, ok := s.pets[in.ID]
		if !ok {
			return Version{}, NotFound("no such pet")
		}
		version = p.version
		return Version{ETag: etagOf(version), Exists: true}, nil
	}, func(context.Context, Version) (bool, error) {
		if s.race != nil {
			s.race()
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		p, ok := s.pets[in.ID]
		if !ok || p.version != version {
			return false, nil
		}
		s.puts++
		version++
		s.pets[in.ID] = &storedPet{version: version, pet: in.Body}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return &petBody{ETag: etagOf(version), Body: in.Body}, nil
}

func (s *petStore) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.puts
}

func patchRouter(s *petStore, opts ...Option) *Router {
	r := New(opts...)
	Get(r, "/pets/{id}", s.get)
	Put(r, "/pets/{id}", s.put)
	MergePatch(r, "/pets/{id}", s.get, s.put, Summary("Update a pet in part"))
	return r
}

// A merge patch sets and removes members of the current resource, the
// result is validated by the PUT body's rules, and the PUT's answer is the
// PATCH's; a wrong media type is a 415, an unknown resource GET's 404, a
// stale If-Match a 412.
func TestMergePatch(t *testing.T) {
	s := &petStore{pets: map[int]*storedPet{1: {version: 1, pet: patchPet{Name: "Rex", Species: "dog", Tags: []string{"good"}, Note: "old"}}}}
	r := patchRouter(s)
	cases := []struct {
		name, path, ct, body string
		headers              []string
		status               int
		want                 string // in the response body
		put                  bool
	}{
		{"set", "/pets/1", MergePatchType, `{"name":"Max"}`, nil, 200, `"name":"Max","species":"dog","tags":["good"],"note":"old"`, true},
		{"remove with null", "/pets/1", MergePatchType, `{"note":null,"tags":null}`, nil, 200, `{"name":"Max","species":"dog"}`, true},
		{"result invalid", "/pets/1", MergePatchType, `{"species":"fish"}`, nil, 422, `"location":"body.species"`, false},
		{"required removed", "/pets/1", MergePatchType, `{"name":null}`, nil, 422, `"location":"body.name"`, false},
		{"wrong media type", "/pets/1", "application/json", `{"name":"A"}`, nil, 415, MergePatchType, false},
		{"latin1", "/pets/1", MergePatchType + "; charset=latin1", `{"name":"A"}`, nil, 415, "charset", false},
		{"duplicate key", "/pets/1", MergePatchType, `{"name":"A","name":"B"}`, nil, 400, "duplicate key", false},
		{"not an object", "/pets/1", MergePatchType, `["name"]`, nil, 422, "expected object", false},
		{"a member of the wrong type", "/pets/1", MergePatchType, `{"name":5}`, nil, 422, `"location":"body.name"`, false},
		{"empty", "/pets/1", MergePatchType, ``, nil, 400, "empty", false},
		{"missing resource", "/pets/9", MergePatchType, `{"name":"A"}`, nil, 404, "no such pet", false},
		{"stale If-Match", "/pets/1", MergePatchType, `{"name":"B"}`, []string{"If-Match", `"1"`}, 412, "Precondition Failed", false},
		{"current If-Match", "/pets/1", MergePatchType, `{"name":"B"}`, []string{"If-Match", `"3"`}, 200, `"name":"B"`, true},
		{"If-None-Match *", "/pets/1", MergePatchType, `{"name":"C"}`, []string{"If-None-Match", `*`}, 412, "Precondition Failed", false},
		{"json patch", "/pets/1", JSONPatchType, `[{"op":"replace","path":"/name","value":"Kit"},{"op":"add","path":"/tags","value":["x"]}]`, nil, 200, `"name":"Kit","species":"dog","tags":["x"]`, true},
		{"json patch test fails", "/pets/1", JSONPatchType, `[{"op":"test","path":"/name","value":"Rex"},{"op":"replace","path":"/name","value":"Z"}]`, nil, 409, "test operation", false},
		{"json patch test holds", "/pets/1", JSONPatchType, `[{"op":"test","path":"/name","value":"Kit"},{"op":"remove","path":"/tags"}]`, nil, 200, `{"name":"Kit","species":"dog"}`, true},
		{"json patch bad path", "/pets/1", JSONPatchType, `[{"op":"remove","path":"/nothing"}]`, nil, 422, "could not be applied", false},
		{"json patch not a list", "/pets/1", JSONPatchType, `{"op":"remove","path":"/note"}`, nil, 422, "an array of operations", false},
		{"json patch invalid result", "/pets/1", JSONPatchType, `[{"op":"replace","path":"/species","value":"fish"}]`, nil, 422, `"location":"body.species"`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := s.calls()
			w := serve(r, "PATCH", c.path, c.body, append([]string{"Content-Type", c.ct}, c.headers...)...)
			if w.Code != c.status || !strings.Contains(w.Body.String(), c.want) || (s.calls() > before) != c.put {
				t.Errorf("%d %s (put called: %v), want %d with %s", w.Code, w.Body, s.calls() > before, c.status, c.want)
			}
			if c.status == 415 && w.Header().Get("Accept-Patch") != MergePatchType+", "+JSONPatchType {
				t.Errorf("415 with Accept-Patch %q", w.Header().Get("Accept-Patch"))
			}
		})
	}
	var patch *string
	for _, d := range r.Operations() {
		if d.Method == "PATCH" {
			s := fmt.Sprintf("%s %s", d.ID, d.Summary)
			for _, c := range d.RequestBody.Content {
				s += " " + c.MediaType
			}
			for _, resp := range d.Responses {
				s += fmt.Sprint(" ", resp.Status)
			}
			patch = &s
		}
	}
	if want := "patch-pets-by-id Update a pet in part application/merge-patch+json application/json-patch+json 200 400 406 408 409 412 413 415 422 500"; patch == nil || *patch != want {
		t.Errorf("documented PATCH: %v\nwant %s", *patch, want)
	}
}

// A hand-built request without a body is a 400, not a panic.
func TestMergePatchNilBody(t *testing.T) {
	s := &petStore{pets: map[int]*storedPet{1: {version: 1, pet: patchPet{Name: "Rex", Species: "dog"}}}}
	req := httptest.NewRequest("PATCH", "/pets/1", nil)
	req.Body = nil
	req.Header.Set("Content-Type", MergePatchType)
	w := httptest.NewRecorder()
	patchRouter(s).ServeHTTP(w, req)
	if w.Code != 400 {
		t.Errorf("%d %s", w.Code, w.Body)
	}
}

// Patches of different members sent at the same moment, without
// If-Match, each answered 200, all end up in the resource: each is written
// only over the version it was applied to, and applied again when another
// came first.
func TestMergePatchConcurrentKeepsEveryChange(t *testing.T) {
	for round := range 15 {
		s := &petStore{pets: map[int]*storedPet{1: {version: 1, pet: patchPet{Name: "Rex", Species: "dog"}}}}
		s.race = func() { time.Sleep(time.Millisecond) }
		r := patchRouter(s)
		patches := []struct{ ct, body string }{
			{MergePatchType, `{"name":"Max"}`},
			{MergePatchType, `{"note":"barks"}`},
			{JSONPatchType, `[{"op":"add","path":"/tags","value":["good"]}]`},
		}
		var wg sync.WaitGroup
		codes := make([]int, len(patches))
		for i, p := range patches {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = serve(r, "PATCH", "/pets/1", p.body, "Content-Type", p.ct).Code
			}()
		}
		wg.Wait()
		got := s.pets[1].pet
		for i, code := range codes {
			if code != 200 {
				t.Fatalf("round %d: patch %d answered %d", round, i, code)
			}
		}
		if got.Name != "Max" || got.Note != "barks" || len(got.Tags) != 1 {
			t.Fatalf("round %d: a change answered 200 was lost: %+v", round, got)
		}
	}
}

// A patch whose writes keep losing the race is answered 409, and nothing
// it did not see is overwritten.
func TestMergePatchGivesUp(t *testing.T) {
	s := &petStore{pets: map[int]*storedPet{1: {version: 1, pet: patchPet{Name: "Rex", Species: "dog"}}}}
	s.race = func() { // another writer always comes first
		s.mu.Lock()
		s.pets[1].version++
		s.mu.Unlock()
	}
	w := serve(patchRouter(s), "PATCH", "/pets/1", `{"name":"Max"}`, "Content-Type", MergePatchType)
	if w.Code != http.StatusConflict || s.pets[1].pet.Name != "Rex" {
		t.Errorf("%d %s; stored %+v", w.Code, w.Body, s.pets[1].pet)
	}
}

// Of N writers holding the same version, exactly one succeeds; the
// others get 412.
func TestConditionalWriteOneWinner(t *testing.T) {
	for round := range 10 {
		s := &petStore{pets: map[int]*storedPet{1: {version: 1, pet: patchPet{Name: "Rex", Species: "dog"}}}}
		s.race = func() { time.Sleep(time.Millisecond) }
		r := patchRouter(s)
		const n = 16
		codes := make(chan int, 2*n)
		var wg sync.WaitGroup
		for i := range n {
			for _, method := range []string{"PUT", "PATCH"} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ct, body := "application/json", fmt.Sprintf(`{"name":"N%d","species":"cat"}`, i)
					if method == "PATCH" {
						ct, body = MergePatchType, fmt.Sprintf(`{"name":"P%d"}`, i)
					}
					codes <- serve(r, method, "/pets/1", body, "Content-Type", ct, "If-Match", `"1"`).Code
				}()
			}
		}
		wg.Wait()
		close(codes)
		count := map[int]int{}
		for c := range codes {
			count[c]++
		}
		if count[200] != 1 || count[412] != 2*n-1 {
			t.Fatalf("round %d: answers %v, want one 200 and the rest 412", round, count)
		}
	}
}

// Write: a lost race without preconditions is applied to the newer
// version; after MaxWriteAttempts lost races, a 409.
func TestConditionalWrite(t *testing.T) {
	var c Conditional
	reads, writes := 0, 0
	err := c.Write(context.Background(), func(context.Context) (Version, error) {
		reads++
		return Version{ETag: etagOf(reads), Exists: true}, nil
	}, func(_ context.Context, v Version) (bool, error) {
		writes++
		return v.ETag == etagOf(3), nil
	})
	if err != nil || reads != 3 || writes != 3 {
		t.Errorf("err %v after %d reads and %d writes", err, reads, writes)
	}
	err = c.Write(context.Background(), func(context.Context) (Version, error) {
		return Version{ETag: `"1"`, Exists: true}, nil
	}, func(context.Context, Version) (bool, error) { return false, nil })
	if p := asProblem(err); p == nil || p.Status != http.StatusConflict {
		t.Errorf("after lost races: %v", err)
	}
	gone := Conditional{IfMatch: `"1"`}
	err = gone.Write(context.Background(), func(context.Context) (Version, error) { return Version{}, nil },
		func(context.Context, Version) (bool, error) {
			t.Error("wrote a resource that is gone")
			return true, nil
		})
	if p := asProblem(err); p == nil || p.Status != http.StatusPreconditionFailed {
		t.Errorf("If-Match on a missing resource: %v", err)
	}
}

type plainDelete struct {
	ID int `path:"id"`
}

type condDelete struct {
	Conditional
	ID int `path:"id"`
}

// A write operation without Conditional answers an If-Match that names
// tags with 412 (it has no entity tags to match), and proceeds with *;
// a Conditional input reads an If-Match list split over several lines.
func TestPreconditionsNeverIgnored(t *testing.T) {
	r := New()
	deleted := 0
	Delete(r, "/plain/{id}", func(ctx context.Context, in *plainDelete) (*struct{}, error) {
		deleted++
		return nil, nil
	})
	var seen string
	Delete(r, "/cond/{id}", func(ctx context.Context, in *condDelete) (*struct{}, error) {
		seen = in.IfMatch
		return nil, in.Check(Version{ETag: `"b"`, Exists: true})
	})
	if w := serve(r, "DELETE", "/plain/4", "", "If-Match", `"zz"`); w.Code != 412 || deleted != 0 {
		t.Errorf("If-Match on an operation without versions: %d, deleted %d", w.Code, deleted)
	}
	if w := serve(r, "DELETE", "/plain/4", "", "If-Match", `*`); w.Code != 204 || deleted != 1 {
		t.Errorf("If-Match *: %d", w.Code)
	}
	req := httptest.NewRequest("DELETE", "/cond/1", nil)
	req.Header.Add("If-Match", `"a"`)
	req.Header.Add("If-Match", `"b"`)
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != 204 || seen != `"a", "b"` {
		t.Errorf("If-Match over two lines: %d, bound %q", w.Code, seen)
	}
}

type openPut struct {
	Conditional
	ID   int `path:"id"`
	Body patchPet
}

type readPet struct {
	ETag string `header:"ETag"`
	Body struct {
		ID int `json:"id" readOnly:"true"`
		patchPet
	}
}

// Under RefuseUnknown the PUT receives what the client patched, not the
// read-only members the GET answers with; the GET's and PUT's own
// middleware run for the PATCH too.
func TestMergePatchRefuseUnknownAndMiddleware(t *testing.T) {
	r := New(UnknownProperties(RefuseUnknown))
	stored := patchPet{Name: "Rex", Species: "dog"}
	var ran []string
	mw := tracing(&ran)
	get := func(ctx context.Context, in *petID) (*readPet, error) {
		out := &readPet{ETag: `"1"`}
		out.Body.ID, out.Body.patchPet = in.ID, stored
		return out, nil
	}
	put := func(ctx context.Context, in *openPut) (*readPet, error) {
		stored = in.Body
		return get(ctx, &petID{ID: in.ID})
	}
	Get(r, "/pets/{id}", get, Middleware(mw("get")))
	Put(r, "/pets/{id}", put, Middleware(mw("put")))
	MergePatch(r, "/pets/{id}", get, put)
	w := serve(r, "PATCH", "/pets/1", `{"note":"x"}`, "Content-Type", MergePatchType)
	if w.Code != 200 || stored.Note != "x" || strings.Join(ran, ",") != "get,put" {
		t.Errorf("%d %s; stored %+v; middleware %v", w.Code, w.Body, stored, ran)
	}
	if w := serve(r, "PATCH", "/pets/1", `{"id":7}`, "Content-Type", MergePatchType); w.Code != 422 {
		t.Errorf("a read-only member the client sends: %d %s", w.Code, w.Body)
	}
}

// MergePatch refuses, at registration, a PUT that cannot compare and
// swap and a GET that answers no version.
func TestMergePatchRegistration(t *testing.T) {
	s := &petStore{}
	type plainPut struct {
		ID   int `path:"id"`
		Body patchPet
	}
	noCAS := func(ctx context.Context, in *plainPut) (*petBody, error) { return nil, nil }
	noETag := func(ctx context.Context, in *petID) (*patchPet, error) { return nil, nil }
	for name, register := range map[string]func(){
		"Conditional": func() { MergePatch(New(), "/p/{id}", s.get, noCAS) },
		"ETag":        func() { MergePatch(New(), "/p/{id}", noETag, s.put) },
	} {
		func() {
			defer func() {
				if msg := fmt.Sprint(recover()); !strings.Contains(msg, name) {
					t.Errorf("panic %q, want one naming %s", msg, name)
				}
			}()
			register()
		}()
	}
}

func asProblem(err error) *problemDetails {
	p, _ := err.(*problemDetails)
	return p
}

func ExampleMergePatch() {
	s := &petStore{pets: map[int]*storedPet{1: {version: 1, pet: patchPet{Name: "Rex", Species: "dog", Note: "barks"}}}}
	r := patchRouter(s)
	w := serve(r, "PATCH", "/pets/1", `{"name":"Max","note":null}`, "Content-Type", MergePatchType)
	fmt.Println(w.Code, w.Header().Get("ETag"), w.Body)
	w = serve(r, "PATCH", "/pets/1", `[{"op":"add","path":"/tags","value":["good"]}]`, "Content-Type", JSONPatchType)
	fmt.Println(w.Code, w.Header().Get("ETag"), w.Body)
	// Output:
	// 200 "2" {"name":"Max","species":"dog"}
	// 200 "3" {"name":"Max","species":"dog","tags":["good"]}
}

type problemDetails = problem.Details

// A patch is checked against RFC 6902's rules once the resource is read:
// a bad pointer, an unknown op or a missing member is a 422, whatever the
// preconditions say, as a PUT's invalid body is.
func TestJSONPatchChecked(t *testing.T) {
	s := &petStore{pets: map[int]*storedPet{1: {version: 1, pet: patchPet{Name: "Rex", Species: "dog"}}}}
	r := patchRouter(s)
	for _, body := range []string{
		`[{"op":"copy","path":"/note","from":"name"}]`,
		`[{"op":"copy","path":"/note"}]`,
		`[{"op":"add","path":"/note"}]`,
		`[{"op":"remove","path":"a~2"}]`,
		`[{"op":"jump","path":"/note"}]`,
		`null`,
		`{}`,
	} {
		if w := serve(r, "PATCH", "/pets/1", body, "Content-Type", JSONPatchType, "If-Match", `"1"`); w.Code != 422 {
			t.Errorf("%s: %d %s", body, w.Code, w.Body)
		}
		if w := serve(r, "PATCH", "/pets/1", body, "Content-Type", JSONPatchType, "If-Match", `"7"`); w.Code != 422 {
			t.Errorf("%s with a stale If-Match: %d %s", body, w.Code, w.Body)
		}
	}
}

func FuzzJSONPatch(f *testing.F) {
	f.Add(`[{"op":"add","path":"/tags","value":["a"]}]`, `application/json-patch+json`)
	f.Add(`{"name":"x","note":null}`, `application/merge-patch+json`)
	f.Add(`[{"op":"copy","path":"/note","from":""},{"op":"copy","path":"/tags/-","from":""}]`, `application/json-patch+json`)
	f.Add(`[{"op":"move","from":"/tags/0","path":"/tags/0"},{"op":"test","path":"/tags","value":["a"]}]`, `application/json-patch+json`)
	f.Add(`{"name":"Rex","tags":["a"]}`, `application/merge-patch+json`)
	// Whatever the patch: never a 5xx, and a write happens exactly when
	// the answer carries a new ETag. (A write may still store what was
	// there: "" where the GET left an empty member out is a change vane
	// cannot see through.)
	f.Fuzz(func(t *testing.T, body, ct string) {
		s := &petStore{pets: map[int]*storedPet{1: {version: 1, pet: patchPet{Name: "Rex", Species: "dog", Tags: []string{"a"}}}}}
		w := serve(patchRouter(s), "PATCH", "/pets/1", body, "Content-Type", ct)
		if w.Code >= 500 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		wrote := s.calls() > 0
		if w.Code == 200 && wrote != (w.Header().Get("ETag") != `"1"`) {
			t.Fatalf("200 with ETag %s after %d writes", w.Header().Get("ETag"), s.calls())
		}
	})
}

// petWithID is a pet as GET answers it: with members the PUT body does
// not have (id, readOnly in the schema; created, undeclared).
type petWithID struct {
	ETag string `header:"ETag"`
	Body struct {
		ID      int    `json:"id" readOnly:"true"`
		Created string `json:"created"`
		Score   int    `json:"score,omitempty"`
		patchPet
	}
}

func (s *petStore) getWithID(ctx context.Context, in *petID) (*petWithID, error) {
	p, err := s.get(ctx, in)
	if err != nil {
		return nil, err
	}
	out := &petWithID{ETag: p.ETag}
	out.Body.ID, out.Body.Created, out.Body.patchPet = in.ID, "2026-11-01", p.Body
	if in.ID == 2 {
		out.Body.Score = 16526
	}
	return out, nil
}

func idRouter(s *petStore, opts ...Option) *Router {
	r := New()
	MergePatch(r, "/pets/{id}", s.getWithID, s.put, opts...)
	return r
}

// A patch whose result is the current resource writes nothing: 200 with
// the unchanged ETag and the resource, the PUT not called, no new
// version.
func TestPatchThatChangesNothing(t *testing.T) {
	s := &petStore{pets: map[int]*storedPet{
		1: {version: 4, pet: patchPet{Name: "Rex", Species: "dog", Tags: []string{"good"}}},
		2: {version: 4, pet: patchPet{Name: "Kit", Species: "cat"}},
	}}
	r := idRouter(s)
	for _, c := range []struct{ ct, body string }{
		{JSONPatchType, `[]`},
		{JSONPatchType, `[{"op":"test","path":"/name","value":"Rex"},{"op":"test","path":"/tags","value":["good"]}]`},
		{JSONPatchType, `[{"op":"move","from":"/name","path":"/name"}]`},
		{JSONPatchType, `[{"op":"move","from":"/tags/0","path":"/tags/0"}]`},
		{JSONPatchType, `[{"op":"replace","path":"/tags","value":["good"]}]`},
		{JSONPatchType, `[{"op":"add","path":"/note","value":"x"},{"op":"remove","path":"/note"}]`},
		{JSONPatchType, `[{"op":"copy","from":"/name","path":"/name"}]`},
		{JSONPatchType, `[{"op":"test","path":"/id","value":1.0}]`},
		{MergePatchType, `{}`},
		{MergePatchType, `{"name":"Rex"}`},
		{MergePatchType, `{"note":null}`},
		{MergePatchType, `{"id":1,"created":"2026-11-01","name":"Rex","species":"dog","tags":["good"]}`},
		{MergePatchType, `{"id":1.0}`},
	} {
		for _, accept := range []string{"", "application/json"} {
			before := s.calls()
			h := []string{"Content-Type", c.ct}
			if accept != "" {
				h = append(h, "Accept", accept)
			}
			w := serve(r, "PATCH", "/pets/1", c.body, h...)
			if w.Code != 200 || w.Header().Get("ETag") != `"4"` || s.calls() != before || s.pets[1].version != 4 ||
				!strings.Contains(w.Body.String(), `"name":"Rex"`) {
				t.Errorf("%s %s (Accept %q): %d ETag %s %s; put called %d times", c.ct, c.body, accept,
					w.Code, w.Header().Get("ETag"), w.Body, s.calls()-before)
			}
		}
	}
	// 16526 and 16526.0 are the same number (RFC 6902 section 4.6).
	if w := serve(r, "PATCH", "/pets/2", `[{"op":"test","path":"/score","value":16526.0},{"op":"replace","path":"/score","value":1.6526e4}]`,
		"Content-Type", JSONPatchType); w.Code != 200 || w.Header().Get("ETag") != `"4"` {
		t.Errorf("numbers equal by value: %d %s", w.Code, w.Body)
	}
	// A patch that changes something still writes.
	if w := serve(r, "PATCH", "/pets/1", `{"name":"Max"}`, "Content-Type", MergePatchType); w.Code != 200 || w.Header().Get("ETag") != `"5"` {
		t.Errorf("a change: %d %s %s", w.Code, w.Header().Get("ETag"), w.Body)
	}
}

// A patch that changes a read-only member (one the PUT body does not
// declare, or one a schema marks readOnly) is a 422 naming it, and
// nothing is written; leaving it as it is, is fine.
func TestPatchReadOnlyMembers(t *testing.T) {
	s := &petStore{pets: map[int]*storedPet{1: {version: 1, pet: patchPet{Name: "Rex", Species: "dog", Tags: []string{"good"}}}}}
	r := idRouter(s)
	for _, c := range []struct{ ct, body, location, value string }{
		{MergePatchType, `{"id":7}`, "body.id", "<nil>"},
		{MergePatchType, `{"id":null,"name":"Max"}`, "body.id", "<nil>"},
		{MergePatchType, `{"created":"yesterday"}`, "body.created", "<nil>"},
		{JSONPatchType, `[{"op":"replace","path":"/id","value":2}]`, "body[0].path", "/id"},
		{JSONPatchType, `[{"op":"test","path":"/id","value":1},{"op":"remove","path":"/created"}]`, "body[1].path", "/created"},
		{JSONPatchType, `[{"op":"move","from":"/id","path":"/note"}]`, "body[0].from", "/id"},
		{JSONPatchType, `[{"op":"replace","path":"","value":{"name":"A","species":"cat"}}]`, "body[0].path", ""}, // created and id
		{JSONPatchType, `[{"op":"add","path":"/created","value":"now"}]`, "body[0].path", "/created"},
	} {
		before := s.calls()
		w := serve(r, "PATCH", "/pets/1", c.body, "Content-Type", c.ct)
		p := problemOfBody(t, w)
		if w.Code != 422 || s.calls() != before || len(p.Errors) == 0 || p.Errors[0].Location != c.location ||
			fmt.Sprint(p.Errors[0].Value) != c.value {
			t.Errorf("%s: %d %s; put called %d times", c.body, w.Code, w.Body, s.calls()-before)
		}
	}
	// Set to what it already is, alongside a change: the change is made.
	if w := serve(r, "PATCH", "/pets/1", `{"id":1,"created":"2026-11-01","name":"Max"}`, "Content-Type", MergePatchType); w.Code != 200 || s.pets[1].pet.Name != "Max" {
		t.Errorf("read-only members unchanged: %d %s", w.Code, w.Body)
	}
}

func problemOfBody(t *testing.T, w *httptest.ResponseRecorder) *problem.Details {
	t.Helper()
	p, err := problem.Parse(w.Body.Bytes())
	if err != nil {
		t.Fatalf("%d %s: %v", w.Code, w.Body, err)
	}
	return p
}

// JSON Patch over HTTP follows RFC 6901 and 6902: the index grammar, one
// status for a failed test (409, whatever is missing), one for a patch
// that is invalid or names what is not there (422), problems that name
// the operation and member in the patch's own terms.
func TestJSONPatchRFC(t *testing.T) {
	s := &petStore{pets: map[int]*storedPet{1: {version: 1, pet: patchPet{Name: "Rex", Species: "dog", Tags: []string{"a", "b"}}}}}
	r := idRouter(s)
	for _, c := range []struct {
		body     string
		status   int
		location string
		detail   string
	}{
		{`[{"op":"replace","path":"/tags/01","value":"x"}]`, 422, "body[0].path", "could not be applied"},
		{`[{"op":"replace","path":"/tags/+0","value":"x"}]`, 422, "body[0].path", "could not be applied"},
		{`[{"op":"remove","path":"/tags/-"}]`, 422, "body[0].path", "could not be applied"},
		{`[{"op":"add","path":"/tags/3","value":"x"}]`, 422, "body[0].path", "could not be applied"},
		{`[{"op":"remove","path":"/nothing"}]`, 422, "body[0].path", "could not be applied"},
		{`[{"op":"add","path":"/nothing/x","value":1}]`, 422, "body[0].path", "could not be applied"},
		{`[{"op":"test","path":"/name","value":"Rex"},{"op":"jump","path":"/name"}]`, 422, "body[1].op", "not a valid JSON Patch"},
		{`[{"op":"add","path":"/note"}]`, 422, "body[0].value", "not a valid JSON Patch"},
		{`[{"op":"add","path":"note","value":1}]`, 422, "body[0].path", "not a valid JSON Patch"},
		{`[{"op":"test","path":"/name","value":"Max"}]`, 409, "body[0].value", "test operation"},
		{`[{"op":"test","path":"/missing","value":1}]`, 409, "body[0].path", "test operation"},
		{`[{"op":"test","path":"/tags/5","value":"a"}]`, 409, "body[0].path", "test operation"},
		{`[{"op":"test","path":"/tags/01","value":"b"}]`, 409, "body[0].path", "test operation"},
		{`[{"op":"test","path":"/name/x","value":1}]`, 409, "body[0].path", "test operation"},
	} {
		w := serve(r, "PATCH", "/pets/1", c.body, "Content-Type", JSONPatchType)
		p := problemOfBody(t, w)
		loc := ""
		if len(p.Errors) > 0 {
			loc = p.Errors[0].Location
		}
		if w.Code != c.status || loc != c.location || !strings.Contains(p.Detail, c.detail) {
			t.Errorf("%s: %d %s, want %d at %s", c.body, w.Code, w.Body, c.status, c.location)
		}
	}
	if s.calls() != 0 {
		t.Errorf("put called %d times", s.calls())
	}
}

// A JSON Patch holds at most 1,000 operations, or MaxPatchOperations,
// as its schema says; more is a 422.
func TestJSONPatchMaxOperations(t *testing.T) {
	s := &petStore{pets: map[int]*storedPet{1: {version: 1, pet: patchPet{Name: "Rex", Species: "dog"}}}}
	ops := func(n int) string {
		return "[" + strings.TrimSuffix(strings.Repeat(`{"op":"test","path":"/name","value":"Rex"},`, n), ",") + "]"
	}
	r := idRouter(s)
	if w := serve(r, "PATCH", "/pets/1", ops(1000), "Content-Type", JSONPatchType); w.Code != 200 {
		t.Errorf("1000 operations: %d %s", w.Code, w.Body)
	}
	if w := serve(r, "PATCH", "/pets/1", ops(1001), "Content-Type", JSONPatchType); w.Code != 422 || !strings.Contains(w.Body.String(), "at most 1000 operations") {
		t.Errorf("1001 operations: %d %s", w.Code, w.Body)
	}
	r2 := idRouter(s, MaxPatchOperations(2))
	if w := serve(r2, "PATCH", "/pets/1", ops(3), "Content-Type", JSONPatchType); w.Code != 422 || !strings.Contains(w.Body.String(), "at most 2 operations") {
		t.Errorf("3 operations of 2: %d %s", w.Code, w.Body)
	}
	for _, d := range r.Operations() {
		for _, c := range d.RequestBody.Content {
			if c.MediaType == JSONPatchType && (c.Schema.MaxItems == nil || *c.Schema.MaxItems != 1000) {
				t.Errorf("the JSON Patch schema says maxItems %v", c.Schema.MaxItems)
			}
		}
	}
}

// The resource is read before the patch is parsed: a patch of 20,000
// operations (0.8 MB) to a pet that does not exist is a 404, and costs no
// more allocations than one of 20 does, give or take the growth of the
// buffer the body is read into.
func TestPatchOfMissingResourceIsCheap(t *testing.T) {
	s := &petStore{pets: map[int]*storedPet{}}
	r := idRouter(s)
	ops := func(n int) string {
		return "[" + strings.TrimSuffix(strings.Repeat(`{"op":"test","path":"/name","value":"x"},`, n), ",") + "]"
	}
	small, large := ops(20), ops(20000)
	if w := serve(r, "PATCH", "/pets/9", large, "Content-Type", JSONPatchType); w.Code != 404 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	allocs := func(body string) float64 {
		return testing.AllocsPerRun(5, func() { serve(r, "PATCH", "/pets/9", body, "Content-Type", JSONPatchType) })
	}
	a, b := allocs(small), allocs(large)
	t.Logf("allocations: %.0f for 20 operations, %.0f for 20,000", a, b)
	if b > a+64 {
		t.Errorf("a patch of 20 operations to a missing pet: %.0f allocations; of 20,000: %.0f", a, b)
	}
}
