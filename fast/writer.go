package fast

import (
	"io"
	"net/http"
	"slices"

	"github.com/valyala/fasthttp"
	"github.com/vane-http/vane/problem"
)

// writer is the native path's ResponseWriter: the status, headers and
// body a native handler writes, held until it returns and then put into
// fasthttp's response, which fasthttp sends. It is pooled with the
// request's state: no handler on the native path sees it (typed
// operations get no writer; the engine forms of middleware hold it only
// while they run).
type writer struct {
	c      *fasthttp.RequestCtx
	header http.Header
	status int   // 0 until WriteHeader
	n      int64 // body bytes written
	stream bool  // the body is a reader fasthttp sends (StreamBody)
}

func (w *writer) reset(c *fasthttp.RequestCtx) {
	w.c, w.status, w.n, w.stream = c, 0, 0, false
	if w.header == nil {
		w.header = make(http.Header, 8)
	}
	clear(w.header)
}

func (w *writer) Header() http.Header { return w.header }

// WriteHeader records the status; informational statuses (1xx) are not
// sent, and a second call is ignored, as net/http does.
func (w *writer) WriteHeader(code int) {
	if w.status != 0 || code < 200 {
		return
	}
	w.status = code
}

func (w *writer) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.c.Response.AppendBody(p)
	w.n += int64(len(p))
	return len(p), nil
}

// StreamBody hands a reader body to fasthttp, which reads it as it sends
// the answer, after the handler has returned, and closes it (an
// io.Closer). respond.Write calls it instead of copying the body.
func (w *writer) StreamBody(rd io.Reader) bool {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.c.Response.SetBodyStream(rd, -1)
	w.stream = true
	return true
}

// Status is the status written, 200 when none was (net/http's answer to
// a handler that writes nothing), for the engine forms of middleware.
func (w *writer) Status() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// Started reports whether the handler has written its status.
func (w *writer) Started() bool { return w.status != 0 }

// Written is the number of body bytes written.
func (w *writer) Written() int64 { return w.n }

// Discard drops what was written, for an answer that replaces it (a
// panic's 500).
func (w *writer) Discard() {
	w.status, w.n = 0, 0
	clear(w.header)
	w.c.Response.ResetBody()
	if w.stream {
		w.c.Response.SetBodyStream(nil, -1)
		w.stream = false
	}
}

// finish puts the status and headers into fasthttp's response, the
// header names in order, as net/http writes them.
func (w *writer) finish(keys []string) []string {
	resp := &w.c.Response
	resp.SetStatusCode(w.Status())
	keys = keys[:0]
	for k := range w.header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// The names are sent as the handler wrote them, as net/http sends
	// them (Header's methods make them canonical); fasthttp's normalizing
	// would copy each name byte by byte. The response's Reset, before the
	// next request, turns it on again.
	resp.Header.DisableNormalizing()
	for _, k := range keys {
		for _, v := range w.header[k] {
			resp.Header.Add(k, v)
		}
	}
	if _, ok := w.header["Content-Type"]; !ok && w.n > 0 {
		// net/http sniffs a body written without a Content-Type.
		resp.Header.SetContentType(http.DetectContentType(resp.Body()))
	}
	return keys
}

// writeProblem answers c with p, outside any handler: the engine's own
// answers to requests fasthttp could not read.
func writeProblem(c *fasthttp.RequestCtx, p *problem.Details) {
	c.Response.Reset()
	var w writer
	w.reset(c)
	problem.Write(&w, p)
	w.finish(nil)
}
