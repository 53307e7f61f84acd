package interop

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
// docs/middleware.md shows it.
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
	r.Get("/items/{id}", func(w http.ResponseWriter, req *http.Request) { w.Write([]byte(vane.Param(req, "id"))) })
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
