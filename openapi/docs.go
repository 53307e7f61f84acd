package openapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vane-http/vane/openapi/internal/swaggerui"
)

// DocsPage serves the API reference page: Swagger UI reading the document
// at SpecURL, with every asset served by [ServeDocsAsset] from the binary, so
// the page needs no network access beyond the service itself.
//
// URLs may be relative to the page's own URL, which keeps the page working
// behind a proxy that strips a path prefix. vane.Docs computes them.
type DocsPage struct {
	// Title is the page's title; "API reference" when empty.
	Title string
	// SpecURL is the URL of the JSON (or YAML) document.
	SpecURL string
	// AssetsURL is the URL prefix the assets are served under, ending in
	// "/": the page loads AssetsURL + "swagger-ui-bundle.js", and so on.
	AssetsURL string
	// UIConfig holds extra Swagger UI settings (for example
	// {"docExpansion": "none", "persistAuthorization": true}), applied over
	// vane's. Values must marshal to JSON.
	UIConfig map[string]any

	once sync.Once
	page []byte
	err  error
}

var pageTemplate = template.Must(template.New("docs").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="vane, Swagger UI {{.Version}}">
<title>{{.Title}}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{{.Assets}}{{.CSS}}">
</head>
<body>
<noscript>This page needs JavaScript. The API description is at <a href="{{.Spec}}">{{.Spec}}</a>.</noscript>
<div id="swagger-ui"></div>
<script src="{{.Assets}}{{.Bundle}}"></script>
<script src="{{.Assets}}{{.Init}}" data-spec-url="{{.Spec}}" data-config="{{.Config}}"></script>
</body>
</html>
`))

// docsCSP forbids inline and third-party scripts and any load from another
// origin; "Try it out" may still call servers the document lists.
const docsCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self' http: https:; " +
	"object-src 'none'; base-uri 'none'; frame-ancestors 'self'"

func (p *DocsPage) render() ([]byte, error) {
	p.once.Do(func() {
		title := p.Title
		if title == "" {
			title = "API reference"
		}
		config := []byte("{}")
		if len(p.UIConfig) > 0 {
			config, p.err = json.Marshal(p.UIConfig)
			if p.err != nil {
				return
			}
		}
		var buf bytes.Buffer
		p.err = pageTemplate.Execute(&buf, map[string]string{
			"Title":   title,
			"Spec":    p.SpecURL,
			"Assets":  p.AssetsURL,
			"Config":  string(config),
			"Version": swaggerui.Version,
			"CSS":     DocsAssetURL("swagger-ui.css"),
			"Bundle":  DocsAssetURL("swagger-ui-bundle.js"),
			"Init":    DocsAssetURL("init.js"),
		})
		p.page = buf.Bytes()
	})
	return p.page, p.err
}

// ServeHTTP writes the page.
func (p *DocsPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	page, err := p.render()
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, "the docs page could not be rendered: "+err.Error())
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", docsCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	if r.Method == http.MethodHead {
		return
	}
	w.Write(page)
}

// docsAsset is a file the docs page loads, in every coding it is served
// in, each prepared once.
type docsAsset struct {
	ctype  string
	stored string // the embedded file: the identity, or its gzip coding (.gz)
	zstd   string // the embedded zstd coding, if any
	// version is a hash of the stored file: the page's ?v=, and the
	// ETags' stem.
	version     string
	versionOnce sync.Once

	once     sync.Once
	identity representation
	gzip     representation
	zstdRep  representation
	offered  []string // the codings besides identity
}

// docsAssets are the assets by their URL name.
var docsAssets = map[string]*docsAsset{
	"swagger-ui-bundle.js":             {ctype: "text/javascript; charset=utf-8", stored: "swagger-ui-bundle.js.gz", zstd: "swagger-ui-bundle.js.zst"},
	"swagger-ui.css":                   {ctype: "text/css; charset=utf-8", stored: "swagger-ui.css.gz", zstd: "swagger-ui.css.zst"},
	"init.js":                          {ctype: "text/javascript; charset=utf-8", stored: "init.js"},
	"LICENSE":                          {ctype: "text/plain; charset=utf-8", stored: "LICENSE"},
	"NOTICE":                           {ctype: "text/plain; charset=utf-8", stored: "NOTICE"},
	"swagger-ui-bundle.js.LICENSE.txt": {ctype: "text/plain; charset=utf-8", stored: "swagger-ui-bundle.js.LICENSE.txt"},
}

// assetCodings counts the codings made of the docs assets (decompressions
// and compressions): each asset's once, never per request (a count for
// tests).
var assetCodings atomic.Int64

// ver returns the asset's version, hashing its stored file on first use.
func (a *docsAsset) ver() string {
	a.versionOnce.Do(func() {
		stored, err := fs.ReadFile(swaggerui.FS, a.stored)
		if err != nil {
			panic("openapi: docs asset " + a.stored + " is not embedded")
		}
		sum := sha256.Sum256(stored)
		a.version = base64.RawURLEncoding.EncodeToString(sum[:9])
	})
	return a.version
}

// prepare makes the asset's codings: the stored ones as they are, the
// others (the identity of a gzipped file, the gzip coding of a plain one)
// once.
func (a *docsAsset) prepare() {
	a.once.Do(func() {
		stored, _ := fs.ReadFile(swaggerui.FS, a.stored)
		tag := `"` + a.ver() + `"`
		if strings.HasSuffix(a.stored, ".gz") {
			assetCodings.Add(1)
			zr, err := gzip.NewReader(bytes.NewReader(stored))
			if err != nil {
				panic("openapi: docs asset " + a.stored + ": " + err.Error())
			}
			plain, err := io.ReadAll(zr)
			if err != nil {
				panic("openapi: docs asset " + a.stored + ": " + err.Error())
			}
			a.identity = newRepresentation([][]byte{plain}, tag)
			a.gzip = newRepresentation([][]byte{stored}, codingTag(tag, "gzip"))
		} else {
			assetCodings.Add(1)
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			zw.Write(stored)
			zw.Close()
			a.identity = newRepresentation([][]byte{stored}, tag)
			a.gzip = newRepresentation([][]byte{buf.Bytes()}, codingTag(tag, "gzip"))
		}
		a.offered = []string{"gzip"}
		if a.zstd != "" {
			z, _ := fs.ReadFile(swaggerui.FS, a.zstd)
			a.zstdRep = newRepresentation([][]byte{z}, codingTag(tag, "zstd"))
			a.offered = []string{"zstd", "gzip"}
		}
	})
}

// DocsAssets lists the names [ServeDocsAsset] serves.
func DocsAssets() []string {
	names := make([]string, 0, len(docsAssets))
	for n := range docsAssets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// DocsAssetURL returns the URL of the asset name relative to the
// directory it is served from: its name, with its version (a hash of its
// content) in the query, which makes it cacheable for good. It returns
// name alone for a name that is not an asset.
func DocsAssetURL(name string) string {
	if a, ok := docsAssets[name]; ok {
		return name + "?v=" + a.ver()
	}
	return name
}

// ServeDocsAsset writes the docs page's asset called name (the last segment
// of its URL), or a 404. Each asset is served in the content coding the
// request's Accept-Encoding prefers among those it is kept in (zstd and
// gzip for the Swagger UI bundle and style sheet, gzip for the others, and
// identity), each made once: no request decompresses or compresses
// anything, and a compressing middleware in front of the handler (such as
// gzhttp) passes a coded answer through as it is. Each coding has its own
// strong ETag. An asset asked for with its current version in the query
// (see [DocsAssetURL]; the page does) is cached for a year; otherwise the
// client revalidates.
func ServeDocsAsset(w http.ResponseWriter, r *http.Request, name string) {
	a, ok := docsAssets[name]
	if !ok {
		writeProblem(w, http.StatusNotFound, "no docs asset "+name)
		return
	}
	a.prepare()
	rep, coding := &a.identity, chooseCoding(r.Header.Get("Accept-Encoding"), a.offered...)
	switch coding {
	case "gzip":
		rep = &a.gzip
	case "zstd":
		rep = &a.zstdRep
	}
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	if r.URL.Query().Get("v") == a.ver() {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	serveRepresentation(w, r, rep, coding)
}

// DocsAssetHandler serves the docs assets by the last segment of the request
// path, for use with any router (http.ServeMux included).
func DocsAssetHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ServeDocsAsset(w, r, path.Base(r.URL.Path))
	})
}

// RelativeURL returns a URL reference that, resolved against a page served
// at from, points to the absolute path to (both start with "/"): for
// from "/api/docs" and to "/api/openapi.json" it is "openapi.json", for
// from "/api/docs" and to "/openapi.json" it is "../openapi.json".
func RelativeURL(from, to string) string {
	fromDir := from[:strings.LastIndexByte(from, '/')+1] // keeps the trailing "/"
	f := strings.Split(strings.Trim(fromDir, "/"), "/")
	if fromDir == "/" {
		f = nil
	}
	t := strings.Split(strings.TrimPrefix(to, "/"), "/")
	i := 0
	for i < len(f) && i < len(t)-1 && f[i] == t[i] {
		i++
	}
	var b strings.Builder
	for range len(f) - i {
		b.WriteString("../")
	}
	rest := strings.Join(t[i:], "/")
	if b.Len() == 0 && (rest == "" || strings.Contains(strings.SplitN(rest, "/", 2)[0], ":")) {
		b.WriteString("./") // keep "a:b" from reading as a scheme
	}
	b.WriteString(rest)
	return b.String()
}
