package adversarial

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// assetRefs finds the scripts and style sheets the docs page loads.
var assetRefs = regexp.MustCompile(`(?:src|href)="([^"]+\.(?:js|css)(?:\?[^"]*)?)"`)

// docsAssets: the docs page, its assets and the documents, in every coding
// a client may ask for.
func docsAssets(t *testing.T, s *target) {
	page := s.do(t, "GET", "/docs", nil)
	wantStatus(t, "GET /docs", page, 200)
	var assets []string
	for _, m := range assetRefs.FindAllStringSubmatch(string(page.body), -1) {
		u, err := url.Parse(m[1])
		if err != nil {
			t.Fatalf("asset %q: %v", m[1], err)
		}
		if u.IsAbs() || u.Host != "" {
			t.Errorf("the docs page loads %s from elsewhere; it must work with no network", m[1])
			continue
		}
		assets = append(assets, (&url.URL{Path: "/docs"}).ResolveReference(u).String())
	}
	if len(assets) < 2 {
		t.Fatalf("found %d assets on the docs page: %s", len(assets), page.body)
	}
	targets := append(assets, "/openapi.json", "/openapi.yaml", "/openapi-3.0.json")

	t.Run("each coding is a representation of its own, prepared ahead", func(t *testing.T) {
		// Issue 31 rows 3 and 10: the bundle was stored gzipped and
		// decompressed (or recompressed by gzhttp) per request, and its
		// gzip and identity bodies shared one strong ETag (RFC 9110
		// §8.8.3). A body prepared ahead goes out with its length; the
		// in-process tests of package openapi count the work per request.
		for _, a := range targets {
			plain := s.do(t, "GET", a, nil, "Accept-Encoding: identity")
			gz := s.do(t, "GET", a, nil, "Accept-Encoding: gzip")
			zs := s.do(t, "GET", a, nil, "Accept-Encoding: zstd, gzip;q=0.5")
			wantStatus(t, a+" identity", plain, 200)
			wantStatus(t, a+" gzip", gz, 200)
			wantStatus(t, a+" zstd first", zs, 200)
			if plain.header.Get("Content-Encoding") != "" {
				t.Errorf("%s: Content-Encoding %q for a client that accepts only identity", a, plain.header.Get("Content-Encoding"))
			}
			for what, r := range map[string]response{"identity": plain, "gzip": gz, "zstd first": zs} {
				if r.header.Get("Content-Length") == "" {
					t.Errorf("%s (%s): no Content-Length; a prepared body has one", a, what)
				}
				if r.header.Get("ETag") == "" {
					t.Errorf("%s (%s): no ETag", a, what)
				}
				if !strings.Contains(r.header.Get("Vary"), "Accept-Encoding") {
					t.Errorf("%s (%s): no Vary: Accept-Encoding", a, what)
				}
			}
			if gz.header.Get("Content-Encoding") == "gzip" {
				if gz.header.Get("ETag") == plain.header.Get("ETag") {
					t.Errorf("%s: gzip and identity share the ETag %s", a, gz.header.Get("ETag"))
				}
				zr, err := gzip.NewReader(bytes.NewReader(gz.body))
				if err != nil {
					t.Fatalf("%s: gzip body: %v", a, err)
				}
				un, err := io.ReadAll(zr)
				if err != nil || !bytes.Equal(un, plain.body) {
					t.Errorf("%s: the gzip body is not the identity body (%v)", a, err)
				}
			}
			if zs.header.Get("Content-Encoding") == gz.header.Get("Content-Encoding") && zs.header.Get("ETag") != gz.header.Get("ETag") {
				t.Errorf("%s: the same coding under two ETags (%s, %s): made per request", a, zs.header.Get("ETag"), gz.header.Get("ETag"))
			}
			again := s.do(t, "GET", a, nil, "Accept-Encoding: gzip")
			if again.header.Get("ETag") != gz.header.Get("ETag") || !bytes.Equal(again.body, gz.body) {
				t.Errorf("%s: two gzip answers differ", a)
			}
			// A validator of one coding does not answer 304 for another.
			res := s.do(t, "GET", a, nil, "Accept-Encoding: identity", "If-None-Match: "+gz.header.Get("ETag"))
			if gz.header.Get("Content-Encoding") == "gzip" && res.status == 304 {
				t.Errorf("%s: the gzip ETag answers 304 to a client of identity", a)
			}
			res = s.do(t, "GET", a, nil, "Accept-Encoding: gzip", "If-None-Match: "+gz.header.Get("ETag"))
			wantStatus(t, a+" revalidated", res, 304)
		}
	})

	t.Run("a file cached for a year is named by its content", func(t *testing.T) {
		// Row 10: init.js, vane's own code, was cached immutable under a
		// key naming only the Swagger UI version. Files of different
		// content cannot share their key.
		keys := map[string]string{}
		for _, a := range assets {
			res := s.do(t, "GET", a, nil)
			if !strings.Contains(res.header.Get("Cache-Control"), "immutable") {
				continue
			}
			u, _ := url.Parse(a)
			key := u.RawQuery
			if key == "" {
				key = u.Path
			}
			if other, ok := keys[key]; ok {
				t.Errorf("%s and %s are cached immutable under one key %q", other, a, key)
			}
			keys[key] = a
		}
		if len(keys) == 0 {
			t.Errorf("no asset is cached immutable")
		}
	})

	t.Run("nothing outside the assets is served", func(t *testing.T) {
		for _, p := range []string{"/docs/../go.mod", "/docs/%2e%2e/%2e%2e/go.mod", "/docs/..%2fgo.mod", "/docs/nonexistent.js", "/docs//etc/passwd"} {
			res := s.do(t, "GET", p, nil)
			if res.status == 200 {
				t.Errorf("GET %s: 200 %q", p, res.body[:min(len(res.body), 80)])
			}
			if res.status >= 500 {
				t.Errorf("GET %s: %s", p, res)
			}
		}
	})

	t.Run("ranges of an asset", func(t *testing.T) {
		for _, r := range []string{"bytes=0-0", "bytes=-1", "bytes=5-2", "bytes=0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0", "items=0-1"} {
			res := s.do(t, "GET", assets[0], nil, "Range: "+r, "Accept-Encoding: identity")
			if res.status >= 500 {
				t.Errorf("Range %s: %s", r, res)
			}
			if res.status == 206 && len(res.body) > 1<<10 && strings.Count(r, ",") > 10 {
				t.Errorf("Range of 20 overlapping ranges answered with %d bytes", len(res.body))
			}
		}
	})
}
