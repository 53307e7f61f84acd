package vane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type docStore struct {
	version  int
	modified time.Time
	text     string
}

type getDoc struct{}

type docOut struct {
	ETag         string    `header:"ETag"`
	LastModified time.Time `header:"Last-Modified"`
	CacheControl string    `header:"Cache-Control"`
	Body         struct {
		Text string `json:"text"`
	}
}

type putDoc struct {
	Conditional
	Body struct {
		Text string `json:"text"`
	}
}

func conditionalRouter(store *docStore, stored *bool) *Router {
	r := New()
	Get(r, "/doc", func(ctx context.Context, _ *getDoc) (*docOut, error) {
		out := &docOut{ETag: fmt.Sprintf(`"v%d"`, store.version), LastModified: store.modified, CacheControl: "no-cache"}
		out.Body.Text = store.text
		return out, nil
	})
	Put(r, "/doc", func(ctx context.Context, in *putDoc) (*struct{}, error) {
		cur := Version{ETag: fmt.Sprintf(`"v%d"`, store.version), LastModified: store.modified, Exists: true}
		if err := in.Check(cur); err != nil {
			return nil, err
		}
		*stored = true
		store.version++
		store.text = in.Body.Text
		return nil, nil
	})
	return r
}

// A GET whose ETag or Last-Modified matches If-None-Match or
// If-Modified-Since is a 304 with the validators and no body; a write with
// a stale If-Match or If-Unmodified-Since is a 412 and the handler does not
// run.
func TestConditionalRequests(t *testing.T) {
	mod := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	store := &docStore{version: 3, modified: mod, text: "hello"}
	var stored bool
	r := conditionalRouter(store, &stored)
	get := func(h ...string) *httptest.ResponseRecorder { return serve(r, "GET", "/doc", "", h...) }
	cases := []struct {
		name    string
		headers []string
		status  int
	}{
		{"no condition", nil, 200},
		{"etag matches", []string{"If-None-Match", `"v3"`}, 304},
		{"weak etag matches", []string{"If-None-Match", `W/"v1", W/"v3"`}, 304},
		{"star", []string{"If-None-Match", "*"}, 304},
		{"etag differs", []string{"If-None-Match", `"v2"`}, 200},
		{"not modified since", []string{"If-Modified-Since", mod.Format(http.TimeFormat)}, 304},
		{"modified since", []string{"If-Modified-Since", mod.Add(-time.Hour).Format(http.TimeFormat)}, 200},
		{"If-None-Match decides alone", []string{"If-None-Match", `"v2"`, "If-Modified-Since", mod.Format(http.TimeFormat)}, 200},
	}
	for _, c := range cases {
		t.Run("GET "+c.name, func(t *testing.T) {
			w := get(c.headers...)
			if w.Code != c.status {
				t.Fatalf("%d %s, want %d", w.Code, w.Body, c.status)
			}
			if w.Header().Get("ETag") != `"v3"` || w.Header().Get("Cache-Control") != "no-cache" {
				t.Errorf("headers %v", w.Header())
			}
			if c.status == 304 && w.Body.Len() != 0 {
				t.Errorf("304 with a body: %q", w.Body)
			}
		})
	}
	writes := []struct {
		name    string
		headers []string
		status  int
	}{
		{"stale If-Match", []string{"If-Match", `"v2"`}, 412},
		{"weak If-Match never matches", []string{"If-Match", `W/"v3"`}, 412},
		{"stale If-Unmodified-Since", []string{"If-Unmodified-Since", mod.Add(-time.Hour).Format(http.TimeFormat)}, 412},
		{"If-None-Match star on an existing resource", []string{"If-None-Match", "*"}, 412},
		{"current If-Match", []string{"If-Match", `"v3"`}, 204},
	}
	for _, c := range writes {
		t.Run("PUT "+c.name, func(t *testing.T) {
			stored = false
			w := serve(r, "PUT", "/doc", `{"text":"new"}`, append([]string{"Content-Type", "application/json"}, c.headers...)...)
			if w.Code != c.status || stored != (c.status == 204) {
				t.Fatalf("%d %s (handler ran: %v), want %d", w.Code, w.Body, stored, c.status)
			}
		})
	}
	var put, getOp []int
	for _, resp := range r.Operations()[1].Responses {
		put = append(put, resp.Status)
	}
	for _, resp := range r.Operations()[0].Responses {
		getOp = append(getOp, resp.Status)
	}
	if !strings.Contains(fmt.Sprint(put), "412") || !strings.Contains(fmt.Sprint(getOp), "304") {
		t.Errorf("documented: GET %v, PUT %v", getOp, put)
	}
	var params []string
	for _, p := range r.Operations()[1].Parameters {
		params = append(params, p.In+" "+p.Name)
	}
	if got := strings.Join(params, ", "); got != "header If-Match, header If-None-Match, header If-Unmodified-Since" {
		t.Errorf("PUT parameters: %s", got)
	}
}

// datedDoc is a document whose writes compare and swap on its version and
// move its modification time on by a millisecond each, from a whole
// second: modification times finer than HTTP dates.
type datedDoc struct {
	mu       sync.Mutex
	version  int
	modified time.Time
	text     string
	writes   int
	race     func() // runs between a write's read and its compare-and-swap
}

func (d *datedDoc) current() (Version, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return Version{ETag: fmt.Sprintf(`"v%d"`, d.version), LastModified: d.modified, Exists: true}, d.version
}

// write changes the text by compare-and-swap, as UPDATE … WHERE version
// = $2 does, or, with a stale version, changes nothing.
func (d *datedDoc) write(version int, text string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.version != version {
		return false
	}
	d.version++
	d.modified = d.modified.Add(time.Millisecond)
	d.text = text
	d.writes++
	return true
}

type requiredPut struct {
	Conditional `required:"true"`
	Body        struct {
		Text string `json:"text"`
	}
}

func datedRouter(d *datedDoc) *Router {
	r := New()
	get := func(ctx context.Context, _ *getDoc) (*docOut, error) {
		v, _ := d.current()
		d.mu.Lock()
		defer d.mu.Unlock()
		out := &docOut{ETag: v.ETag, LastModified: v.LastModified}
		out.Body.Text = d.text
		return out, nil
	}
	put := func(ctx context.Context, in *putDoc) (*docOut, error) {
		var version int
		err := in.Write(ctx, func(context.Context) (Version, error) {
			v, n := d.current()
			version = n
			return v, nil
		}, func(context.Context, Version) (bool, error) {
			if d.race != nil {
				d.race()
			}
			return d.write(version, in.Body.Text), nil
		})
		if err != nil {
			return nil, err
		}
		return get(ctx, nil)
	}
	Get(r, "/doc", get)
	Put(r, "/doc", put)
	MergePatch(r, "/doc", get, put)
	Put(r, "/required", func(ctx context.Context, in *requiredPut) (*struct{}, error) {
		var version int
		return nil, in.Write(ctx, func(context.Context) (Version, error) {
			v, n := d.current()
			version = n
			return v, nil
		}, func(context.Context, Version) (bool, error) { return d.write(version, in.Body.Text), nil })
	})
	return r
}

// HTTP dates have whole seconds, modification times need not: a resource
// modified at 10:00:00.300 has been modified since "10:00:00". A write
// with that If-Unmodified-Since is refused, and a GET with that
// If-Modified-Since gets the resource, not a 304; dates that cover the
// modification time work as before.
func TestDatePreconditionsAtFullPrecision(t *testing.T) {
	second := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	date := func(t time.Time) string { return t.Format(http.TimeFormat) }
	for _, c := range []struct {
		name        string
		modified    time.Time
		since       time.Time
		get, writes int // the GET's status with If-Modified-Since, the PUT's and PATCH's with If-Unmodified-Since
	}{
		{"modified within the second", second.Add(300 * time.Millisecond), second, 200, 412},
		{"modified at the second", second, second, 304, 200},
		{"the next second", second.Add(300 * time.Millisecond), second.Add(time.Second), 304, 200},
		{"the second before", second, second.Add(-time.Second), 200, 412},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &datedDoc{version: 1, modified: c.modified, text: "a"}
			r := datedRouter(d)
			w := serve(r, "GET", "/doc", "", "If-Modified-Since", date(c.since))
			if w.Code != c.get || w.Header().Get("Last-Modified") != date(c.modified) {
				t.Errorf("GET: %d with Last-Modified %s, want %d", w.Code, w.Header().Get("Last-Modified"), c.get)
			}
			w = serve(r, "PUT", "/doc", `{"text":"b"}`, "Content-Type", "application/json", "If-Unmodified-Since", date(c.since))
			if w.Code != c.writes || (d.writes == 1) != (c.writes == 200) {
				t.Errorf("PUT: %d %s, %d writes", w.Code, w.Body, d.writes)
			}
			d = &datedDoc{version: 1, modified: c.modified, text: "a"}
			r = datedRouter(d)
			w = serve(r, "PATCH", "/doc", `{"text":"c"}`, "Content-Type", MergePatchType, "If-Unmodified-Since", date(c.since))
			if w.Code != c.writes || (d.writes == 1) != (c.writes == 200) {
				t.Errorf("PATCH: %d %s, %d writes", w.Code, w.Body, d.writes)
			}
		})
	}
}

// The lost update of a date precondition: A reads the resource (its
// Last-Modified a whole second), B changes it within that second, then A
// writes with If-Unmodified-Since set to the date it read. A must get
// 412, as it would with If-Match; B's change stays.
func TestDatePreconditionNoLostUpdate(t *testing.T) {
	d := &datedDoc{version: 1, modified: time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC), text: "a"}
	r := datedRouter(d)
	read := serve(r, "GET", "/doc", "")
	seen := read.Header().Get("Last-Modified")
	if w := serve(r, "PUT", "/doc", `{"text":"B"}`, "Content-Type", "application/json"); w.Code != 200 {
		t.Fatalf("B: %d %s", w.Code, w.Body)
	}
	if got := serve(r, "GET", "/doc", "").Header().Get("Last-Modified"); got != seen {
		t.Fatalf("B's write moved Last-Modified to %s: this test needs it within the second", got)
	}
	for _, req := range []struct{ method, ct, body string }{
		{"PUT", "application/json", `{"text":"A"}`},
		{"PATCH", MergePatchType, `{"text":"A"}`},
		{"PATCH", JSONPatchType, `[{"op":"replace","path":"/text","value":"A"}]`},
	} {
		if w := serve(r, req.method, "/doc", req.body, "Content-Type", req.ct, "If-Unmodified-Since", seen); w.Code != 412 {
			t.Errorf("A's %s %s with If-Unmodified-Since %s: %d %s", req.method, req.ct, seen, w.Code, w.Body)
		}
	}
	if d.text != "B" {
		t.Errorf("B's change was lost: %q", d.text)
	}
}

// Of N writers sending the same If-Unmodified-Since, which the resource
// satisfies, exactly one succeeds: the date is compared, like If-Match,
// against the version the compare-and-swap swaps from.
func TestDatePreconditionOneWinner(t *testing.T) {
	for round := range 10 {
		start := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
		d := &datedDoc{version: 1, modified: start, text: "a"}
		d.race = func() { time.Sleep(time.Millisecond) }
		r := datedRouter(d)
		const n = 8
		codes := make(chan int, 2*n)
		var wg sync.WaitGroup
		for i := range n {
			for _, method := range []string{"PUT", "PATCH"} {
				wg.Go(func() {
					ct := "application/json"
					if method == "PATCH" {
						ct = MergePatchType
					}
					codes <- serve(r, method, "/doc", fmt.Sprintf(`{"text":"%s%d"}`, method, i),
						"Content-Type", ct, "If-Unmodified-Since", start.Format(http.TimeFormat)).Code
				})
			}
		}
		wg.Wait()
		close(codes)
		count := map[int]int{}
		for c := range codes {
			count[c]++
		}
		if count[200] != 1 || count[412] != 2*n-1 || d.writes != 1 {
			t.Fatalf("round %d: answers %v, %d writes; want one 200 and the rest 412", round, count, d.writes)
		}
	}
}

// If-Unmodified-Since on a resource that does not exist fails, as
// If-Match does: the date the client holds was of a representation that
// is gone. A resource without a modification time ignores it (RFC 9110
// section 13.1.4), unless a precondition is required.
func TestDatePreconditionWithoutDate(t *testing.T) {
	c := Conditional{IfUnmodifiedSince: "Sun, 01 Nov 2026 10:00:00 GMT"}
	if p := asProblem(c.Check(Version{})); p == nil || p.Status != 412 {
		t.Errorf("a resource that is gone: %v", p)
	}
	if err := c.Check(Version{ETag: `"1"`, Exists: true}); err != nil {
		t.Errorf("a resource without a date: %v", err)
	}
	c.required = true
	if p := asProblem(c.Check(Version{ETag: `"1"`, Exists: true})); p == nil || p.Status != 428 {
		t.Errorf("required, and a resource without a date: %v", p)
	}
	if err := c.Check(Version{ETag: `"1"`, LastModified: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC), Exists: true}); err != nil {
		t.Errorf("required, and a resource with an older date: %v", err)
	}
}

// A GET's If-Match and If-Unmodified-Since are evaluated against the
// answer's ETag and Last-Modified (RFC 9110 section 13.2.2): 412 when they
// fail, and the 412 is documented.
func TestReadPreconditions(t *testing.T) {
	mod := time.Date(2026, 11, 1, 10, 0, 0, 500, time.UTC)
	d := &datedDoc{version: 3, modified: mod, text: "a"}
	r := datedRouter(d)
	for _, c := range []struct {
		headers []string
		status  int
	}{
		{[]string{"If-Match", `"v3"`}, 200},
		{[]string{"If-Match", `*`}, 200},
		{[]string{"If-Match", `"v2"`}, 412},
		{[]string{"If-Match", `W/"v3"`}, 412},
		{[]string{"If-Match", `"v3"`, "If-None-Match", `"v3"`}, 304},
		{[]string{"If-Match", `"v2"`, "If-None-Match", `"v3"`}, 412},
		{[]string{"If-Unmodified-Since", mod.Add(time.Second).Format(http.TimeFormat)}, 200},
		{[]string{"If-Unmodified-Since", mod.Format(http.TimeFormat)}, 412},
		{[]string{"If-Unmodified-Since", "yesterday"}, 200},
	} {
		for _, method := range []string{"GET", "HEAD"} {
			w := serve(r, method, "/doc", "", c.headers...)
			if w.Code != c.status {
				t.Errorf("%s %v: %d %s, want %d", method, c.headers, w.Code, w.Body, c.status)
			}
			if c.status == 412 && w.Header().Get("ETag") != "" {
				t.Errorf("%s %v: a 412 with the ETag of the answer it is not", method, c.headers)
			}
		}
	}
	var statuses []int
	for _, resp := range r.Operations()[0].Responses {
		statuses = append(statuses, resp.Status)
	}
	if !slices.Contains(statuses, 412) {
		t.Errorf("GET documents %v", statuses)
	}
}

type plainCreate struct {
	Body struct {
		Text string `json:"text"`
	}
}

type condCreate struct {
	Conditional
	Body struct {
		Text string `json:"text"`
	}
}

// A POST with If-None-Match: * ("only if the target does not exist") is
// a 412: the target of a POST, the collection, exists. The handler does
// not run, whether its input embeds Conditional or not.
func TestPostIfNoneMatchAny(t *testing.T) {
	r := New()
	created := 0
	Post(r, "/plain", func(ctx context.Context, in *plainCreate) (*struct{}, error) { created++; return nil, nil })
	Post(r, "/cond", func(ctx context.Context, in *condCreate) (*struct{}, error) { created++; return nil, nil })
	for _, path := range []string{"/plain", "/cond"} {
		for _, inm := range []string{"*", `"x", *`} {
			if w := serve(r, "POST", path, `{"text":"a"}`, "Content-Type", "application/json", "If-None-Match", inm); w.Code != 412 {
				t.Errorf("POST %s with If-None-Match %s: %d %s", path, inm, w.Code, w.Body)
			}
		}
		if w := serve(r, "POST", path, `{"text":"a"}`, "Content-Type", "application/json", "If-None-Match", `"x"`); w.Code != 204 {
			t.Errorf("POST %s with If-None-Match \"x\": %d %s", path, w.Code, w.Body)
		}
	}
	if created != 2 {
		t.Errorf("%d created", created)
	}
}

// An operation whose Conditional is required:"true" answers 428 to an
// unsafe request without If-Match, If-Unmodified-Since or If-None-Match:
// *, before its handler runs; the 428 is documented; MergePatch over its
// PUT requires one too.
func TestPreconditionRequired(t *testing.T) {
	d := &datedDoc{version: 1, modified: time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC), text: "a"}
	r := datedRouter(d)
	get := func(ctx context.Context, _ *getDoc) (*docOut, error) {
		v, _ := d.current()
		return &docOut{ETag: v.ETag, LastModified: v.LastModified}, nil
	}
	MergePatch(r, "/required", get, func(ctx context.Context, in *requiredPut) (*docOut, error) {
		var version int
		err := in.Write(ctx, func(context.Context) (Version, error) {
			v, n := d.current()
			version = n
			return v, nil
		}, func(context.Context, Version) (bool, error) { return d.write(version, in.Body.Text), nil })
		if err != nil {
			return nil, err
		}
		return get(ctx, nil)
	})
	for _, c := range []struct {
		headers []string
		status  int
	}{
		{nil, 428},
		{[]string{"If-None-Match", `"v1"`}, 428},
		{[]string{"If-Unmodified-Since", "not a date"}, 428},
		{[]string{"If-Match", `"v9"`}, 412},
		{[]string{"If-Match", `"v1"`}, 204},
		{[]string{"If-Unmodified-Since", "Sun, 01 Nov 2026 10:00:01 GMT"}, 204},
		{[]string{"If-None-Match", `*`}, 412}, // it exists
	} {
		before := d.writes
		w := serve(r, "PUT", "/required", `{"text":"x"}`, append([]string{"Content-Type", "application/json"}, c.headers...)...)
		if w.Code != c.status || (d.writes > before) != (c.status == 204) {
			t.Errorf("PUT %v: %d %s (%d writes), want %d", c.headers, w.Code, w.Body, d.writes-before, c.status)
		}
		if c.status == 428 && !strings.Contains(w.Body.String(), "If-Match") {
			t.Errorf("428 without advice: %s", w.Body)
		}
	}
	before := d.writes
	if w := serve(r, "PATCH", "/required", `{"text":"p"}`, "Content-Type", MergePatchType); w.Code != 428 || d.writes != before {
		t.Errorf("PATCH without a precondition: %d %s", w.Code, w.Body)
	}
	v, _ := d.current()
	if w := serve(r, "PATCH", "/required", `{"text":"p"}`, "Content-Type", MergePatchType, "If-Match", v.ETag); w.Code != 200 || d.writes != before+1 {
		t.Errorf("PATCH with If-Match: %d %s", w.Code, w.Body)
	}
	// Without the tag, nothing is required.
	if w := serve(r, "PUT", "/doc", `{"text":"x"}`, "Content-Type", "application/json"); w.Code != 200 {
		t.Errorf("PUT /doc: %d %s", w.Code, w.Body)
	}
	for _, d := range r.Operations() {
		var statuses []int
		for _, resp := range d.Responses {
			statuses = append(statuses, resp.Status)
		}
		if want := d.Pattern == "/required"; slices.Contains(statuses, 428) != want {
			t.Errorf("%s %s documents %v", d.Method, d.Pattern, statuses)
		}
	}
}

// countingBody is a body that counts how often it is closed.
type countingBody struct {
	io.Reader
	closed *atomic.Int32
}

func (b countingBody) Close() error {
	b.closed.Add(1)
	return nil
}

type fileOut struct {
	ETag   string `header:"ETag"`
	Status int    `enum:"200,204,205"`
	Body   io.Reader
}

// countingFile is a concrete reader type, as *os.File is.
type countingFile struct{ countingBody }

type concreteOut struct {
	ETag string `header:"ETag"`
	Body *countingFile
}

type fileIn struct {
	Status int  `query:"status"`
	Fail   bool `query:"fail"`
}

// A body that is an io.Closer (an *os.File) is closed on every path,
// sent or not: 200, 304, 204, 205, HEAD, a failed If-Match, a Status the
// output may not have, a handler that returns an error with its output.
func TestBodyClosedOnEveryPath(t *testing.T) {
	var opened, closed atomic.Int32
	r := New()
	Get(r, "/file", func(ctx context.Context, in *fileIn) (*fileOut, error) {
		opened.Add(1)
		out := &fileOut{ETag: `"f1"`, Status: in.Status, Body: countingBody{strings.NewReader("contents"), &closed}}
		if in.Fail {
			return out, errors.New("failed after opening")
		}
		return out, nil
	})
	Get(r, "/concrete", func(ctx context.Context, in *fileIn) (*concreteOut, error) {
		opened.Add(1)
		return &concreteOut{ETag: `"f1"`, Body: &countingFile{countingBody{strings.NewReader("contents"), &closed}}}, nil
	})
	for _, c := range []struct {
		name, method, target string
		headers              []string
		status               int
	}{
		{"200", "GET", "/file", nil, 200},
		{"304", "GET", "/file", []string{"If-None-Match", `"f1"`}, 304},
		{"204", "GET", "/file?status=204", nil, 204},
		{"205", "GET", "/file?status=205", nil, 205},
		{"HEAD", "HEAD", "/file", nil, 200},
		{"412", "GET", "/file", []string{"If-Match", `"f0"`}, 412},
		{"Status outside the enum", "GET", "/file?status=299", nil, 500},
		{"handler error", "GET", "/file?fail=true", nil, 500},
		{"a concrete reader, 304", "GET", "/concrete", []string{"If-None-Match", `"f1"`}, 304},
		{"a concrete reader, 412", "GET", "/concrete", []string{"If-Match", `"f0"`}, 412},
		{"a concrete reader, HEAD", "HEAD", "/concrete", nil, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			opened.Store(0)
			closed.Store(0)
			w := serve(r, c.method, c.target, "", c.headers...)
			if w.Code != c.status {
				t.Errorf("%d %s, want %d", w.Code, w.Body, c.status)
			}
			if opened.Load() != 1 || closed.Load() != 1 {
				t.Errorf("opened %d, closed %d", opened.Load(), closed.Load())
			}
			if c.method == "HEAD" && w.Body.Len() != 0 {
				t.Errorf("HEAD with a body %q", w.Body)
			}
		})
	}
}
