package problem

import (
	"encoding/json"
	"net/http/httptest"
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
