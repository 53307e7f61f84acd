package openapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
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
		`href="docs/swagger-ui.css?v=` + docsAssets["swagger-ui.css"].ver() + `"`,
		`src="docs/swagger-ui-bundle.js?v=` + docsAssets["swagger-ui-bundle.js"].ver() + `"`,
		`src="docs/init.js?v=` + docsAssets["init.js"].ver() + `"`,
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

// get serves one request for an asset, with the given Accept-Encoding and
// If-None-Match ("" for none).
func getAsset(t *testing.T, method, target, acceptEncoding, ifNoneMatch string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	w := httptest.NewRecorder()
	DocsAssetHandler().ServeHTTP(w, req)
	return w
}

// Each asset is served in each of its codings, prepared once: every
// coding says the same content, each has its own strong ETag and its
// Content-Length, and no request after the first of an asset decompresses
// or compresses anything.
func TestDocsAssets(t *testing.T) {
	for _, name := range DocsAssets() {
		a := docsAssets[name]
		url := "/docs/" + DocsAssetURL(name)
		identity := getAsset(t, "GET", url, "", "")
		if identity.Code != 200 || identity.Header().Get("Content-Encoding") != "" || identity.Body.Len() == 0 {
			t.Fatalf("%s: identity: %d %q, %d bytes", name, identity.Code, identity.Header().Get("Content-Encoding"), identity.Body.Len())
		}
		codings := map[string]*httptest.ResponseRecorder{"": identity}
		for _, accept := range []string{"gzip", "gzip, deflate, br, zstd", "zstd", "br"} {
			w := getAsset(t, "GET", url, accept, "")
			coding := w.Header().Get("Content-Encoding")
			want := chooseCoding(accept, a.offered...)
			if coding != want {
				t.Errorf("%s: Accept-Encoding %q: coding %q, want %q", name, accept, coding, want)
			}
			codings[coding] = w
		}
		if a.zstd != "" && codings["zstd"] == nil {
			t.Errorf("%s: never served in zstd", name)
		}
		tags := map[string]string{}
		for coding, w := range codings {
			if got, want := w.Header().Get("Content-Length"), strconv.Itoa(w.Body.Len()); got != want {
				t.Errorf("%s %q: Content-Length %q, body of %s bytes", name, coding, got, want)
			}
			if v := w.Header().Values("Vary"); len(v) != 1 || v[0] != "Accept-Encoding" {
				t.Errorf("%s %q: Vary %q", name, coding, v)
			}
			if cc := w.Header().Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
				t.Errorf("%s %q: Cache-Control %q", name, coding, cc)
			}
			tag := w.Header().Get("ETag")
			if other, dup := tags[tag]; dup || !strings.HasPrefix(tag, `"`) {
				t.Errorf("%s: coding %q has the ETag %s of coding %q", name, coding, tag, other)
			}
			tags[tag] = coding
			if got := decodeCoding(t, coding, w.Body.Bytes()); got != nil && !bytes.Equal(got, identity.Body.Bytes()) {
				t.Errorf("%s: the %s coding decodes to another content", name, coding)
			}
			// Revalidation with its own tag: 304; with another coding's
			// tag: the representation again.
			if w := getAsset(t, "GET", url, accept(coding), tag); w.Code != http.StatusNotModified || w.Body.Len() != 0 {
				t.Errorf("%s %q: If-None-Match with its ETag: %d", name, coding, w.Code)
			}
			if coding != "" {
				if w := getAsset(t, "GET", url, accept(coding), identity.Header().Get("ETag")); w.Code != 200 {
					t.Errorf("%s %q: If-None-Match with the identity's ETag: %d, want 200", name, coding, w.Code)
				}
			}
			// HEAD: the headers, no body.
			if h := getAsset(t, "HEAD", url, accept(coding), ""); h.Body.Len() != 0 || h.Header().Get("Content-Length") != w.Header().Get("Content-Length") {
				t.Errorf("%s %q: HEAD: %d bytes, Content-Length %q", name, coding, h.Body.Len(), h.Header().Get("Content-Length"))
			}
		}
	}
	// Every coding exists now: many more requests, of every kind, make none.
	made := assetCodings.Load()
	for range 20 {
		for _, name := range DocsAssets() {
			for _, accept := range []string{"", "gzip", "zstd", "identity", "br;q=1, gzip;q=0.5"} {
				getAsset(t, "GET", "/docs/"+name, accept, "")
			}
		}
	}
	if n := assetCodings.Load() - made; n != 0 {
		t.Errorf("120 requests per asset made %d codings", n)
	}
	if made > int64(len(docsAssets)) {
		t.Errorf("%d codings made for %d assets: more than one each", made, len(docsAssets))
	}

	// Without the current version in the URL, the client revalidates.
	if w := getAsset(t, "GET", "/docs/init.js?v=5.35.0", "", ""); w.Header().Get("Cache-Control") != "no-cache" {
		t.Errorf("init.js under another version: Cache-Control %q", w.Header().Get("Cache-Control"))
	}
	w := httptest.NewRecorder()
	DocsAssetHandler().ServeHTTP(w, httptest.NewRequest("GET", "/docs/../../etc/passwd", nil))
	if w.Code != 404 {
		t.Errorf("unknown asset: status %d", w.Code)
	}
}

// accept is an Accept-Encoding that chooses coding.
func accept(coding string) string {
	if coding == "" {
		return "identity"
	}
	return coding
}

// decodeCoding returns body decoded from coding, or nil where the test cannot
// decode it (zstd without the zstd command).
func decodeCoding(t *testing.T, coding string, body []byte) []byte {
	t.Helper()
	switch coding {
	case "":
		return body
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		return b
	case "zstd":
		zstd, err := exec.LookPath("zstd")
		if err != nil {
			t.Logf("no zstd command: the zstd coding is not decoded")
			return nil
		}
		cmd := exec.Command(zstd, "-d", "-c")
		cmd.Stdin = bytes.NewReader(body)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("zstd -d: %v", err)
		}
		return out
	}
	t.Fatalf("unknown coding %q", coding)
	return nil
}

// vane's own script is cached under a hash of its content: the page's
// URL for it changes when it does.
func TestInitScriptVersionIsItsContent(t *testing.T) {
	init, err := swaggerui.FS.ReadFile("init.js")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(init)
	if want := base64.RawURLEncoding.EncodeToString(sum[:9]); docsAssets["init.js"].ver() != want {
		t.Errorf("init.js's version is %s, the hash of its content %s", docsAssets["init.js"].ver(), want)
	}
	if strings.Contains(DocsAssetURL("init.js"), swaggerui.Version) {
		t.Errorf("init.js's URL %s names the Swagger UI version", DocsAssetURL("init.js"))
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

func TestChooseCoding(t *testing.T) {
	for _, tc := range []struct {
		header  string
		offered []string
		want    string
	}{
		{"", []string{"gzip"}, ""},
		{"gzip", []string{"gzip"}, "gzip"},
		{"GZIP", []string{"gzip"}, "gzip"},
		{"x-gzip", []string{"gzip"}, "gzip"},
		{"br, gzip;q=0.5", []string{"gzip"}, "gzip"},
		{"gzip;q=0", []string{"gzip"}, ""},
		{"gzip;q=0.000", []string{"gzip"}, ""},
		{"identity", []string{"gzip"}, ""},
		{"*", []string{"gzip"}, "gzip"},
		{"*;q=0.1, identity;q=0.5", []string{"gzip"}, ""},
		{"gzip;q=0.5, identity;q=0.5", []string{"gzip"}, "gzip"}, // ties: the server's preference
		{"gzip;q=0.4, identity", []string{"gzip"}, ""},
		{"gzip, zstd", []string{"zstd", "gzip"}, "zstd"},
		{"gzip, zstd;q=0.9", []string{"zstd", "gzip"}, "gzip"},
		{"zstd", []string{"zstd", "gzip"}, "zstd"},
		{"zstd", []string{"gzip"}, ""},
		{"br", []string{"zstd", "gzip"}, ""},
		{"gzip;q=2", []string{"gzip"}, ""},    // malformed weight: not listed
		{"gzip;q=0.5x", []string{"gzip"}, ""}, // malformed weight
		{"gzip;q=1.000", []string{"gzip"}, "gzip"},
		{"gzip;q=1.001", []string{"gzip"}, ""},
		{" , ,gzip ; q=0.3 ", []string{"gzip"}, "gzip"},
		{"*;q=0", []string{"gzip"}, ""},
	} {
		if got := chooseCoding(tc.header, tc.offered...); got != tc.want {
			t.Errorf("chooseCoding(%q, %v) = %q, want %q", tc.header, tc.offered, got, tc.want)
		}
	}
}
