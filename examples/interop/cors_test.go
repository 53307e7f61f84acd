package interop

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/cors"

	"github.com/vane-http/vane"
)

type Item struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

type CreateItem struct {
	Body struct {
		Name string `json:"name" minLength:"1"`
	}
}

// corsRouter is a vane router with rs/cors in front of every route, as
// docs/design/middleware.md shows it.
func corsRouter() *vane.Router {
	r := vane.New()
	r.Use(cors.New(cors.Options{
		AllowedOrigins: []string{"https://app.example"},
		AllowedMethods: []string{"GET", "POST", "DELETE"},
		AllowedHeaders: []string{"Authorization", "Content-Type"},
		ExposedHeaders: []string{"Location"},
		MaxAge:         600,
	}).Handler)
	vane.Post(r, "/items", func(ctx context.Context, in *CreateItem) (*Item, error) {
		return &Item{ID: 1, Name: in.Body.Name}, nil
	})
	r.HandleFunc(http.MethodGet, "/items/{id}", func(w http.ResponseWriter, req *http.Request) { w.Write([]byte(vane.Param(req, "id"))) })
	return r
}

func serve(h http.Handler, method, path string, header http.Header, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header[k] = v
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestCORSPreflightWithVane(t *testing.T) {
	r := corsRouter()
	w := serve(r, "OPTIONS", "/items", http.Header{
		"Origin":                         {"https://app.example"},
		"Access-Control-Request-Method":  {"POST"},
		"Access-Control-Request-Headers": {"authorization,content-type"}, // as browsers send them: lower case, sorted
	}, "")
	h := w.Header()
	if w.Code != 204 || h.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		h.Get("Access-Control-Allow-Methods") != "POST" || h.Get("Access-Control-Max-Age") != "600" ||
		!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "content-type") {
		t.Errorf("preflight: %d %v", w.Code, h)
	}

	// A method or an origin that is not allowed gets no CORS headers.
	for name, hdr := range map[string]http.Header{
		"method": {"Origin": {"https://app.example"}, "Access-Control-Request-Method": {"PUT"}},
		"origin": {"Origin": {"https://evil.example"}, "Access-Control-Request-Method": {"POST"}},
	} {
		if w := serve(r, "OPTIONS", "/items", hdr, ""); w.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("disallowed %s: %v", name, w.Header())
		}
	}
}

func TestCORSActualRequestsWithVane(t *testing.T) {
	r := corsRouter()
	w := serve(r, "POST", "/items", http.Header{"Origin": {"https://app.example"}, "Content-Type": {"application/json"}}, `{"name":"lamp"}`)
	if w.Code != 200 || w.Header().Get("Access-Control-Allow-Origin") != "https://app.example" ||
		w.Header().Get("Access-Control-Expose-Headers") != "Location" || !strings.Contains(w.Header().Get("Vary"), "Origin") {
		t.Errorf("typed operation: %d %v %s", w.Code, w.Header(), w.Body)
	}
	// Errors carry the headers too, so that the page can read the problem.
	w = serve(r, "POST", "/items", http.Header{"Origin": {"https://app.example"}, "Content-Type": {"application/json"}}, `{"name":""}`)
	if w.Code != 422 || w.Header().Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("problem response: %d %v", w.Code, w.Header())
	}
	w = serve(r, "GET", "/items/7", http.Header{"Origin": {"https://evil.example"}}, "")
	if w.Code != 200 || w.Body.String() != "7" || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("other origin: %d %v %s", w.Code, w.Header(), w.Body)
	}
}

type Pet struct {
	Name string `json:"name"`
}

type PetOut struct {
	ETag         string    `header:"ETag"`
	LastModified time.Time `header:"Last-Modified"`
	Link         []string  `header:"Link"`
	Body         Pet
}

type GetPet struct {
	ID int `path:"id"`
}

type PutPet struct {
	vane.Conditional
	ID   int `path:"id"`
	Body Pet
}

type PetEvents struct {
	LastID string `header:"Last-Event-ID"`
}

// documentedCORSRouter is a vane router with rs/cors in front, told what
// the operations declare (Router.CORSHeaders) once they are registered.
func documentedCORSRouter() *vane.Router {
	r := vane.New()
	vane.Get(r, "/pets/{id}", func(ctx context.Context, in *GetPet) (*PetOut, error) {
		return &PetOut{ETag: `"v1"`, Link: []string{`</pets/2>; rel="next"`}}, nil
	})
	vane.Put(r, "/pets/{id}", func(ctx context.Context, in *PutPet) (*PetOut, error) {
		return nil, vane.Unauthorized("a valid bearer token is required").WithHeader("WWW-Authenticate", `Bearer realm="pets"`)
	}, vane.Security("bearer"), vane.Problems(vane.ProblemType{Status: 401, Headers: map[string]string{"WWW-Authenticate": "How to log in."}}))
	vane.Stream(r, "/pets/events", map[string]any{"created": Pet{}}, func(ctx context.Context, in *PetEvents, send vane.Sender) error { return nil })
	exposed, allowed := r.CORSHeaders()
	r.Use(cors.New(cors.Options{
		AllowedOrigins: []string{"https://app.example"},
		AllowedMethods: []string{"GET", "PUT"},
		AllowedHeaders: allowed,
		ExposedHeaders: exposed,
	}).Handler)
	return r
}

// A page of an allowed origin may send every request header the
// operations read (the preflight allows them) and read every response
// header they document: with CORSHeaders, rs/cors allows conditional
// writes, a gzip body, a reconnecting event stream and a bearer token,
// and exposes ETag, Last-Modified, Link, Retry-After and WWW-Authenticate;
// a header no operation reads is still refused.
func TestCORSFromTheDocument(t *testing.T) {
	r := documentedCORSRouter()
	for _, c := range []struct {
		method, path, headers string
		allowed               bool
	}{
		{"PUT", "/pets/1", "authorization,content-encoding,content-type,if-match,if-unmodified-since", true},
		{"GET", "/pets/1", "if-modified-since,if-none-match", true},
		{"GET", "/pets/events", "last-event-id", true},
		{"PUT", "/pets/1", "content-type,x-unknown", false},
	} {
		w := serve(r, "OPTIONS", c.path, http.Header{
			"Origin":                         {"https://app.example"},
			"Access-Control-Request-Method":  {c.method},
			"Access-Control-Request-Headers": {c.headers},
		}, "")
		got := w.Header().Get("Access-Control-Allow-Origin") == "https://app.example"
		if got != c.allowed {
			t.Errorf("preflight %s %s with %s: allowed %v, want %v (%d %v)", c.method, c.path, c.headers, got, c.allowed, w.Code, w.Header())
		}
	}

	exposedBy := func(w *httptest.ResponseRecorder) map[string]bool {
		set := map[string]bool{}
		for _, h := range strings.Split(w.Header().Get("Access-Control-Expose-Headers"), ",") {
			set[http.CanonicalHeaderKey(strings.TrimSpace(h))] = true
		}
		return set
	}
	w := serve(r, "GET", "/pets/1", http.Header{"Origin": {"https://app.example"}}, "")
	exposed := exposedBy(w)
	for _, h := range []string{"Etag", "Last-Modified", "Link", "Retry-After", "Www-Authenticate"} {
		if !exposed[h] {
			t.Errorf("GET: %s not exposed: %v", h, w.Header())
		}
	}
	if w.Code != 200 || w.Header().Get("Etag") != `"v1"` {
		t.Errorf("GET: %d %v", w.Code, w.Header())
	}
	w = serve(r, "PUT", "/pets/1", http.Header{"Origin": {"https://app.example"}, "Content-Type": {"application/json"}}, `{"name":"Rex"}`)
	if w.Code != 401 || w.Header().Get("Www-Authenticate") == "" || !exposedBy(w)["Www-Authenticate"] {
		t.Errorf("401: %d %v", w.Code, w.Header())
	}
}
