package middleware_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/vane-http/vane/middleware"
)

// serveRequestID sends a request with the given X-Request-Id header lines
// through RequestID and returns the ID the handler saw and the header sent.
func serveRequestID(t *testing.T, header []string) (seen, sent string) {
	t.Helper()
	h := middleware.RequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = middleware.RequestIDFrom(r.Context())
	}))
	req := httptest.NewRequest("GET", "/", nil)
	if header != nil {
		req.Header["X-Request-Id"] = header
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if vs := w.Header().Values("X-Request-Id"); len(vs) != 1 {
		t.Fatalf("response has X-Request-Id %q, want one value", vs)
	}
	return seen, w.Header().Get("X-Request-Id")
}

var generatedID = regexp.MustCompile(`^[A-Z2-7]{26}$`)

func TestRequestIDKeepsWellFormedIDs(t *testing.T) {
	for _, id := range []string{
		"abc-123",
		"0f8fad5b-d9cb-469f-a165-70867728950e",
		"Root=1-5759e988-bd862e3fe1be46a994272793",
		"a/b+c=",
		"user@host:42",
		strings.Repeat("x", middleware.MaxRequestIDLen),
	} {
		t.Run(id[:min(len(id), 20)], func(t *testing.T) {
			seen, sent := serveRequestID(t, []string{id})
			if seen != id || sent != id {
				t.Errorf("handler saw %q, response sent %q, want %q for both", seen, sent, id)
			}
		})
	}
}

func TestRequestIDReplacesIllFormedIDs(t *testing.T) {
	for name, header := range map[string][]string{
		"absent":             nil,
		"empty":              {""},
		"too long":           {strings.Repeat("x", middleware.MaxRequestIDLen+1)},
		"space":              {"a b"},
		"newline (log line)": {"a\nlevel=ERROR msg=forged"},
		"quote":              {`a"b`},
		"comma":              {"a,b"},
		"non-ASCII":          {"idé"},
		"NUL":                {"a\x00"},
	} {
		t.Run(name, func(t *testing.T) {
			seen, sent := serveRequestID(t, header)
			if !generatedID.MatchString(sent) || seen != sent {
				t.Errorf("header %q: handler saw %q, response sent %q; want the same new 26-character ID", header, seen, sent)
			}
		})
	}
}

func TestRequestIDGeneratesUniqueIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		_, id := serveRequestID(t, nil)
		if seen[id] {
			t.Fatalf("ID %q generated twice", id)
		}
		seen[id] = true
	}
}

func TestRequestIDFromWithoutMiddleware(t *testing.T) {
	if id := middleware.RequestIDFrom(context.Background()); id != "" {
		t.Errorf("RequestIDFrom of a bare context = %q", id)
	}
}

// The router sets the route's pattern on the request RequestID derives;
// RequestID copies it back, so middleware outside it see the route.
func TestRequestIDKeepsPatternVisibleOutside(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {})
	var outside string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		middleware.RequestID(mux).ServeHTTP(w, r)
		outside = r.Pattern
	})
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/items/7", nil))
	if outside != "GET /items/{id}" {
		t.Errorf("pattern outside RequestID = %q", outside)
	}
}

func FuzzRequestID(f *testing.F) {
	for _, s := range []string{"", "abc", "a b", strings.Repeat("z", 200), "0f8fad5b-d9cb-469f-a165-70867728950e", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var seen string
		h := middleware.RequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen = middleware.RequestIDFrom(r.Context())
		}))
		req := httptest.NewRequest("GET", "/", nil)
		req.Header["X-Request-Id"] = []string{in}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		sent := w.Header().Get("X-Request-Id")
		if sent != seen || sent == "" || len(sent) > middleware.MaxRequestIDLen {
			t.Fatalf("in %q: sent %q, seen %q", in, sent, seen)
		}
		for _, c := range []byte(sent) {
			if c <= ' ' || c >= 0x7f || strings.IndexByte(`"',;\`, c) >= 0 {
				t.Fatalf("in %q: sent %q holds byte %q", in, sent, c)
			}
		}
		if sent != in && !generatedID.MatchString(sent) {
			t.Fatalf("in %q: sent %q, neither the input nor a generated ID", in, sent)
		}
	})
}

func ExampleRequestID() {
	h := middleware.RequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "request", middleware.RequestIDFrom(r.Context()))
	}))
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("X-Request-Id", "7d2c8e1a-from-the-proxy")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	fmt.Print(w.Header().Get("X-Request-Id"), "\n", w.Body)
	// Output:
	// 7d2c8e1a-from-the-proxy
	// request 7d2c8e1a-from-the-proxy
}
