package vane_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/internal/oasvalidate"
	"github.com/vane-http/vane/openapi"
)

func docsGet(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	return w
}

func TestDocsServesDocumentAndPage(t *testing.T) {
	r := vane.New()
	docs := vane.Docs(r, vane.DocsConfig{Config: openapi.Config{Info: openapi.Info{Title: "Things", Version: "2.0.0"}}})

	w := docsGet(t, r, "/openapi.json")
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("/openapi.json: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct{ Title, Version string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || doc.OpenAPI != "3.1.0" || doc.Info.Title != "Things" {
		t.Errorf("document %+v, %v", doc, err)
	}
	if w := docsGet(t, r, "/openapi.yaml"); w.Code != 200 || !strings.HasPrefix(w.Body.String(), "openapi: 3.1.0\n") {
		t.Errorf("/openapi.yaml: %d\n%s", w.Code, w.Body)
	}
	page := docsGet(t, r, "/docs")
	if page.Code != 200 || !strings.Contains(page.Body.String(), `data-spec-url="openapi.json"`) ||
		!strings.Contains(page.Body.String(), `src="docs/swagger-ui-bundle.js?v=`) {
		t.Errorf("/docs: %d\n%s", page.Code, page.Body)
	}
	if w := docsGet(t, r, "/docs/init.js"); w.Code != 200 || !strings.Contains(w.Body.String(), "SwaggerUIBundle") {
		t.Errorf("/docs/init.js: %d", w.Code)
	}
	j, y, err := docs.Document()
	if err != nil || len(j) == 0 || len(y) == 0 {
		t.Errorf("Document(): %d, %d bytes, %v", len(j), len(y), err)
	}
	j30, y30, err := docs.Document30()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/openapi-3.0.json": string(j30), "/openapi-3.0.yaml": string(y30)} {
		w := docsGet(t, r, path)
		if w.Code != 200 || w.Body.String() != want || !strings.Contains(want, "3.0.3") {
			t.Errorf("%s: %d\n%s", path, w.Code, w.Body)
		}
		if w.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no X-Content-Type-Options: nosniff", path)
		}
	}
}

func TestDocsPathsConfigurableAndOff(t *testing.T) {
	r := vane.New()
	api := r.Group("/api")
	vane.Docs(api, vane.DocsConfig{JSONPath: "/spec/openapi.json", YAMLPath: vane.NotServed, DocsPath: "/reference",
		JSON30Path: "/spec/v3.0.json", YAML30Path: vane.NotServed})
	for path, want := range map[string]int{
		"/api/spec/openapi.json": 200, "/api/openapi.yaml": 404,
		"/api/spec/v3.0.json": 200, "/api/openapi-3.0.json": 404, "/api/openapi-3.0.yaml": 404,
	} {
		if w := docsGet(t, r, path); w.Code != want {
			t.Errorf("%s: %d, want %d", path, w.Code, want)
		}
	}
	page := docsGet(t, r, "/api/reference")
	if !strings.Contains(page.Body.String(), `data-spec-url="spec/openapi.json"`) {
		t.Errorf("page's document URL:\n%s", page.Body)
	}
	res := docsGet(t, r, "/api/reference/swagger-ui.css")
	if res.Code != 200 || !strings.HasPrefix(res.Header().Get("Content-Type"), "text/css") {
		t.Errorf("asset: %d %q", res.Code, res.Header().Get("Content-Type"))
	}
}

func TestDocsBuildErrorIs500(t *testing.T) {
	r := vane.New()
	vane.Docs(r, vane.DocsConfig{Config: openapi.Config{Security: []openapi.SecurityRequirement{{"nope": nil}}}})
	w := docsGet(t, r, "/openapi.json")
	b, _ := io.ReadAll(w.Body)
	if w.Code != 500 || !strings.Contains(string(b), `security scheme \"nope\" is not defined`) {
		t.Errorf("%d %s", w.Code, b)
	}
}

// Content-Type, Accept and Authorization headers are bound, but OpenAPI
// ignores header parameters of those names (the media types and the
// security schemes say them), so the document leaves them out.
func TestReservedHeadersAreBoundButNotDocumented(t *testing.T) {
	type in struct {
		ContentType string `header:"Content-Type"`
		Accept      string `header:"accept"`
		Auth        string `header:"Authorization" required:"true"`
		Trace       string `header:"X-Trace"`
		Body        struct {
			Name string `json:"name"`
		}
	}
	type out struct {
		Got string `json:"got"`
	}
	r := vane.New()
	vane.Post(r, "/things", func(_ context.Context, in *in) (*out, error) {
		return &out{Got: in.ContentType + "|" + in.Accept + "|" + in.Auth + "|" + in.Trace}, nil
	})
	doc, err := vane.OpenAPI(r, openapi.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range doc.Paths["/things"].Post.Parameters {
		names = append(names, p.In+"."+p.Name)
	}
	if got := strings.Join(names, " "); got != "header.X-Trace" {
		t.Errorf("documented parameters: %s, want header.X-Trace", got)
	}
	j, _ := doc.JSON()
	y, _ := doc.YAML()
	j30, _ := doc.JSON30()
	oasvalidate.Validate(t, map[string][]byte{"reserved.json": j, "reserved.yaml": y, "reserved-3.0.json": j30})

	req := httptest.NewRequest("POST", "/things", strings.NewReader(`{"name":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer t")
	req.Header.Set("X-Trace", "1")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if want := `{"got":"application/json|application/json|Bearer t|1"}`; w.Code != 200 || w.Body.String() != want {
		t.Errorf("%d %s, want 200 %s", w.Code, w.Body, want)
	}
	req.Header.Del("Authorization")
	w = httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != 422 || !strings.Contains(w.Body.String(), "header.Authorization") {
		t.Errorf("without Authorization: %d %s", w.Code, w.Body)
	}
}
