package openapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vane-http/vane/problem"
)

// Handler serves a document as JSON and as YAML, in OpenAPI 3.1 and in its
// OpenAPI 3.0.3 translation ([Translate30]).
//
// The document is built by the function given to [NewHandler] once, on
// the first request or on [Handler.Check], after every route has been
// registered. Each form (3.1 or 3.0, JSON or YAML) is written from it on
// its first request, and each form's gzip coding on the first request
// that accepts gzip: a form nobody asks for is never made, and no request
// after the first of its form and coding encodes or compresses anything.
// Every representation has its own strong ETag, and If-None-Match is
// answered with 304.
type Handler struct {
	build func() (*Document, error)

	// Indent is the JSON forms' indentation per level, such as "  ";
	// empty (the default) writes compact JSON. Set it before the first
	// request.
	Indent string

	once  sync.Once
	doc   *Document
	defs  bool // a schema of doc holds $defs (hasDefs)
	err   error
	forms [numForms]servedForm

	compressions atomic.Int64 // gzip codings made (a count for tests)
}

// servedForm is one form of the document, made once, in its codings.
type servedForm struct {
	once     sync.Once
	err      error
	identity representation
	gzipOnce sync.Once
	gzip     representation
}

// representation is the bytes served for one form and coding, in parts
// (a written form is kept in the chunks it was written in).
type representation struct {
	body   [][]byte
	etag   string
	length string // Content-Length
}

func newRepresentation(body [][]byte, tag string) representation {
	n := 0
	for _, p := range body {
		n += len(p)
	}
	return representation{body: body, etag: tag, length: strconv.Itoa(n)}
}

// NewHandler returns a Handler serving the document build returns.
func NewHandler(build func() (*Document, error)) *Handler {
	return &Handler{build: build}
}

// Check builds the document if it has not been built, checks that every
// form can be written from it, and returns the error its requests would
// answer with. It writes no form: that is left to each form's first
// request.
func (h *Handler) Check() error {
	h.once.Do(func() {
		if h.doc, h.err = h.build(); h.err != nil {
			return
		}
		if !strings.HasPrefix(h.doc.OpenAPI, "3.1.") {
			h.err = fmt.Errorf("openapi: the document says OpenAPI %q; Handler serves OpenAPI 3.1 documents and their 3.0 translation", h.doc.OpenAPI)
			return
		}
		h.defs = hasDefs(h.doc)
		h.err = writeDocument(discard{}, h.doc, false, false) // what could fail writing any form
	})
	return h.err
}

// form returns form i, writing it on first use.
func (h *Handler) form(i int) (*servedForm, error) {
	if err := h.Check(); err != nil {
		return nil, err
	}
	f := &h.forms[i]
	f.once.Do(func() {
		indent := ""
		if i == formJSON || i == formJSON30 {
			indent = h.Indent
		}
		var body [][]byte
		if body, f.err = h.doc.encodeParts(i, indent, h.defs); f.err == nil {
			f.identity = newRepresentation(body, etag(body))
		}
	})
	return f, f.err
}

// gzipped returns f's gzip coding, compressing it on first use.
func (h *Handler) gzipped(f *servedForm) *representation {
	f.gzipOnce.Do(func() {
		h.compressions.Add(1)
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
		for _, p := range f.identity.body {
			zw.Write(p)
		}
		zw.Close()
		f.gzip = newRepresentation([][]byte{buf.Bytes()}, codingTag(f.identity.etag, "gzip"))
	})
	return &f.gzip
}

// Document builds the document now if it has not been built, and returns
// its OpenAPI 3.1 JSON and YAML encodings, as served (each a copy).
func (h *Handler) Document() (jsonDoc, yamlDoc []byte, err error) {
	return h.pair(formJSON, formYAML)
}

// Document30 is [Handler.Document] for the OpenAPI 3.0.3 translation.
func (h *Handler) Document30() (jsonDoc, yamlDoc []byte, err error) {
	return h.pair(formJSON30, formYAML30)
}

func (h *Handler) pair(j, y int) ([]byte, []byte, error) {
	fj, err := h.form(j)
	if err != nil {
		return nil, nil, err
	}
	fy, err := h.form(y)
	if err != nil {
		return nil, nil, err
	}
	return joinParts(fj.identity.body), joinParts(fy.identity.body), nil
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
	f, err := h.form(form)
	if err != nil {
		// A document that cannot be built is a programming error in the
		// service (a hook failed, an extension is misnamed); say so plainly.
		writeProblem(w, http.StatusInternalServerError, "the OpenAPI document could not be built: "+err.Error())
		return
	}
	rep, coding := &f.identity, ""
	if chooseCoding(r.Header.Get("Accept-Encoding"), "gzip") == "gzip" {
		rep, coding = h.gzipped(f), "gzip"
	}
	hdr := w.Header()
	ctype := "application/json"
	if form == formYAML || form == formYAML30 {
		ctype = "application/yaml"
	}
	hdr.Set("Content-Type", ctype)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Cache-Control", "no-cache") // revalidate: a redeploy changes it
	hdr.Set("Access-Control-Allow-Origin", "*")
	serveRepresentation(w, r, rep, coding)
}

// serveRepresentation answers r with rep, in coding ("" for identity):
// the Vary, ETag, Content-Encoding and Content-Length headers, then 304
// to an If-None-Match that lists the ETag, the headers alone to HEAD, or
// the body.
func serveRepresentation(w http.ResponseWriter, r *http.Request, rep *representation, coding string) {
	hdr := w.Header()
	hdr.Add("Vary", "Accept-Encoding")
	hdr.Set("ETag", rep.etag)
	if m := r.Header.Get("If-None-Match"); m != "" && etagMatch(m, rep.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if coding != "" {
		hdr.Set("Content-Encoding", coding)
	}
	hdr.Set("Content-Length", rep.length)
	if r.Method == http.MethodHead {
		return
	}
	for _, p := range rep.body {
		if _, err := w.Write(p); err != nil {
			return // the client went away
		}
	}
}

// etag is the strong entity tag of a body: a hash of its bytes.
func etag(body [][]byte) string {
	h := sha256.New()
	for _, p := range body {
		h.Write(p)
	}
	return `"` + base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:12]) + `"`
}

// codingTag is the entity tag of the coding of the representation tagged
// tag: another representation, so another tag (RFC 9110 §8.8.3).
func codingTag(tag, coding string) string {
	return strings.TrimSuffix(tag, `"`) + "-" + coding + `"`
}

// etagMatch reports whether the If-None-Match header value lists tag (or
// *), by the weak comparison If-None-Match uses (RFC 9110 §13.1.2).
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
