package vane

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/vane-http/vane/openapi"
	"github.com/vane-http/vane/problem"
)

// DocsConfig configures [Docs]: the document's contents (the embedded
// openapi.Config) and where the document and the docs page are served.
type DocsConfig struct {
	openapi.Config

	// JSONPath, YAMLPath and DocsPath are where the JSON document, the YAML
	// document and the API reference page are served, relative to the
	// router Docs is called on. Empty means "/openapi.json",
	// "/openapi.yaml" and "/docs"; NotServed serves nothing there. The
	// page's assets are served under DocsPath + "/".
	JSONPath string
	YAMLPath string
	DocsPath string

	// JSON30Path and YAML30Path are where the document's OpenAPI 3.0.3
	// translation is served (see openapi.Translate30), for client
	// generators and tools that read only 3.0. Empty means
	// "/openapi-3.0.json" and "/openapi-3.0.yaml"; NotServed serves
	// nothing there.
	JSON30Path string
	YAML30Path string

	// UIConfig holds extra Swagger UI settings for the page, such as
	// {"docExpansion": "none"}; see openapi.DocsPage.
	UIConfig map[string]any

	// Indent is the JSON documents' indentation per level, such as "  ";
	// empty (the default) serves compact JSON.
	Indent string
}

// Docs serves the OpenAPI 3.1 document of every typed operation on r's
// tree (see [Router.Operations]) as JSON and YAML, its OpenAPI 3.0.3
// translation for tools that read only 3.0, and an API reference page
// that renders it with no network access (Swagger UI, embedded in the
// binary). Call it once, with the other registrations. The document is
// built when every operation is known: by [Router.Check] (which vane.Serve
// calls before it listens), or else on its first request. Each form (3.1
// or 3.0, JSON or YAML) is written on its first request, and its gzip
// coding on the first request that accepts gzip; every later request
// writes bytes already made, with a Content-Length and an ETag of their
// own.
//
//	r := vane.New()
//	vane.Get(r, "/items/{id}", getItem)
//	vane.Docs(r, vane.DocsConfig{Config: openapi.Config{
//		Info: openapi.Info{Title: "Items", Version: "1.0.0"},
//	}})
//	// GET /docs, /openapi.json, /openapi.yaml, /openapi-3.0.json, /openapi-3.0.yaml
//
// The returned handler also gives the document to code, for example to write
// it to a file from a command (see [openapi.Handler.Document]). A document
// that cannot be built (a hook failed, a security scheme is missing) is
// reported by [Router.Check], which vane.Serve and Server call before they
// listen; served anyway, it is a 500 response naming the cause, through
// the router's ErrorHook. [OpenAPI] reports the same error directly.
func Docs(r *Router, cfg DocsConfig) *openapi.Handler {
	h := openapi.NewHandler(func() (*openapi.Document, error) { return OpenAPI(r, cfg.Config) })
	h.Indent = cfg.Indent
	r.api.checks = append(r.api.checks, func() error {
		if err := h.Check(); err != nil {
			return fmt.Errorf("vane: the OpenAPI document cannot be built: %w", err)
		}
		return nil
	})
	jsonPath := docsPath(cfg.JSONPath, "/openapi.json")
	yamlPath := docsPath(cfg.YAMLPath, "/openapi.yaml")
	pagePath := docsPath(cfg.DocsPath, "/docs")
	// A document that cannot be built is a 500 through the router's
	// error model (its ErrorHook sees it).
	serve := func(form http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, req *http.Request) {
			if err := h.Check(); err != nil {
				r.WriteError(w, req, problem.New(http.StatusInternalServerError, "the OpenAPI document cannot be built: "+err.Error()))
				return
			}
			form(w, req)
		}
	}
	if jsonPath != "" {
		r.HandleFunc(http.MethodGet, jsonPath, serve(h.JSON))
	}
	if yamlPath != "" {
		r.HandleFunc(http.MethodGet, yamlPath, serve(h.YAML))
	}
	if p := docsPath(cfg.JSON30Path, "/openapi-3.0.json"); p != "" {
		r.HandleFunc(http.MethodGet, p, serve(h.JSON30))
	}
	if p := docsPath(cfg.YAML30Path, "/openapi-3.0.yaml"); p != "" {
		r.HandleFunc(http.MethodGet, p, serve(h.YAML30))
	}
	if pagePath != "" {
		spec := jsonPath
		if spec == "" {
			spec = yamlPath
		}
		page := &openapi.DocsPage{
			Title:     cfg.Info.Title,
			AssetsURL: openapi.RelativeURL(pagePath, pagePath+"/"),
			UIConfig:  cfg.UIConfig,
		}
		if spec != "" {
			// Relative, so that the page keeps working behind a proxy that
			// strips a prefix, and under a group.
			page.SpecURL = openapi.RelativeURL(pagePath, spec)
		}
		r.HandleFunc(http.MethodGet, pagePath, page.ServeHTTP)
		r.HandleFunc(http.MethodGet, pagePath+"/{file}", func(w http.ResponseWriter, req *http.Request) {
			openapi.ServeDocsAsset(w, req, Param(req, "file"))
		})
	}
	return h
}

// OpenAPI builds the OpenAPI 3.1 document of every typed operation on r's
// tree; see [openapi.Build].
func OpenAPI(r *Router, cfg openapi.Config) (*openapi.Document, error) {
	return openapi.Build(cfg, r.Operations())
}

// NotServed, as a path of DocsConfig, serves nothing there: Docs(r,
// DocsConfig{YAMLPath: vane.NotServed}) serves no YAML. An empty path
// means the default one.
const NotServed = "-"

func docsPath(p, def string) string {
	switch p {
	case "":
		return def
	case NotServed:
		return ""
	}
	return "/" + strings.Trim(p, "/")
}
