package openapi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
)

// Handler serves a document as JSON and as YAML. The document is built by
// the function given to [NewHandler] on the first request, after every route
// has been registered, and both encodings are kept: later requests write
// bytes already made and answer If-None-Match with 304.
type Handler struct {
	build func() (*Document, error)

	once     sync.Once
	err      error
	json     []byte
	yaml     []byte
	jsonETag string
	yamlETag string
}

// NewHandler returns a Handler serving the document build returns.
func NewHandler(build func() (*Document, error)) *Handler {
	return &Handler{build: build}
}

// Document builds the document now if it has not been built, and returns
// its JSON and YAML encodings.
func (h *Handler) Document() (jsonDoc, yamlDoc []byte, err error) {
	h.once.Do(func() {
		var doc *Document
		doc, h.err = h.build()
		if h.err != nil {
			return
		}
		if h.json, h.err = doc.JSON(); h.err != nil {
			return
		}
		if h.yaml, h.err = doc.YAML(); h.err != nil {
			return
		}
		h.jsonETag, h.yamlETag = etag(h.json), etag(h.yaml)
	})
	return h.json, h.yaml, h.err
}

// JSON is the http.HandlerFunc serving the JSON document.
func (h *Handler) JSON(w http.ResponseWriter, r *http.Request) {
	h.serve(w, r, false)
}

// YAML is the http.HandlerFunc serving the YAML document.
func (h *Handler) YAML(w http.ResponseWriter, r *http.Request) {
	h.serve(w, r, true)
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, yaml bool) {
	j, y, err := h.Document()
	if err != nil {
		// A document that cannot be built is a programming error in the
		// service (a hook failed, an extension is misnamed); say so plainly.
		writeProblem(w, http.StatusInternalServerError, "the OpenAPI document could not be built: "+err.Error())
		return
	}
	body, tag, ctype := j, h.jsonETag, "application/json"
	if yaml {
		body, tag, ctype = y, h.yamlETag, "application/yaml"
	}
	hdr := w.Header()
	hdr.Set("Content-Type", ctype)
	hdr.Set("ETag", tag)
	hdr.Set("Cache-Control", "no-cache") // revalidate: a redeploy changes it
	hdr.Set("Access-Control-Allow-Origin", "*")
	if headersOnly(w, r, tag) {
		return
	}
	w.Write(body)
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

// writeProblem writes a minimal RFC 9457 problem response.
func writeProblem(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{
		"type":   "about:blank",
		"title":  http.StatusText(status),
		"status": status,
		"detail": detail,
	})
	w.Write(b)
}
