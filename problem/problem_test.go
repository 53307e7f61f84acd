package problem

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
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

func TestEncodedWritesWithoutAllocating(t *testing.T) {
	e := Encode(New(http.StatusServiceUnavailable, "busy"))
	w := &headerOnly{h: http.Header{}}
	if n := testing.AllocsPerRun(100, func() { e.Write(w) }); n != 0 {
		t.Errorf("%v allocations per write, want 0", n)
	}
	if w.status != 503 || w.h.Get("Content-Length") != strconv.Itoa(len(w.body)) || w.h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("got %d %v", w.status, w.h)
	}
}

type headerOnly struct {
	h      http.Header
	status int
	body   []byte
}

func (w *headerOnly) Header() http.Header         { return w.h }
func (w *headerOnly) WriteHeader(s int)           { w.status = s }
func (w *headerOnly) Write(b []byte) (int, error) { w.body = b; return len(b), nil }
