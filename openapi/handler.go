package openapi

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"

	"github.com/vane-http/vane/problem"
)

// Handler serves a document as JSON and as YAML, in OpenAPI 3.1 and in its
// OpenAPI 3.0.3 translation ([Translate30]). The document is built by the
// function given to [NewHandler] on the first request, after every route
// has been registered, and every encoding is kept: later requests write
// bytes already made and answer If-None-Match with 304.
type Handler struct {
	build func() (*Document, error)

	once sync.Once
	err  error
	// forms are the encodings: JSON and YAML of 3.1, then of 3.0.
	forms [4]encoded
}

type encoded struct {
	body  []byte
	etag  string
	ctype string
}

const (
	formJSON = iota
	formYAML
	formJSON30
	formYAML30
)

// NewHandler returns a Handler serving the document build returns.
func NewHandler(build func() (*Document, error)) *Handler {
	return &Handler{build: build}
}

func (h *Handler) built() error {
	h.once.Do(func() {
		var doc *Document
		if doc, h.err = h.build(); h.err != nil {
			return
		}
		var b [4][]byte
		if b[formJSON], h.err = doc.JSON(); h.err != nil {
			return
		}
		if b[formYAML], h.err = JSONToYAML(b[formJSON]); h.err != nil {
			return
		}
		if b[formJSON30], h.err = Translate30(b[formJSON]); h.err != nil {
			return
		}
		if b[formYAML30], h.err = JSONToYAML(b[formJSON30]); h.err != nil {
			return
		}
		for i, body := range b {
			ctype := "application/json"
			if i == formYAML || i == formYAML30 {
				ctype = "application/yaml"
			}
			h.forms[i] = encoded{body, etag(body), ctype}
		}
	})
	return h.err
}

// Document builds the document now if it has not been built, and returns
// its OpenAPI 3.1 JSON and YAML encodings.
func (h *Handler) Document() (jsonDoc, yamlDoc []byte, err error) {
	err = h.built()
	return h.forms[formJSON].body, h.forms[formYAML].body, err
}

// Document30 is [Handler.Document] for the OpenAPI 3.0.3 translation.
func (h *Handler) Document30() (jsonDoc, yamlDoc []byte, err error) {
	err = h.built()
	return h.forms[formJSON30].body, h.forms[formYAML30].body, err
}

// JSON is the http.HandlerFunc serving the JSON document.
func (h *Handler) JSON(w http.ResponseWriter, r *http.Request) { h.serve(w, r, formJSON) }

// YAML is the http.HandlerFunc serving the YAML document.
func (h *Handler) YAML(w http.ResponseWriter, r *http.Request) { h.serve(w, r, formYAML) }

// JSON30 is the http.HandlerFunc serving the OpenAPI 3.0.3 translation as
// JSON.
func (h *Handler) JSON30(w http.ResponseWriter, r *http.Request) { h.serve(w, r, formJSON30) }

// YAML30 is the http.HandlerFunc serving the OpenAPI 3.0.3 translation as
// YAML.
func (h *Handler) YAML30(w http.ResponseWriter, r *http.Request) { h.serve(w, r, formYAML30) }

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, form int) {
	if err := h.built(); err != nil {
		// A document that cannot be built is a programming error in the
		// service (a hook failed, an extension is misnamed); say so plainly.
		writeProblem(w, http.StatusInternalServerError, "the OpenAPI document could not be built: "+err.Error())
		return
	}
	f := &h.forms[form]
	hdr := w.Header()
	hdr.Set("Content-Type", f.ctype)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("ETag", f.etag)
	hdr.Set("Cache-Control", "no-cache") // revalidate: a redeploy changes it
	hdr.Set("Access-Control-Allow-Origin", "*")
	if headersOnly(w, r, f.etag) {
		return
	}
	w.Write(f.body)
}

func etag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
}

// headersOnly answers 304 Not Modified when r's If-None-Match lists tag,
// the response's ETag, and reports whether the response is complete
// without a body: after a 304, and for HEAD.
func headersOnly(w http.ResponseWriter, r *http.Request, tag string) bool {
	if m := r.Header.Get("If-None-Match"); m != "" && etagMatch(m, tag) {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	return r.Method == http.MethodHead
}

// etagMatch reports whether the If-None-Match header value lists tag (or *).
func etagMatch(header, tag string) bool {
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		part = strings.TrimPrefix(part, "W/")
		if part == "*" || part == tag {
			return true
		}
	}
	return false
}

// writeProblem writes an RFC 9457 problem response (package problem),
// marked nosniff like every response of this package.
func writeProblem(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	problem.Write(w, problem.New(status, detail))
}
