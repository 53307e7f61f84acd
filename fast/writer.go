package fast

import (
	"io"
	"net/http"

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

// finish puts the status and headers into fasthttp's response.
func (w *writer) finish(lines []headerLine) []headerLine {
	resp := &w.c.Response
	resp.SetStatusCode(w.Status())
	lines, typed := putHeader(&resp.Header, w.header, lines)
	if !typed && w.n > 0 {
		// net/http sniffs a body written without a Content-Type.
		resp.Header.SetContentType(http.DetectContentType(resp.Body()))
	}
	return lines
}

// headerLine is a name of a response header and its values.
type headerLine struct {
	name   string
	values []string
}

// putHeader puts h into fasthttp's response header rh as net/http's
// server writes a header: the names in sorted order, each as the handler
// wrote it (Header's methods make names canonical; net/http does not),
// line breaks in names and values made spaces (fasthttp's Add). It
// reports whether h has a Content-Type. lines is scratch, returned for
// the next call.
func putHeader(rh *fasthttp.ResponseHeader, h http.Header, lines []headerLine) ([]headerLine, bool) {
	lines = lines[:0]
	for k, vs := range h {
		// Sorted as they come: a header has a handful of names.
		i := len(lines)
		lines = append(lines, headerLine{})
		for ; i > 0 && lines[i-1].name > k; i-- {
			lines[i] = lines[i-1]
		}
		lines[i] = headerLine{k, vs}
	}
	// Names go out as they are; fasthttp's normalizing would rewrite
	// them. The response's Reset, before the next request, turns it on
	// again.
	rh.DisableNormalizing()
	typed := false
	for _, l := range lines {
		if l.name == "Content-Type" {
			typed = true
			if len(l.values) == 1 {
				// What Add does with it (line breaks made spaces), without
				// reading the name again.
				rh.SetContentType(l.values[0])
				continue
			}
		}
		for _, v := range l.values {
			rh.Add(l.name, v)
		}
	}
	clear(lines) // kept with the connection: no handler's values kept alive
	return lines, typed
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
