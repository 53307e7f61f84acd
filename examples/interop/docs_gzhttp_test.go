package interop

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/klauspost/compress/gzhttp"

	"github.com/vane-http/vane"
)

// vane.Docs prepares each docs asset and document in the codings it
// offers (zstd and gzip for the Swagger UI bundle, gzip for the
// documents): behind gzhttp, which compresses what is not yet coded,
// every answer that vane coded goes out byte for byte as vane made it,
// with vane's Content-Encoding, ETag and Content-Length. gzhttp passes a
// response that already has a Content-Encoding through: nothing is
// compressed again per request.
func TestDocsBehindGzhttpPassesCodingsThrough(t *testing.T) {
	docs := func() *vane.Router {
		r := vane.New()
		vane.Get(r, "/items", func(_ context.Context, in *ListItems) (*Items, error) { return &Items{}, nil })
		vane.Docs(r, vane.DocsConfig{})
		if err := r.Check(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	plain := docs()
	wrapped := docs()
	wrapped.Use(func(next http.Handler) http.Handler { return gzhttp.GzipHandler(next) })
	srv := httptest.NewServer(wrapped)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, tc := range []struct{ path, accept, coding string }{
		{"/docs/swagger-ui-bundle.js", "gzip, deflate, br, zstd", "zstd"},
		{"/docs/swagger-ui-bundle.js", "zstd", "zstd"},
		{"/docs/swagger-ui-bundle.js", "gzip", "gzip"},
		{"/docs/swagger-ui.css", "br;q=1, zstd;q=0.5, gzip;q=0.8", "gzip"},
		{"/openapi.json", "gzip, zstd", "gzip"},
		{"/openapi-3.0.yaml", "gzip", "gzip"},
	} {
		req, _ := http.NewRequest("GET", srv.URL+tc.path, nil)
		req.Header.Set("Accept-Encoding", tc.accept)
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		direct := httptest.NewRecorder()
		dreq := httptest.NewRequest("GET", tc.path, nil)
		dreq.Header.Set("Accept-Encoding", tc.accept)
		plain.ServeHTTP(direct, dreq)
		if got := res.Header.Get("Content-Encoding"); got != tc.coding {
			t.Errorf("%s, Accept-Encoding %q: Content-Encoding %q, want %q", tc.path, tc.accept, got, tc.coding)
		}
		if !bytes.Equal(body, direct.Body.Bytes()) {
			t.Errorf("%s, Accept-Encoding %q: gzhttp changed the body vane made (%d bytes, %d from vane)", tc.path, tc.accept, len(body), direct.Body.Len())
		}
		for _, h := range []string{"ETag", "Content-Length"} {
			if got, want := res.Header.Get(h), direct.Header().Get(h); got != want || want == "" {
				t.Errorf("%s, Accept-Encoding %q: %s %q through gzhttp, %q from vane", tc.path, tc.accept, h, got, want)
			}
		}
	}
}
