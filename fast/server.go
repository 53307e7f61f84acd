package fast

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/vane-http/vane"
	"github.com/vane-http/vane/internal/engine"
	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/problem"
)

// An Option configures the engine.
type Option struct{ apply func(*options) }

type options struct {
	strict   bool
	maxConns int
}

// Strict makes the engine refuse to start when a route of the router
// cannot be served natively (see Routes), with an error that names each
// such route and why, rather than serve it through the net/http adapter.
func Strict() Option { return Option{func(o *options) { o.strict = true }} }

// MaxConnections sets how many connections the engine serves at once
// (default DefaultMaxConnections): one more is answered 503 Service
// Unavailable, with a problem and Retry-After, and closed.
func MaxConnections(n int) Option { return Option{func(o *options) { o.maxConns = n }} }

// DefaultMaxConnections is how many connections the engine serves at
// once unless MaxConnections says otherwise: fasthttp's default.
const DefaultMaxConnections = fasthttp.DefaultConcurrency

// Serve serves handler on addr with the defaults of vane.Server, as
// vane.Serve does, on the fast engine.
func Serve(ctx context.Context, addr string, handler http.Handler, opts ...Option) error {
	return ListenAndServe(ctx, &vane.Server{Addr: addr, Handler: handler}, opts...)
}

// ListenAndServe listens on srv.Addr and serves srv.Handler on the fast
// engine, with srv's settings, as srv.ListenAndServe does on net/http's
// server (see vane.Server): the same limits, drain and shutdown.
func ListenAndServe(ctx context.Context, srv *vane.Server, opts ...Option) error {
	addr := srv.Addr
	if addr == "" {
		addr = ":http"
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return ServeListener(ctx, srv, ln, opts...)
}

// ServeListener is ListenAndServe on ln, which it closes.
func ServeListener(ctx context.Context, srv *vane.Server, ln net.Listener, opts ...Option) error {
	e, err := newEngine(ctx, srv, opts)
	if err != nil {
		ln.Close()
		return err
	}
	return engine.Hooks.Run(srv, ctx, ln, e)
}

// A Route is how the engine serves one route of a router.
type Route struct {
	Method  string
	Pattern string
	Native  bool   // served natively, without an *http.Request
	Reason  string // why not, when not
}

// Routes reports, for each route of r, whether the engine serves it
// natively or through the net/http adapter, and why.
func Routes(r *vane.Router) []Route {
	s := &server{}
	s.setRouter(r)
	s.compile()
	out := make([]Route, len(s.routes))
	for i, info := range r.Routes() {
		out[i] = Route{Method: info.Method, Pattern: info.Pattern, Native: s.routes[i] != nil, Reason: s.reasons[i]}
	}
	return out
}

// limitOf is vane.Server's reading of a setting: v, or def when v is
// zero, or 0 (no limit) when v < 0.
func limitOf[T time.Duration | int64](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// fastEngine is fasthttp's server with vane's handler, as Hooks.Run runs
// it.
type fastEngine struct {
	fs       *fasthttp.Server
	limits   timeouts // applied by each connection, not by fs
	maxConns int
	stop     chan struct{} // closed when shutdown begins: event streams end
	once     sync.Once
	conns    connSet

	mu sync.Mutex
	ln *listener // what Serve serves, once it was called
}

func newEngine(ctx context.Context, srv *vane.Server, opts []Option) (*fastEngine, error) {
	o := options{maxConns: DefaultMaxConnections}
	for _, opt := range opts {
		opt.apply(&o)
	}
	logger := srv.Logger
	if logger == nil {
		logger = slog.Default()
	}
	h := srv.Handler
	if h == nil {
		h = http.NotFoundHandler()
	}
	e := &fastEngine{stop: make(chan struct{}), maxConns: o.maxConns}
	recoverer := middleware.Recoverer(logger)
	s := &server{
		handler: recoverer(h),
		base:    engine.Hooks.BaseContext(context.WithoutCancel(ctx), e.stop),
		limit:   limitOf(srv.MaxBodyBytes, vane.DefaultMaxBodyBytes),
		logger:  logger,
		closing: srv.Draining,
	}
	s.recover, _ = engine.Native(recoverer)
	if r, ok := h.(*vane.Router); ok {
		if err := r.Check(); err != nil {
			return nil, err
		}
		s.setRouter(r)
		s.compile()
		if err := s.report(o.strict); err != nil {
			return nil, err
		}
	}
	headerTimeout := limitOf(srv.ReadHeaderTimeout, vane.DefaultReadHeaderTimeout)
	readTimeout := limitOf(srv.ReadTimeout, vane.DefaultReadTimeout)
	if readTimeout == 0 {
		readTimeout = 100 * 365 * 24 * time.Hour // none: fasthttp's header deadline must not stay on the body
	}
	// net/http reads up to MaxHeaderBytes plus 4096 bytes of request
	// line and headers; fasthttp reads them into one buffer, of that size.
	maxHeader := int(limitOf(int64(srv.MaxHeaderBytes), vane.DefaultMaxHeaderBytes))
	if maxHeader == 0 || maxHeader > 1<<20 {
		maxHeader = 1 << 20
	}
	maxHeader += 4096
	bodyLimit := int(s.limit)
	if bodyLimit == 0 {
		bodyLimit = 1<<31 - 1
	}
	// The header, idle and write deadlines are the connections' own
	// (deadline.go); fasthttp, given none, reads no clock for them.
	idle := limitOf(srv.IdleTimeout, vane.DefaultIdleTimeout)
	if idle == 0 {
		idle = headerTimeout // fasthttp's wait without IdleTimeout: its ReadTimeout, the headers'
	}
	e.limits = timeouts{header: headerTimeout, idle: idle, write: limitOf(srv.WriteTimeout, vane.DefaultWriteTimeout)}
	e.fs = &fasthttp.Server{
		Handler:      s.serve,
		ErrorHandler: s.errorHandler,
		HeaderReceived: func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
			if s.limit > 0 && int64(h.ContentLength()) > s.limit {
				// fasthttp reads the first bytes of a body before the
				// handler runs: a declared length over the limit is
				// answered 413 at once (errorHandler or handle), not
				// after waiting for a body that will not come.
				s.tooLarge.Store(h, struct{}{})
				return fasthttp.RequestConfig{ReadTimeout: time.Nanosecond}
			}
			if n := h.ContentLength(); n == 0 || n == -2 {
				// No body (-2: neither a length nor chunked): nothing is
				// read before the answer, so the headers' deadline may stay.
				return fasthttp.RequestConfig{}
			}
			return fasthttp.RequestConfig{ReadTimeout: readTimeout}
		},
		ReadBufferSize:                maxHeader,
		MaxRequestBodySize:            bodyLimit,
		StreamRequestBody:             true,
		DisablePreParseMultipartForm:  true,
		NoDefaultServerHeader:         true,
		NoDefaultContentType:          true,
		CloseOnShutdown:               true,
		SecureErrorLogMessage:         true,
		LazyRequestTime:               true, // no handler reads RequestCtx.Time
		Logger:                        fasthttpLogger{logger},
		DisableHeaderNamesNormalizing: false,
		Concurrency:                   o.maxConns, // the listener refuses more first, with a problem
	}
	return e, nil
}

// report logs how the routes are served; with strict, a route the
// adapter serves is an error.
func (s *server) report(strict bool) error {
	routes := s.router.Routes()
	var adapted []string
	for i, why := range s.reasons {
		if s.routes[i] == nil {
			adapted = append(adapted, routes[i].Method+" "+routes[i].Pattern+": "+why)
		}
	}
	if strict && len(adapted) > 0 {
		return fmt.Errorf("fast: %d of %d routes cannot be served natively:\n\t%s", len(adapted), len(routes), strings.Join(adapted, "\n\t"))
	}
	attrs := []any{slog.Int("native", len(routes)-len(adapted)), slog.Int("adapter", len(adapted))}
	if len(adapted) > 0 {
		attrs = append(attrs, slog.String("first", adapted[0]))
	}
	s.logger.Info("fast: routes", attrs...)
	return nil
}

// Serve serves on ln until Shutdown or Close, and then returns
// http.ErrServerClosed, as net/http's server does; also when they came
// first (fasthttp's Shutdown returns at once when its Serve has not begun,
// and its Serve then never ends: the listener closed here ends it).
func (e *fastEngine) Serve(ln net.Listener) error {
	l := &listener{Listener: ln, conns: &e.conns, max: e.maxConns, limits: &e.limits}
	e.mu.Lock()
	e.ln = l
	e.mu.Unlock()
	if e.stopping() {
		l.Close()
		return http.ErrServerClosed
	}
	err := e.fs.Serve(l)
	if e.stopping() {
		return http.ErrServerClosed
	}
	return err
}

func (e *fastEngine) stopping() bool {
	select {
	case <-e.stop:
		return true
	default:
		return false
	}
}

func (e *fastEngine) Shutdown(ctx context.Context) error {
	e.once.Do(func() { close(e.stop) })
	err := e.fs.ShutdownWithContext(ctx)
	e.closeListener()
	return err
}

func (e *fastEngine) Close() error {
	e.once.Do(func() { close(e.stop) })
	e.closeListener()
	e.conns.closeAll()
	return nil
}

func (e *fastEngine) closeListener() {
	e.mu.Lock()
	l := e.ln
	e.mu.Unlock()
	if l != nil {
		l.Close()
	}
}

// errorHandler answers what fasthttp could not read as a request, with a
// problem: 431 for headers over the limit, 413 for a body, 408 for a
// request that did not arrive in time, 400 for anything else.
func (s *server) errorHandler(c *fasthttp.RequestCtx, err error) {
	status, detail := http.StatusBadRequest, "The request could not be read."
	var small *fasthttp.ErrSmallBuffer
	var ne net.Error
	_, tooLarge := s.tooLarge.LoadAndDelete(&c.Request.Header)
	switch {
	case tooLarge:
		status, detail = http.StatusRequestEntityTooLarge, fmt.Sprintf("The request body is larger than the limit of %d bytes.", s.limit)
	case errors.As(err, &small):
		status, detail = http.StatusRequestHeaderFieldsTooLarge, "The request line and headers are larger than the server reads."
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		status, detail = http.StatusRequestEntityTooLarge, "The request body is larger than the server reads."
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, fasthttp.ErrTimeout):
		status, detail = http.StatusRequestTimeout, "The request did not arrive in time."
	}
	writeProblem(c, problem.New(status, detail))
	lingerAfter(c)
	answered(c)
	// fasthttp closes the connection after this answer, which it writes
	// from c's response alone, and puts c back in its pool for another
	// connection, which keeps it while it is open: a header grown by a
	// large request (maxKeptLines, maxKeptBytes), whose lines fasthttp
	// has already forgotten but whose slices it keeps, goes now.
	c.Request.Header = fasthttp.RequestHeader{}
}

// fasthttpLogger sends fasthttp's own records to the server's logger, at
// level Warn, as net/http's ErrorLog.
type fasthttpLogger struct{ l *slog.Logger }

func (f fasthttpLogger) Printf(format string, args ...any) {
	f.l.Warn(fmt.Sprintf(format, args...))
}

// listener wraps the server's listener: it makes each connection's peer
// address once (net/http's RemoteAddr), and keeps the open connections,
// for Close.
type listener struct {
	net.Listener
	conns  *connSet
	max    int
	limits *timeouts // each connection's deadlines
	once   sync.Once
}

// Close closes the listener once; a second Close (fasthttp's, after the
// engine's) is not an error.
func (l *listener) Close() error {
	var err error
	l.once.Do(func() { err = l.Listener.Close() })
	return err
}

func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.max > 0 && l.conns.len() >= l.max {
			go refuse(c)
			continue
		}
		pc := newPeerConn(c, c.RemoteAddr().String(), l.conns, l.limits)
		l.conns.add(pc)
		return pc, nil
	}
}

// overloaded is the answer to a connection past MaxConnections.
var overloaded = problem.NewFixed(problem.New(http.StatusServiceUnavailable,
	"The server is serving as many connections as it allows; retry after the Retry-After header's seconds.")).Body()

// refuse answers c 503, without reading its request, and closes it,
// lingering so that the client reads the answer.
func refuse(c net.Conn) {
	c.SetDeadline(time.Now().Add(lingerTime))
	fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\n"+
		"Retry-After: 1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(overloaded), overloaded)
	pc := newPeerConn(c, "", &connSet{}, nil)
	pc.linger.Store(true)
	pc.Close()
}

// peerConn is an accepted connection with its peer's address.
type peerConn struct {
	net.Conn
	peer   string
	set    *connSet
	closed atomic.Bool
	linger atomic.Bool // closed after an answer to a request whose body was left unread
	// The deadlines (deadline.go): the server's timeouts (nil: none of
	// the connection's own), the origin of the connection's clock, the
	// deadlines held and asked for, and whether the next read is the wait
	// for a request.
	limits   *timeouts
	start    time.Time
	read     lazyDeadline
	write    lazyDeadline
	waitNext atomic.Bool
	st       *state // the scratch of the request being served (stateOf)
}

// Close closes the connection; one closed after an answer to a request
// whose body was not read whole lingers, as net/http's do: its sending
// side is closed first and, for lingerTime, what the client still sends
// is read and dropped, so that the client reads the answer before it
// sees the connection end (a close with unread data would reset the
// connection, and the client's system drop the answer).
func (c *peerConn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	c.set.remove(c)
	if tc, ok := c.Conn.(*net.TCPConn); ok && c.linger.Load() {
		if err := tc.CloseWrite(); err == nil {
			go func() {
				tc.SetReadDeadline(time.Now().Add(lingerTime))
				io.Copy(io.Discard, io.LimitReader(tc, maxLinger))
				tc.Close()
			}()
			return nil
		}
	}
	return c.Conn.Close()
}

// How long, and how much, a connection closed with an unread body reads
// before it closes.
const (
	lingerTime = 500 * time.Millisecond
	maxLinger  = 4 << 20
)

// lingerAfter marks c's connection to linger when it closes.
func lingerAfter(c *fasthttp.RequestCtx) {
	if pc, ok := c.Conn().(*peerConn); ok {
		pc.linger.Store(true)
	}
	c.SetConnectionClose()
}

// connSet is the set of open connections.
type connSet struct {
	mu sync.Mutex
	m  map[*peerConn]struct{}
}

func (s *connSet) add(c *peerConn) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[*peerConn]struct{}{}
	}
	s.m[c] = struct{}{}
	s.mu.Unlock()
}

func (s *connSet) remove(c *peerConn) {
	s.mu.Lock()
	delete(s.m, c)
	s.mu.Unlock()
}

func (s *connSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

func (s *connSet) closeAll() {
	s.mu.Lock()
	list := make([]*peerConn, 0, len(s.m))
	for c := range s.m {
		list = append(list, c)
	}
	s.mu.Unlock()
	for _, c := range list {
		c.Close()
	}
}
