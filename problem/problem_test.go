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

func TestExtensionsAtTheTopLevel(t *testing.T) {
	base := New(403, "not enough credit")
	p := base.WithType("https://example.com/probs/out-of-credit", "Out of credit").With("balance", 30).With("accounts", []string{"/a/1"})
	if base.Extensions != nil || base.Type != "" {
		t.Fatalf("the template changed: %+v", base)
	}
	w := httptest.NewRecorder()
	Write(w, p)
	want := `{"type":"https://example.com/probs/out-of-credit","title":"Out of credit","status":403,"detail":"not enough credit","accounts":["/a/1"],"balance":30}`
	if got := w.Body.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	back, err := Parse(w.Body.Bytes())
	if err != nil || back.Type != p.Type || back.Extensions["balance"] != float64(30) || len(back.Extensions) != 2 {
		t.Errorf("Parse: %+v, %v", back, err)
	}
}

func TestExtensionNamedAsAStandardMember(t *testing.T) {
	for _, name := range []string{"type", "title", "status", "detail", "instance", "errors"} {
		t.Run(name, func(t *testing.T) {
			p := New(400, "bad").With(name, "x")
			if _, err := Marshal(p); err == nil {
				t.Error("Marshal accepted it")
			}
			w := httptest.NewRecorder()
			Write(w, p)
			if got, want := w.Body.String(), `{"type":"about:blank","title":"Bad Request","status":400,"detail":"bad"}`; got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

func TestWriteSendsTheProblemsHeaders(t *testing.T) {
	p := New(401, "log in").WithHeader("WWW-Authenticate", `Bearer realm="api"`).WithHeader("WWW-Authenticate", `Basic realm="api"`)
	p.Headers.Set("content-type", "text/html") // the body's own: not taken
	w := httptest.NewRecorder()
	Write(w, p)
	h := w.Header()
	if got := h.Values("WWW-Authenticate"); len(got) != 2 || got[0] != `Bearer realm="api"` {
		t.Errorf("WWW-Authenticate = %q", got)
	}
	if h.Get("Content-Type") != ContentType {
		t.Errorf("Content-Type = %q", h.Get("Content-Type"))
	}
	if w.Code != 401 {
		t.Errorf("status %d", w.Code)
	}
}

func TestParseTakesStandardMembersOnce(t *testing.T) {
	p, err := Parse([]byte(`{"Type":"https://example.com/p","STATUS":404,"x":1}`))
	if err != nil || p.Type != "https://example.com/p" || p.Status != 404 || len(p.Extensions) != 1 || p.Extensions["x"] != float64(1) {
		t.Errorf("%+v %v", p, err)
	}
}
