package openapi

import (
	"errors"
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
