package openapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
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
	if !strings.Contains(w.Body.String(), `"x-team":"core"`) {
		t.Errorf("JSON body:\n%s", w.Body)
	}
	y := httptest.NewRecorder()
	h.YAML(y, httptest.NewRequest("GET", "/openapi.yaml", nil))
	if y.Code != 200 || y.Header().Get("Content-Type") != "application/yaml" {
		t.Fatalf("YAML: %d %q", y.Code, y.Header().Get("Content-Type"))
	}
	if want := "openapi: 3.1.0\ninfo:\n  title: T\n  version: '1'\nx-team: core\n"; y.Body.String() != want {
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
		{"JSON", h.JSON, "application/json", `{"openapi":"3.1.0"`, nil},
		{"YAML", h.YAML, "application/yaml", "openapi: 3.1.0\n", nil},
		{"JSON30", h.JSON30, "application/json", `{"openapi":"3.0.3"`, func() []byte { j, _, _ := h.Document30(); return j }},
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
		{"JSON 304", h.JSON, etag([][]byte{json}), 304, false},
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

// Each form is written on its first request, and no other: Check builds
// the document and writes nothing; a request for the JSON writes the
// JSON alone; its gzip coding is made once, on the first request that
// accepts gzip.
func TestHandlerWritesEachFormOnFirstUse(t *testing.T) {
	builds := 0
	h := NewHandler(func() (*Document, error) {
		builds++
		return &Document{OpenAPI: Version, Info: Info{Title: "T", Version: "1"}, Paths: map[string]*PathItem{
			"/a": {Get: &Operation{OperationID: "a", Responses: map[string]*Response{"200": {Description: "OK"}}}}}}, nil
	})
	written := func() (n int) {
		for i := range h.forms {
			if h.forms[i].identity.body != nil {
				n++
			}
		}
		return n
	}
	if err := h.Check(); err != nil {
		t.Fatal(err)
	}
	if builds != 1 || written() != 0 {
		t.Fatalf("after Check: %d builds, %d forms written; want 1 and 0", builds, written())
	}
	serve := func(handler http.HandlerFunc, method, acceptEncoding, ifNoneMatch string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "/doc", nil)
		if acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", acceptEncoding)
		}
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", ifNoneMatch)
		}
		w := httptest.NewRecorder()
		handler(w, req)
		return w
	}
	plain := serve(h.JSON, "GET", "", "")
	if written() != 1 || h.forms[formJSON].identity.body == nil {
		t.Errorf("after GET /openapi.json: %d forms written, want the JSON alone", written())
	}
	if h.compressions.Load() != 0 {
		t.Error("the gzip coding was made before any request accepted it")
	}
	var zipped *httptest.ResponseRecorder
	for range 5 {
		zipped = serve(h.JSON, "GET", "gzip, deflate, br", "")
	}
	if n := h.compressions.Load(); n != 1 {
		t.Errorf("5 gzip requests compressed %d times, want once", n)
	}
	if zipped.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q", zipped.Header().Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	if !bytes.Equal(unzipped, plain.Body.Bytes()) {
		t.Error("the gzip coding is not the identity's content")
	}
	for coding, w := range map[string]*httptest.ResponseRecorder{"identity": plain, "gzip": zipped} {
		if got, want := w.Header().Get("Content-Length"), strconv.Itoa(w.Body.Len()); got != want {
			t.Errorf("%s: Content-Length %q for %s bytes", coding, got, want)
		}
		if w.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s: Vary %q", coding, w.Header().Get("Vary"))
		}
	}
	if plain.Header().Get("ETag") == zipped.Header().Get("ETag") {
		t.Errorf("identity and gzip share the ETag %s", plain.Header().Get("ETag"))
	}
	if w := serve(h.JSON, "GET", "gzip", plain.Header().Get("ETag")); w.Code != 200 {
		t.Errorf("a gzip request revalidating the identity's ETag: %d, want 200", w.Code)
	}
	if w := serve(h.JSON, "GET", "gzip", zipped.Header().Get("ETag")); w.Code != 304 {
		t.Errorf("a gzip request revalidating the gzip ETag: %d, want 304", w.Code)
	}
	if w := serve(h.JSON, "HEAD", "", ""); w.Body.Len() != 0 || w.Header().Get("Content-Length") != plain.Header().Get("Content-Length") {
		t.Errorf("HEAD: %d bytes, Content-Length %q", w.Body.Len(), w.Header().Get("Content-Length"))
	}
	serve(h.YAML30, "GET", "", "")
	if written() != 2 || h.forms[formYAML30].identity.body == nil || h.forms[formJSON30].identity.body != nil {
		t.Errorf("after GET /openapi-3.0.yaml: %d forms written, want the JSON and the 3.0 YAML", written())
	}
	if builds != 1 {
		t.Errorf("the document was built %d times", builds)
	}
}

// JSON is compact unless the handler is told an indentation.
func TestHandlerIndent(t *testing.T) {
	build := func() (*Document, error) {
		return &Document{OpenAPI: Version, Info: Info{Title: "T", Version: "1"}}, nil
	}
	compact, indented := NewHandler(build), NewHandler(build)
	indented.Indent = "  "
	for h, want := range map[*Handler]string{
		compact:  `{"openapi":"3.1.0","info":{"title":"T","version":"1"}}` + "\n",
		indented: "{\n  \"openapi\": \"3.1.0\",\n  \"info\": {\n    \"title\": \"T\",\n    \"version\": \"1\"\n  }\n}\n",
	} {
		j, _, err := h.Document()
		if err != nil || string(j) != want {
			t.Errorf("got %q, %v; want %q", j, err, want)
		}
	}
}

// Requests for every form, coding and asset at once, on a handler nothing
// has built yet: each is made once, and the race detector sees no race.
func TestHandlerConcurrentFirstRequests(t *testing.T) {
	h := NewHandler(func() (*Document, error) {
		return &Document{OpenAPI: Version, Info: Info{Title: "T", Version: "1"}}, nil
	})
	serves := []http.HandlerFunc{h.JSON, h.YAML, h.JSON30, h.YAML30,
		func(w http.ResponseWriter, r *http.Request) { ServeDocsAsset(w, r, "init.js") }}
	var wg sync.WaitGroup
	bodies := make([][]byte, 4*len(serves))
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest("GET", "/x", nil)
			if i%2 == 0 {
				req.Header.Set("Accept-Encoding", "gzip")
			}
			w := httptest.NewRecorder()
			serves[i%len(serves)](w, req)
			if w.Code != 200 {
				t.Errorf("request %d: %d", i, w.Code)
			}
			bodies[i] = w.Body.Bytes()
		}()
	}
	wg.Wait()
	for i := range bodies {
		if j := i + 2*len(serves); j < len(bodies) && !bytes.Equal(bodies[i], bodies[j]) {
			t.Errorf("requests %d and %d of one form and coding got different bodies", i, j)
		}
	}
	if n := h.compressions.Load(); n != 4 {
		t.Errorf("%d gzip codings made for 4 forms", n)
	}
}

// A document larger than one chunk of the writers' output is served
// whole: its parts in order, its Content-Length their sum, its gzip
// coding of all of them.
func TestHandlerServesDocumentsOfManyChunks(t *testing.T) {
	h := NewHandler(func() (*Document, error) {
		d := &Document{OpenAPI: Version, Info: Info{Title: "T", Version: "1"}, Paths: map[string]*PathItem{}}
		for i := range 3000 {
			d.Paths[fmt.Sprintf("/items%d/{id}", i)] = &PathItem{Get: &Operation{OperationID: fmt.Sprintf("get%d", i),
				Description: strings.Repeat("A description of some length. ", 3),
				Responses:   map[string]*Response{"200": {Description: "OK"}}}}
		}
		return d, nil
	})
	for _, tc := range []struct {
		serve http.HandlerFunc
		form  int
	}{{h.JSON, formJSON}, {h.YAML, formYAML}, {h.JSON30, formJSON30}} {
		w := httptest.NewRecorder()
		tc.serve(w, httptest.NewRequest("GET", "/doc", nil))
		if n := len(h.forms[tc.form].identity.body); n < 2 {
			t.Fatalf("form %d: %d parts; the test wants a document of several", tc.form, n)
		}
		if got, want := w.Header().Get("Content-Length"), strconv.Itoa(w.Body.Len()); got != want {
			t.Errorf("form %d: Content-Length %s for %s bytes", tc.form, got, want)
		}
		if tc.form != formYAML && !json.Valid(w.Body.Bytes()) {
			t.Errorf("form %d: the JSON served is not valid", tc.form)
		}
		if !strings.Contains(w.Body.String(), "get2999") {
			t.Errorf("form %d: the last operation is missing", tc.form)
		}
		req := httptest.NewRequest("GET", "/doc", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		z := httptest.NewRecorder()
		tc.serve(z, req)
		zr, err := gzip.NewReader(bytes.NewReader(z.Body.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if unzipped, _ := io.ReadAll(zr); !bytes.Equal(unzipped, w.Body.Bytes()) {
			t.Errorf("form %d: the gzip coding is not the identity's content", tc.form)
		}
	}
}
