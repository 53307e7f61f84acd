package respond_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/vane-http/vane/respond"
)

var (
	t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	d0 = t0.Format(http.TimeFormat)
	d1 = t0.Add(-time.Hour).Format(http.TimeFormat)
	d2 = t0.Add(time.Hour).Format(http.TimeFormat)
)

func TestEvaluate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		method  string
		headers map[string]string
		etag    string
		lm      time.Time
		want    int
	}{
		{"none", "GET", nil, `"a"`, t0, 0},
		{"inm match", "GET", map[string]string{"If-None-Match": `"x", "a"`}, `"a"`, t0, 304},
		{"inm weak match", "GET", map[string]string{"If-None-Match": `W/"a"`}, `"a"`, t0, 304},
		{"inm weak current", "HEAD", map[string]string{"If-None-Match": `"a"`}, `W/"a"`, t0, 304},
		{"inm no match", "GET", map[string]string{"If-None-Match": `"b"`}, `"a"`, t0, 0},
		{"inm comma inside tag", "GET", map[string]string{"If-None-Match": `"a,b"`}, `"a,b"`, t0, 304},
		{"inm star", "GET", map[string]string{"If-None-Match": `*`}, `"a"`, t0, 304},
		{"inm star, no resource", "PUT", map[string]string{"If-None-Match": `*`}, "", time.Time{}, 0},
		{"inm star on a write", "PUT", map[string]string{"If-None-Match": `*`}, `"a"`, t0, 412},
		{"inm match on a write", "POST", map[string]string{"If-None-Match": `"a"`}, `"a"`, t0, 412},
		{"inm malformed", "GET", map[string]string{"If-None-Match": `a`}, `"a"`, t0, 0},
		{"inm unquoted current", "GET", map[string]string{"If-None-Match": `"a"`}, `a`, t0, 304},
		{"inm wins over ims", "GET", map[string]string{"If-None-Match": `"b"`, "If-Modified-Since": d2}, `"a"`, t0, 0},
		{"ims not modified", "GET", map[string]string{"If-Modified-Since": d0}, "", t0.Add(time.Millisecond), 304},
		{"ims modified", "GET", map[string]string{"If-Modified-Since": d1}, "", t0, 0},
		{"ims on a write", "PUT", map[string]string{"If-Modified-Since": d2}, "", t0, 0},
		{"ims bad date", "GET", map[string]string{"If-Modified-Since": "yesterday"}, "", t0, 0},
		{"ims no last-modified", "GET", map[string]string{"If-Modified-Since": d2}, `"a"`, time.Time{}, 0},
		{"im strong match", "PUT", map[string]string{"If-Match": `"a"`}, `"a"`, t0, 0},
		{"im weak fails", "PUT", map[string]string{"If-Match": `W/"a"`}, `W/"a"`, t0, 412},
		{"im no match", "PUT", map[string]string{"If-Match": `"b"`}, `"a"`, t0, 412},
		{"im star", "DELETE", map[string]string{"If-Match": `*`}, `"a"`, t0, 0},
		{"im star, no resource", "PUT", map[string]string{"If-Match": `*`}, "", time.Time{}, 412},
		{"im on GET", "GET", map[string]string{"If-Match": `"b"`}, `"a"`, t0, 412},
		{"im wins over ius", "PUT", map[string]string{"If-Match": `"a"`, "If-Unmodified-Since": d1}, `"a"`, t0, 0},
		{"ius modified since", "PUT", map[string]string{"If-Unmodified-Since": d1}, "", t0, 412},
		{"ius unmodified", "PUT", map[string]string{"If-Unmodified-Since": d0}, "", t0.Add(time.Millisecond), 0},
		{"ius bad date", "PUT", map[string]string{"If-Unmodified-Since": "x"}, "", t0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "/", nil)
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			if got := respond.Evaluate(req, tc.etag, tc.lm); got != tc.want {
				t.Errorf("Evaluate = %d, want %d", got, tc.want)
			}
		})
	}
}

func FuzzEvaluate(f *testing.F) {
	f.Add(`"a", W/"b"`, `"a"`, d0)
	f.Add(`*`, ``, `x`)
	f.Add(`W/`, `W/"`, ``)
	f.Fuzz(func(t *testing.T, list, etag, date string) {
		for _, m := range []string{"GET", "PUT"} {
			req := httptest.NewRequest(m, "/", nil)
			req.Header["If-None-Match"] = []string{list}
			req.Header["If-Match"] = []string{list}
			req.Header["If-Modified-Since"] = []string{date}
			switch got := respond.Evaluate(req, etag, t0); got {
			case 0, 304, 412:
			default:
				t.Fatalf("Evaluate = %d", got)
			}
		}
	})
}

type cachedOutput struct {
	ETag         string    `header:"ETag"`
	LastModified time.Time `header:"Last-Modified"`
	CacheControl string    `header:"Cache-Control"`
	ContentType  string    `header:"Content-Type"`
	Status       int
	Body         Item
}

func TestOutputValidators(t *testing.T) {
	w, err := respond.Compile(reflect.TypeFor[cachedOutput](), respond.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !w.Validators() {
		t.Fatal("Validators() = false")
	}
	out := cachedOutput{ETag: `"v1"`, LastModified: t0, CacheControl: "max-age=60", ContentType: "application/json", Body: Item{"a"}}
	for _, tc := range []struct {
		name    string
		method  string
		header  string
		value   string
		status  int
		want    int
		hasBody bool
	}{
		{"plain GET", "GET", "", "", 0, 200, true},
		{"GET not modified", "GET", "If-None-Match", `W/"v1"`, 0, 304, false},
		{"HEAD not modified", "HEAD", "If-Modified-Since", d0, 0, 304, false},
		{"GET modified", "GET", "If-None-Match", `"v0"`, 0, 200, true},
		{"GET If-Match fails", "GET", "If-Match", `"v0"`, 0, 412, true},
		{"a write is not answered 304", "PUT", "If-None-Match", `"v1"`, 0, 200, true},
		{"a 201 is not answered 304", "GET", "If-None-Match", `"v1"`, 201, 201, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "/", nil)
			if tc.header != "" {
				req.Header.Set(tc.header, tc.value)
			}
			rec := httptest.NewRecorder()
			o := out
			o.Status = tc.status
			if err := w.Write(rec, req, &o); err != nil {
				t.Fatal(err)
			}
			if rec.Code != tc.want || (rec.Body.Len() > 0) != tc.hasBody {
				t.Fatalf("got %d %q, want %d", rec.Code, rec.Body, tc.want)
			}
			h := rec.Header()
			switch tc.want {
			case 304:
				if h.Get("ETag") != `"v1"` || h.Get("Last-Modified") != d0 || h.Get("Cache-Control") != "max-age=60" || h.Get("Content-Type") != "" {
					t.Errorf("304 headers %v", h)
				}
			case 412:
				if h.Get("Content-Type") != "application/problem+json" || h.Get("ETag") != "" {
					t.Errorf("412 headers %v", h)
				}
			}
		})
	}
}

type updateInput struct {
	etag string
	lm   time.Time
	err  error
	n    *int
}

func (in *updateInput) Precondition(context.Context) (string, time.Time, error) {
	*in.n++
	return in.etag, in.lm, in.err
}

func TestCheckPreconditions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method string
		header string
		value  string
		in     updateInput
		done   bool
		err    bool
		calls  int
		status int
	}{
		{"no conditions: not asked", "PUT", "", "", updateInput{etag: `"a"`}, false, false, 0, 200},
		{"If-Match holds", "PUT", "If-Match", `"a"`, updateInput{etag: `"a"`}, false, false, 1, 200},
		{"If-Match fails", "PUT", "If-Match", `"b"`, updateInput{etag: `"a"`}, true, false, 1, 412},
		{"If-Unmodified-Since fails", "PATCH", "If-Unmodified-Since", d1, updateInput{lm: t0}, true, false, 1, 412},
		{"create only", "PUT", "If-None-Match", "*", updateInput{}, false, false, 1, 200},
		{"GET not modified", "GET", "If-None-Match", `"a"`, updateInput{etag: `"a"`, lm: t0}, true, false, 1, 304},
		{"error", "PUT", "If-Match", `"a"`, updateInput{err: errors.New("gone")}, false, true, 1, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "/", nil)
			if tc.header != "" {
				req.Header.Set(tc.header, tc.value)
			}
			rec := httptest.NewRecorder()
			in := tc.in
			calls := 0
			in.n = &calls
			done, err := respond.CheckPreconditions(rec, req, &in)
			if done != tc.done || (err != nil) != tc.err || calls != tc.calls || rec.Code != tc.status {
				t.Errorf("done %v err %v calls %d status %d", done, err, calls, rec.Code)
			}
			if tc.status == 304 && (rec.Header().Get("ETag") != `"a"` || rec.Header().Get("Last-Modified") != d0) {
				t.Errorf("304 headers %v", rec.Header())
			}
		})
	}
}
