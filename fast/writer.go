package fast

import (
	"io"
	"net/http"
	"strings"
	"unsafe"

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
	// bodyCT is the Content-Type SetBodyHeader took, sent with
	// X-Content-Type-Options: nosniff, and not yet in header: Header puts
	// both there before it returns it.
	bodyCT []string
	big    bigBody // the body past maxKeptBody bytes; empty after finish and Discard, one of which ends every request
}

func (w *writer) reset(c *fasthttp.RequestCtx) {
	w.c, w.status, w.n, w.stream, w.bodyCT = c, 0, 0, false, nil
	if w.header == nil {
		w.header = make(http.Header, 8)
	}
	clear(w.header)
}

func (w *writer) Header() http.Header {
	if w.bodyCT != nil {
		w.spillBodyHeader()
	}
	return w.header
}

// SetBodyHeader takes an encoded body's Content-Type, sent with
// X-Content-Type-Options: nosniff (respond.BodyHeaderSetter): when the
// header holds nothing else, finish puts both into fasthttp's response
// without the map.
func (w *writer) SetBodyHeader(ct []string) bool {
	w.bodyCT = ct
	return true
}

// spillBodyHeader puts the lines SetBodyHeader took into the header, as
// a handler setting them there would have.
func (w *writer) spillBodyHeader() {
	w.header["Content-Type"] = w.bodyCT
	w.header["X-Content-Type-Options"] = nosniff
	w.bodyCT = nil
}

var nosniff = []string{"nosniff"}

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
	w.big.write(&w.c.Response, w.n, p)
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
	w.status, w.n, w.bodyCT = 0, 0, nil
	clear(w.header)
	w.big.drop()
	w.c.Response.ResetBody()
	if w.stream {
		w.c.Response.SetBodyStream(nil, -1)
		w.stream = false
	}
}

// finish puts the status and headers into fasthttp's response; sc is
// the connection's scratch (nil: none).
func (w *writer) finish(sc *headerScratch) {
	resp := &w.c.Response
	w.big.settle(resp)
	resp.SetStatusCode(w.Status())
	if w.bodyCT != nil {
		if len(w.header) == 0 && len(w.bodyCT) == 1 {
			// The two lines alone, in net/http's (sorted) order, as
			// putHeader would put them.
			resp.Header.DisableNormalizing()
			resp.Header.SetContentType(w.bodyCT[0])
			resp.Header.SetCanonical(xContentTypeOptions, nosniffValue)
			return
		}
		w.spillBodyHeader()
	}
	typed := putHeader(&resp.Header, w.header, sc)
	if !typed && w.n > 0 {
		// net/http sniffs a body written without a Content-Type.
		resp.Header.SetContentType(http.DetectContentType(resp.Body()))
	}
}

// headerLine is a name of a response header and its values; plain
// when the name goes out as it is (plainName).
type headerLine struct {
	name   string
	values []string
	plain  bool
}

// plainName reports whether fasthttp's Add and SetCanonical put a value
// of the name alike into a response header that has none of it: the
// name is a token (Add changes no byte of it) and not Trailer (which
// Add adds to, and SetCanonical replaces).
func plainName(name string) bool {
	for i := 0; i < len(name); i++ {
		if upperToken[name[i]] == 0 {
			return false
		}
	}
	return name != "" && !strings.EqualFold(name, "Trailer")
}

// headerScratch is what putHeader keeps with a connection: its lines'
// backing, and the names of the header it put last, sorted, copied into
// a buffer of its own (no handler's string is kept). A service answers
// a route with the same names request after request: a header with
// those names is put in their order without reading the map whole.
type headerScratch struct {
	lines []headerLine
	names []byte // the names, one after another
	ends  []int  // where each name ends in names
	plain []bool // each name's plainName
}

// known fills sc.lines from h when h holds exactly the names of the
// header before, and reports whether it did.
func (sc *headerScratch) known(h http.Header) bool {
	if len(sc.ends) != len(h) || len(h) == 0 {
		return false
	}
	if cap(sc.lines) < len(sc.ends) {
		sc.lines = make([]headerLine, len(sc.ends))
	}
	sc.lines = sc.lines[:len(sc.ends)]
	start := 0
	for i, end := range sc.ends {
		name := sc.names[start:end]
		vs, ok := h[string(name)]
		if !ok {
			return false
		}
		l := &sc.lines[i]
		l.name, l.values, l.plain = unsafe.String(unsafe.SliceData(name), len(name)), vs, sc.plain[i]
		start = end
	}
	// len(h) names, each a different one of h's: all of them.
	return true
}

// remember keeps the names of sc.lines (sortedLines'), and which are
// plain, for known.
func (sc *headerScratch) remember() {
	sc.names, sc.ends, sc.plain = sc.names[:0], sc.ends[:0], sc.plain[:0]
	if len(sc.lines) > maxKnownNames {
		return
	}
	for _, l := range sc.lines {
		sc.names = append(sc.names, l.name...)
		sc.ends = append(sc.ends, len(sc.names))
		sc.plain = append(sc.plain, l.plain)
	}
}

// maxKnownNames is the most names of a header known remembers.
const maxKnownNames = 16

// putHeader puts h into fasthttp's response header rh as net/http's
// server writes a header: the names in sorted order, each as the handler
// wrote it (Header's methods make names canonical; net/http does not),
// line breaks in names and values made spaces (fasthttp's Add). It
// reports whether h has a Content-Type. sc is the connection's scratch,
// or nil.
func putHeader(rh *fasthttp.ResponseHeader, h http.Header, sc *headerScratch) bool {
	var lines []headerLine
	switch {
	case sc == nil:
		lines = sortedLines(make([]headerLine, 0, len(h)), h)
	case sc.known(h):
		lines = sc.lines
	default:
		lines = sortedLines(sc.lines[:0], h)
		sc.lines = lines
		sc.remember()
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
		if len(l.values) == 1 && l.plain {
			// Add, without reading the name again (the response holds
			// no other line of it).
			rh.SetCanonical(bytesOf(l.name), bytesOf(l.values[0]))
			continue
		}
		for _, v := range l.values {
			rh.Add(l.name, v)
		}
	}
	clear(lines) // kept with the connection: no handler's values kept alive
	return typed
}

// sortedLines appends h's lines to lines, sorted by name, with each
// name's plainName.
func sortedLines(lines []headerLine, h http.Header) []headerLine {
	for k, vs := range h {
		// Sorted as they come: a header has a handful of names.
		i := len(lines)
		lines = append(lines, headerLine{})
		for ; i > 0 && lines[i-1].name > k; i-- {
			lines[i] = lines[i-1]
		}
		lines[i] = headerLine{name: k, values: vs, plain: plainName(k)}
	}
	return lines
}

var xContentTypeOptions, nosniffValue = []byte("X-Content-Type-Options"), []byte("nosniff")

// bytesOf is s's bytes, for a call that only reads them.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// writeProblem answers c with p, outside any handler: the engine's own
// answers to requests fasthttp could not read.
func writeProblem(c *fasthttp.RequestCtx, p *problem.Details) {
	c.Response.Reset()
	var w writer
	w.reset(c)
	problem.Write(&w, p)
	w.finish(nil)
}
