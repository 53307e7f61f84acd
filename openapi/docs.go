package openapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"

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
<link rel="stylesheet" href="{{.Assets}}swagger-ui.css?v={{.Version}}">
</head>
<body>
<noscript>This page needs JavaScript. The API description is at <a href="{{.Spec}}">{{.Spec}}</a>.</noscript>
<div id="swagger-ui"></div>
<script src="{{.Assets}}swagger-ui-bundle.js?v={{.Version}}"></script>
<script src="{{.Assets}}init.js?v={{.Version}}" data-spec-url="{{.Spec}}" data-config="{{.Config}}"></script>
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

// docsAssets maps an asset's URL name to its file and media type.
var docsAssets = map[string]struct{ file, ctype string }{
	"swagger-ui-bundle.js":             {"swagger-ui-bundle.js.gz", "text/javascript; charset=utf-8"},
	"swagger-ui.css":                   {"swagger-ui.css.gz", "text/css; charset=utf-8"},
	"init.js":                          {"init.js", "text/javascript; charset=utf-8"},
	"LICENSE":                          {"LICENSE", "text/plain; charset=utf-8"},
	"NOTICE":                           {"NOTICE", "text/plain; charset=utf-8"},
	"swagger-ui-bundle.js.LICENSE.txt": {"swagger-ui-bundle.js.LICENSE.txt", "text/plain; charset=utf-8"},
}

// DocsAssets lists the names [ServeDocsAsset] serves.
func DocsAssets() []string {
	names := make([]string, 0, len(docsAssets))
	for n := range docsAssets {
		names = append(names, n)
	}
	return names
}

// ServeDocsAsset writes the docs page's asset called name (the last segment
// of its URL), or a 404. Gzipped assets are sent as they are stored to
// clients that accept gzip and decompressed for the others. The assets never
// change within a build, so they are cached for a year: the page asks for
// them with the Swagger UI version in the query.
func ServeDocsAsset(w http.ResponseWriter, r *http.Request, name string) {
	a, ok := docsAssets[name]
	if !ok {
		writeProblem(w, http.StatusNotFound, "no docs asset "+name)
		return
	}
	data, err := fs.ReadFile(swaggerui.FS, a.file)
	if err != nil { // cannot happen: the files are embedded
		writeProblem(w, http.StatusInternalServerError, err.Error())
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	tag := `"swagger-ui-` + swaggerui.Version + "-" + name + `"`
	h.Set("ETag", tag)
	gzipped := strings.HasSuffix(a.file, ".gz")
	if gzipped {
		h.Add("Vary", "Accept-Encoding")
	}
	if headersOnly(w, r, tag) {
		return
	}
	if !gzipped {
		w.Write(data)
		return
	}
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		w.Write(data)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, err.Error())
		return
	}
	io.Copy(w, zr)
}

// DocsAssetHandler serves the docs assets by the last segment of the request
// path, for use with any router (http.ServeMux included).
func DocsAssetHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ServeDocsAsset(w, r, path.Base(r.URL.Path))
	})
}

// acceptsGzip reports whether an Accept-Encoding value allows gzip.
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.TrimSpace(coding) != "*" {
			continue
		}
		// q=0 means "not acceptable".
		q := strings.ReplaceAll(params, " ", "")
		if q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000" {
			return false
		}
		return true
	}
	return false
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
