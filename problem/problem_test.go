package problem

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
)

func TestWriteHeaders(t *testing.T) {
	cases := []struct {
		name string
		p    *Details
		code int
	}{
		{"validation", New(422, "validation failed", FieldError{Location: "body.name", Message: "too long", Value: "<script>"}), 422},
		{"no status", &Details{Detail: "x"}, 500},
		{"not found", New(404, "no such item"), 404},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			Write(w, c.p)
			h := w.Header()
			if w.Code != c.code || h.Get("Content-Type") != ContentType || h.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%d %v", w.Code, h)
			}
			var got Details
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || got.Status != c.code || got.Type != "about:blank" {
				t.Errorf("body %s: %v", w.Body, err)
			}
		})
	}
}

// A shared problem value is not changed by writing it.
func TestWriteDoesNotChangeTheProblem(t *testing.T) {
	p := &Details{Detail: "x"}
	Write(httptest.NewRecorder(), p)
	if p.Status != 0 || p.Type != "" || p.Title != "" {
		t.Errorf("changed: %+v", p)
	}
}

func TestFixed(t *testing.T) {
	f := NewFixed(New(http.StatusServiceUnavailable, "busy"))
	w := httptest.NewRecorder()
	w.Header().Set("Retry-After", "1")
	f.Write(w)
	want := `{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"busy"}`
	if w.Code != 503 || w.Body.String() != want {
		t.Errorf("%d %s, want 503 %s", w.Code, w.Body, want)
	}
	for k, v := range map[string]string{"Content-Type": ContentType, "Content-Length": fmt.Sprint(len(want)),
		"X-Content-Type-Options": "nosniff", "Retry-After": "1"} {
		if got := w.Header().Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	h := make(http.Header)
	rw := headerOnly{h}
	if n := testing.AllocsPerRun(100, func() { f.Write(rw) }); n != 0 {
		t.Errorf("Fixed.Write allocates %.0f times", n)
	}
}

type headerOnly struct{ h http.Header }

func (w headerOnly) Header() http.Header         { return w.h }
func (w headerOnly) WriteHeader(int)             {}
func (w headerOnly) Write(b []byte) (int, error) { return len(b), nil }

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name, body string
		ext        map[string]any
	}{
		{"extensions", `{"type":"https://example.com/p","status":403,"balance":30,"accounts":["/a"]}`, map[string]any{"balance": float64(30), "accounts": []any{"/a"}}},
		{"standard members in another case", `{"Type":"https://example.com/p","STATUS":403,"x":1}`, map[string]any{"x": float64(1)}},
		{"none", `{"type":"https://example.com/p","status":403}`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse([]byte(c.body))
			if err != nil || p.Type != "https://example.com/p" || p.Status != 403 || !reflect.DeepEqual(p.Extensions, c.ext) {
				t.Errorf("%+v %v", p, err)
			}
		})
	}
	if _, err := Parse([]byte(`[]`)); err == nil {
		t.Error("an array parsed")
	}
}

// What Write sends, Parse reads back.
func TestParseReadsWhatWriteSends(t *testing.T) {
	p := New(403, "no credit").With("balance", 30)
	p.Type = "https://example.com/probs/out-of-credit"
	w := httptest.NewRecorder()
	Write(w, p)
	q, err := Parse(w.Body.Bytes())
	if err != nil || q.Type != p.Type || q.Detail != p.Detail || q.Extensions["balance"] != float64(30) {
		t.Errorf("%+v %v", q, err)
	}
}

// A 503 problem always carries Retry-After: the problem's own, or the
// one the caller set, else DefaultRetryAfter; other statuses get none.
// Fixed problems follow the same rule.
func TestServiceUnavailableCarriesRetryAfter(t *testing.T) {
	cases := []struct {
		name   string
		p      *Details
		preset string
		want   string
	}{
		{"plain 503", New(503, "the database is down"), "", "1"},
		{"its own", New(503, "down").WithHeader("Retry-After", "7"), "", "7"},
		{"the caller's", New(503, "down"), "9", "9"},
		{"a 500", New(500, "boom"), "", ""},
		{"a 429", New(429, "slow down"), "", ""},
	}
	for _, c := range cases {
		for _, fixed := range []bool{false, true} {
			w := httptest.NewRecorder()
			if c.preset != "" {
				w.Header().Set("Retry-After", c.preset)
			}
			if fixed {
				NewFixed(c.p).Write(w)
			} else {
				Write(w, c.p)
			}
			if got := w.Header().Values("Retry-After"); len(got) > 1 || w.Header().Get("Retry-After") != c.want {
				t.Errorf("%s (fixed %v): Retry-After %q, want %q", c.name, fixed, got, c.want)
			}
		}
	}
}
