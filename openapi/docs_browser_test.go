package openapi

import (
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vane-http/vane/internal/browsertest"
)

// TestDocsPageInBrowser loads the docs page in headless Chromium, with no
// network but the test server, and checks that Swagger UI rendered every
// operation of the document from assets the server itself sent.
func TestDocsPageInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	browsertest.Chromium(t) // install or skip before starting anything
	doc, err := Build(Config{
		Info:            Info{Title: "Pet store", Version: "1.0.0"},
		SecuritySchemes: map[string]*SecurityScheme{"bearer": BearerAuth("")},
	}, handDescriptions(t))
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(func() (*Document, error) { return doc, nil })
	page := &DocsPage{Title: "Pet store", SpecURL: "openapi.json", AssetsURL: "docs/"}

	var mu sync.Mutex
	var requested []string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /openapi.json", h.JSON)
	mux.Handle("GET /docs", page)
	mux.Handle("GET /docs/{file}", DocsAssetHandler())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requested = append(requested, r.URL.Path)
		mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	defer srv.Close()

	dom := browsertest.DOM(t, srv.URL+"/docs", 20*time.Second)
	if f := os.Getenv("VANE_DOCS_SCREENSHOT"); f != "" { // to look at the page
		browsertest.Screenshot(t, srv.URL+"/docs", f, 1280, 1400, 20*time.Second)
	}

	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"/docs", "/docs/swagger-ui.css", "/docs/swagger-ui-bundle.js", "/docs/init.js", "/openapi.json"} {
		if !slices.Contains(requested, want) {
			t.Errorf("the browser did not request %s (requested %v)", want, requested)
		}
	}
	// Swagger UI renders one block per operation with its method and path.
	ops := regexp.MustCompile(`class="opblock opblock-(get|post|put|patch|delete)[^"]*"`).FindAllString(dom, -1)
	if len(ops) != 3 {
		t.Errorf("rendered %d operations, want 3 (GET /pets/{id}, POST /pets, GET /files/{path})", len(ops))
	}
	for _, want := range []string{`data-path="/pets/{id}"`, `data-path="/pets"`, `data-path="/files/{path}"`, "Pet store", "Problem"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("DOM (first 3000 bytes):\n%.3000s", dom)
	}
}
