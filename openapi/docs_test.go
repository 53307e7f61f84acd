package openapi

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vane-http/vane/openapi/internal/swaggerui"
)

func TestRelativeURL(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{"/docs", "/openapi.json", "openapi.json"},
		{"/docs", "/docs/init.js", "docs/init.js"},
		{"/api/docs", "/api/openapi.json", "openapi.json"},
		{"/api/docs", "/openapi.json", "../openapi.json"},
		{"/a/b/docs", "/a/c/spec.json", "../c/spec.json"},
		{"/docs", "/x:y.json", "./x:y.json"},
		{"/reference/", "/reference/openapi.yaml", "openapi.yaml"},
		{"/docs", "/", "./"},
	} {
		if got := RelativeURL(c.from, c.to); got != c.want {
			t.Errorf("RelativeURL(%q, %q) = %q, want %q", c.from, c.to, got, c.want)
		}
	}
}

func TestDocsPage(t *testing.T) {
	p := &DocsPage{Title: "Pets <API>", SpecURL: "openapi.json", AssetsURL: "docs/",
		UIConfig: map[string]any{"docExpansion": "none"}}
	w := httptest.NewRecorder()
	p.ServeHTTP(w, httptest.NewRequest("GET", "/docs", nil))
	body := w.Body.String()
	if w.Code != 200 || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("status %d, type %q", w.Code, w.Header().Get("Content-Type"))
	}
	for _, want := range []string{
		"<title>Pets &lt;API&gt;</title>",
		`href="docs/swagger-ui.css?v=` + swaggerui.Version + `"`,
		`src="docs/swagger-ui-bundle.js?v=` + swaggerui.Version + `"`,
		`data-spec-url="openapi.json"`,
		`data-config="{&#34;docExpansion&#34;:&#34;none&#34;}"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s\n%s", want, body)
		}
	}
	if strings.Contains(body, "http://") || strings.Contains(body, "https://") {
		t.Errorf("page refers to another origin:\n%s", body)
	}
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP = %q", csp)
	}
}

func TestDocsAssets(t *testing.T) {
	h := DocsAssetHandler()
	for _, name := range DocsAssets() {
		// A client that accepts gzip gets the stored bytes.
		req := httptest.NewRequest("GET", "/docs/"+name, nil)
		req.Header.Set("Accept-Encoding", "gzip, deflate")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			t.Fatalf("%s: status %d", name, w.Code)
		}
		plain := w.Body.Bytes()
		if w.Header().Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(plain))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			plain, _ = io.ReadAll(zr)
		}
		// A client that does not gets the same bytes, decompressed.
		req = httptest.NewRequest("GET", "/docs/"+name, nil)
		w2 := httptest.NewRecorder()
		h.ServeHTTP(w2, req)
		if w2.Header().Get("Content-Encoding") != "" || !bytes.Equal(w2.Body.Bytes(), plain) {
			t.Errorf("%s: identity response differs from the gzip one", name)
		}
		if len(plain) == 0 {
			t.Errorf("%s: empty", name)
		}
		// Revalidation.
		req = httptest.NewRequest("GET", "/docs/"+name, nil)
		req.Header.Set("If-None-Match", w.Header().Get("ETag"))
		w3 := httptest.NewRecorder()
		h.ServeHTTP(w3, req)
		if w3.Code != http.StatusNotModified {
			t.Errorf("%s: If-None-Match gave %d", name, w3.Code)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/docs/../../etc/passwd", nil))
	if w.Code != 404 {
		t.Errorf("unknown asset: status %d", w.Code)
	}
}

func TestSwaggerUIVersionMatchesVendoredFiles(t *testing.T) {
	v, err := swaggerui.FS.ReadFile("VERSION")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.SplitN(string(v), "\n", 2)[0]; got != swaggerui.Version {
		t.Errorf("VERSION file says %s, swaggerui.Version is %s", got, swaggerui.Version)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"": false, "gzip": true, "br, gzip;q=0.5": true, "gzip;q=0": false, "identity": false, "*": true, "GZIP": true,
	} {
		if got := acceptsGzip(h); got != want {
			t.Errorf("acceptsGzip(%q) = %v", h, got)
		}
	}
}
