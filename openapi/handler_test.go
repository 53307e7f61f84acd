package openapi

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandlerServesJSONAndYAML(t *testing.T) {
	builds := 0
	h := NewHandler(func() (*Document, error) {
		builds++
		return &Document{OpenAPI: Version, Info: Info{Title: "T", Version: "1"},
			Extensions: Extensions{"x-team": "core"}}, nil
	})
	w := httptest.NewRecorder()
	h.JSON(w, httptest.NewRequest("GET", "/openapi.json", nil))
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("JSON: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	if !strings.Contains(w.Body.String(), `"x-team": "core"`) {
		t.Errorf("JSON body:\n%s", w.Body)
	}
	y := httptest.NewRecorder()
	h.YAML(y, httptest.NewRequest("GET", "/openapi.yaml", nil))
	if y.Code != 200 || y.Header().Get("Content-Type") != "application/yaml" {
		t.Fatalf("YAML: %d %q", y.Code, y.Header().Get("Content-Type"))
	}
	if want := "openapi: 3.1.0\ninfo:\n  title: T\n  version: \"1\"\nx-team: core\n"; y.Body.String() != want {
		t.Errorf("YAML body:\n%s\nwant\n%s", y.Body, want)
	}
	req := httptest.NewRequest("GET", "/openapi.json", nil)
	req.Header.Set("If-None-Match", `W/"zzz", `+w.Header().Get("ETag"))
	w = httptest.NewRecorder()
	h.JSON(w, req)
	if w.Code != 304 || w.Body.Len() != 0 {
		t.Errorf("If-None-Match: %d", w.Code)
	}
	if builds != 1 {
		t.Errorf("built %d times, want once", builds)
	}
}

func TestHandlerBuildError(t *testing.T) {
	h := NewHandler(func() (*Document, error) { return nil, errors.New("hook failed") })
	w := httptest.NewRecorder()
	h.JSON(w, httptest.NewRequest("GET", "/openapi.json", nil))
	if w.Code != 500 || w.Header().Get("Content-Type") != "application/problem+json" ||
		!strings.Contains(w.Body.String(), "hook failed") {
		t.Errorf("%d %q %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
}

func TestExtensionsMustStartWithX(t *testing.T) {
	d := &Document{OpenAPI: Version, Info: Info{Title: "T", Version: "1", Extensions: Extensions{"logo": "x"}}}
	if _, err := d.JSON(); err == nil || !strings.Contains(err.Error(), `"logo"`) {
		t.Errorf("err = %v", err)
	}
}

func TestHandlerServes30(t *testing.T) {
	h := NewHandler(func() (*Document, error) {
		return &Document{OpenAPI: Version, Info: Info{Title: "T", Version: "1"}, Paths: map[string]*PathItem{}}, nil
	})
	for _, tc := range []struct {
		name    string
		serve   func(http.ResponseWriter, *http.Request)
		ctype   string
		prefix  string
		compare func() []byte
	}{
		{"JSON", h.JSON, "application/json", "{\n  \"openapi\": \"3.1.0\"", nil},
		{"YAML", h.YAML, "application/yaml", "openapi: 3.1.0\n", nil},
		{"JSON30", h.JSON30, "application/json", "{\n  \"openapi\": \"3.0.3\"", func() []byte { j, _, _ := h.Document30(); return j }},
		{"YAML30", h.YAML30, "application/yaml", "openapi: 3.0.3\n", func() []byte { _, y, _ := h.Document30(); return y }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			tc.serve(w, httptest.NewRequest("GET", "/doc", nil))
			if w.Code != 200 || w.Header().Get("Content-Type") != tc.ctype || !strings.HasPrefix(w.Body.String(), tc.prefix) {
				t.Fatalf("%d %q\n%s", w.Code, w.Header().Get("Content-Type"), w.Body)
			}
			if tc.compare != nil && w.Body.String() != string(tc.compare()) {
				t.Error("served bytes differ from Document30's")
			}
			req := httptest.NewRequest("GET", "/doc", nil)
			req.Header.Set("If-None-Match", w.Header().Get("ETag"))
			w2 := httptest.NewRecorder()
			tc.serve(w2, req)
			if w2.Code != 304 {
				t.Errorf("If-None-Match with its ETag: %d", w2.Code)
			}
		})
	}
}

// TestNosniff checks that every response of the package, documents, page,
// assets, 304s and problems alike, says X-Content-Type-Options: nosniff.
func TestNosniff(t *testing.T) {
	h := NewHandler(func() (*Document, error) {
		return &Document{OpenAPI: Version, Info: Info{Title: "T", Version: "1"}}, nil
	})
	broken := NewHandler(func() (*Document, error) { return nil, errors.New("hook failed") })
	page := &DocsPage{SpecURL: "openapi.json", AssetsURL: "docs/"}
	asset := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { ServeDocsAsset(w, r, name) }
	}
	json, _, _ := h.Document()
	for _, tc := range []struct {
		name    string
		serve   http.HandlerFunc
		header  string // If-None-Match
		status  int
		gzipped bool
	}{
		{"JSON", h.JSON, "", 200, false},
		{"YAML", h.YAML, "", 200, false},
		{"JSON30", h.JSON30, "", 200, false},
		{"YAML30", h.YAML30, "", 200, false},
		{"JSON 304", h.JSON, etag(json), 304, false},
		{"document that cannot be built", broken.JSON, "", 500, false},
		{"3.0 document that cannot be built", broken.YAML30, "", 500, false},
		{"page", page.ServeHTTP, "", 200, false},
		{"script", asset("swagger-ui-bundle.js"), "", 200, false},
		{"script gzipped", asset("swagger-ui-bundle.js"), "", 200, true},
		{"style", asset("swagger-ui.css"), "", 200, false},
		{"init", asset("init.js"), "", 200, false},
		{"licence", asset("LICENSE"), "", 200, false},
		{"asset 304 by ETag", asset("init.js"), "*", 304, false},
		{"unknown asset", asset("evil.html"), "", 404, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/x", nil)
			if tc.header != "" {
				req.Header.Set("If-None-Match", tc.header)
			}
			if tc.gzipped {
				req.Header.Set("Accept-Encoding", "gzip")
			}
			w := httptest.NewRecorder()
			tc.serve(w, req)
			if w.Code != tc.status {
				t.Errorf("status %d, want %d", w.Code, tc.status)
			}
			if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options = %q, want nosniff", got)
			}
		})
	}
}
