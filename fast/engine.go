package fast

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"runtime"
	"strings"
	"sync"

	"github.com/valyala/fasthttp"
	"github.com/vane-http/vane"
	"github.com/vane-http/vane/internal/engine"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/router"
)

// server is what the engine serves: the handler, and for a *vane.Router
// the native chain of each route that has one.
type server struct {
	router  *vane.Router   // nil when the handler is not a vane router
	mux     *router.Router // router's tree of routes
	handler http.Handler   // the whole handler as net/http serves it, for the adapter
	routes  []engine.Handler
	reasons []string // why a route has no native chain ("" when it has)
	base    context.Context
	limit   int64 // the server's body limit; 0: none
	logger  *slog.Logger
	recover engine.Middleware // the engine form of the server's Recoverer, around every native chain
	closing func() bool       // the server is draining: answers close their connections
	workers workers
	// tooLarge holds the headers of requests whose declared body is over
	// limit, from HeaderReceived until they are answered.
	tooLarge sync.Map // *fasthttp.RequestHeader -> struct{}
}

// setRouter makes r the router s serves.
func (s *server) setRouter(r *vane.Router) {
	s.router, s.mux = r, engine.Hooks.Mux(r)
}

// compile builds s's native chains: for each route of the router, the
// engine forms of its middleware around its typed operation, or the
// reason it has none, in which case the adapter serves it.
func (s *server) compile() {
	r := s.router
	if r == nil {
		return
	}
	routes := r.Routes()
	s.routes = make([]engine.Handler, len(routes))
	s.reasons = make([]string, len(routes))
	for i, rt := range routes {
		h, why := s.nativeChain(i, rt)
		s.routes[i], s.reasons[i] = h, why
	}
}

func (s *server) nativeChain(i int, rt vane.RouteInfo) (engine.Handler, string) {
	layers, registered := s.mux.Layers(i)
	h, opMws, why := engine.Hooks.Operation(s.router, rt.Method, rt.Pattern, registered)
	if h == nil {
		return nil, why
	}
	var forms []engine.Middleware
	for j, l := range layers {
		if l.Std == nil {
			return nil, fmt.Sprintf("middleware %d of %d (%s) is a UseFunc middleware, which has no engine form", j+1, len(layers), funcName(l.Func))
		}
		m, ok := engine.Native(l.Std)
		if !ok {
			return nil, fmt.Sprintf("middleware %d of %d (%s) has no engine form", j+1, len(layers), funcName(l.Std))
		}
		forms = append(forms, m)
	}
	for j, mw := range opMws {
		m, ok := engine.Native(mw)
		if !ok {
			return nil, fmt.Sprintf("its Middleware %d of %d (%s) has no engine form", j+1, len(opMws), funcName(mw))
		}
		forms = append(forms, m)
	}
	for j := len(forms) - 1; j >= 0; j-- {
		h = forms[j](h)
	}
	if s.recover != nil {
		h = s.recover(h)
	}
	return h, ""
}

func funcName(f any) string {
	if fn := runtime.FuncForPC(reflect.ValueOf(f).Pointer()); fn != nil {
		return fn.Name()
	}
	return fmt.Sprintf("%T", f)
}

// stateOf is the scratch state of c's connection, which serves one
// request at a time: made for its first request and kept with the
// connection. A request not read from the engine's listener (a test's)
// gets a new one.
func (s *server) stateOf(c *fasthttp.RequestCtx) *state {
	pc, ok := c.Conn().(*peerConn)
	if ok && pc.st != nil {
		return pc.st
	}
	max := 0
	if s.router != nil {
		max = s.mux.MaxParams()
	}
	st := &state{header: make(http.Header, 8), params: make([]string, max)}
	if ok {
		pc.st = st
	}
	return st
}

// serve is fasthttp's handler: every request the engine reads, handled,
// and its connection told that the answer follows.
func (s *server) serve(c *fasthttp.RequestCtx) {
	st := s.stateOf(c)
	s.handle(c, st)
	answered(c)
	if h := &c.Request.Header; st.lines > maxKeptLines || cap(h.RequestURI())+cap(h.RawHeaders()) > maxKeptBytes {
		// The request was large, or c is a RequestCtx that one was read
		// into before (fasthttp's copies of the request target and the
		// header block keep their largest capacity): a request that
		// fasthttp ended without the engine (its client closed it during
		// the body) left c grown in fasthttp's pool for this connection.
		forget(c)
	}
}

// maxKeptLines and maxKeptBytes are the most header lines, and bytes of
// request target and header block, a request may have for its connection
// to keep what reading them grew:
// the engine's state (the lines, their arena, the header map) and
// fasthttp's request (the slices of its header, which fasthttp keeps at
// their largest for the rest of the connection, and then in its pool for
// another). They grow by some 300 bytes a line and about twice the
// bytes: kept, a request of 64 KiB of short lines would leave its
// connection holding more than a megabyte while it stays open, and one of
// a 60 KB value some 130 KB. Browsers send some 15 to 30 lines and a few
// KiB (cookies), proxies add a few lines each.
const (
	maxKeptLines = 100
	maxKeptBytes = 16 << 10
)

// forget drops what a large request grew in c (this one, or one read
// into c before): the connection's state is made anew for its next
// request, and the answer is handed to fasthttp as a
// timed-out request's, with which fasthttp serves the rest of the
// connection from a new RequestCtx and never reuses this one. An answer
// that is not in c's response whole (a stream, a hijacked connection)
// cannot move: the connection is closed after it instead, and c goes
// back to fasthttp's pool.
func forget(c *fasthttp.RequestCtx) {
	if pc, ok := c.Conn().(*peerConn); ok {
		pc.st = nil
	}
	if c.Hijacked() || c.Response.IsBodyStream() {
		c.SetConnectionClose()
		return
	}
	if c.IsHead() {
		c.Response.SkipBody = true // the new RequestCtx's request is not a HEAD
	}
	c.TimeoutErrorWithResponse(&c.Response)
}

// answered tells c's connection that its answer follows (peerConn.answered).
func answered(c *fasthttp.RequestCtx) {
	if pc, ok := c.Conn().(*peerConn); ok {
		pc.answered()
	}
}

// handle serves the request c, with its connection's state st.
func (s *server) handle(c *fasthttp.RequestCtx, st *state) {
	st.read(c, s.base)
	r := &st.req
	if s.closing() {
		// Draining: every answer closes its connection (set once the
		// handler is done, so that no header of its undoes it).
		defer c.SetConnectionClose()
	}
	if !strings.HasPrefix(r.Proto, "HTTP/1.") {
		// As net/http: only HTTP/1.x is read from a connection.
		writeProblem(c, problem.New(http.StatusHTTPVersionNotSupported, "The server speaks HTTP/1.1 and HTTP/1.0."))
		c.SetConnectionClose()
		return
	}
	if st.hosts > 1 || st.hosts == 0 && r.Proto == "HTTP/1.1" && r.Method != http.MethodConnect {
		// RFC 9112 section 3.2, as net/http answers.
		writeProblem(c, problem.New(http.StatusBadRequest, "an HTTP/1.1 request needs one Host header"))
		c.SetConnectionClose()
		return
	}
	if s.limit > 0 && r.ContentLength > s.limit {
		s.tooLarge.Delete(&c.Request.Header)
		writeProblem(c, problem.New(http.StatusRequestEntityTooLarge,
			fmt.Sprintf("The request body is larger than the limit of %d bytes.", s.limit)))
		lingerAfter(c) // the unread body is not drained
		return
	}
	var b *body
	if r.ContentLength != 0 {
		b = &body{r: c.RequestBodyStream(), limit: s.limit}
		if b.r == nil {
			b.r = eofReader{}
		}
		r.Body = b
	} else {
		r.Body = http.NoBody
	}
	if s.router != nil && native(r.Path, r.RawQuery) {
		st.params = st.params[:cap(st.params)]
		if m, ok := s.mux.Lookup(r.Method, r.Path, st.params); ok && s.routes[m.Route] != nil {
			r.Pattern, r.Params = m.Pattern, st.params[:m.Params]
			s.serveNative(c, st, s.routes[m.Route])
			if b != nil {
				b.finish(c, r.ContentLength)
			}
			return
		}
	}
	s.serveAdapter(c, st, b)
}

// serveNative runs h, a route's native chain, for st.req.
func (s *server) serveNative(c *fasthttp.RequestCtx, st *state, h engine.Handler) {
	r := &st.req
	r.Header = st.fillHeader()
	r.Ctx = st.ctx
	cancel := st.ctx.cancel
	w := &st.w
	w.reset(c)
	defer func() {
		if v := recover(); v != nil {
			// Past the chain's Recoverer (http.ErrAbortHandler, or a
			// router served without one): as net/http, the connection
			// is closed without an answer.
			cancel()
			if err, ok := v.(error); !ok || !errors.Is(err, http.ErrAbortHandler) {
				s.logger.Error("fast: panic serving request", "method", r.Method, "path", r.Path, "panic", v)
			}
			w.Discard()
			w.c = nil
			c.HijackSetNoResponse(true)
			c.Hijack(func(net.Conn) {})
		}
	}()
	h(w, r)
	cancel()
	w.finish(&st.head)
	w.c = nil
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
