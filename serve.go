package vane

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/problem"
)

// Defaults of [Server], chosen so that a slow or hostile client cannot hold
// a connection or memory for long, while ordinary APIs are not constrained.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 60 * time.Second
	DefaultWriteTimeout      = 60 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultShutdownTimeout   = 30 * time.Second
	DefaultMaxHeaderBytes    = 64 << 10 // 64 KiB of request line and headers
	DefaultMaxBodyBytes      = 32 << 20 // 32 MiB; typed operations apply their own, smaller limit
)

// Serve serves handler on addr (such as ":8080") with the defaults of
// [Server] until ctx is cancelled or the process receives SIGINT or SIGTERM,
// then shuts down gracefully: it stops accepting connections and waits for
// the requests in flight to finish, for at most DefaultShutdownTimeout.
// A service behind a load balancer sets [Server.DrainDelay] too.
//
// It returns nil after a graceful shutdown and the listener's error
// otherwise (an address already in use, for one).
//
//	if err := vane.Serve(ctx, ":8080", r); err != nil {
//		log.Fatal(err)
//	}
func Serve(ctx context.Context, addr string, handler http.Handler) error {
	return (&Server{Addr: addr, Handler: handler}).ListenAndServe(ctx)
}

// Server is the configuration of [Serve]. A zero field takes its default
// (the Default… constants); Off (any negative duration or size) means no
// limit.
//
// Every request passes, before the handler, through:
//   - a body limit: a request whose Content-Length exceeds MaxBodyBytes is
//     answered 413 at once, and reading more than MaxBodyBytes of any body
//     fails (http.MaxBytesError), which typed operations report as 413;
//   - [middleware.Recoverer]: a panic becomes a 500 problem+json response
//     and an Error log record with the stack.
//
// Shutdown follows the order a load balancer, and Kubernetes, expect. When
// ctx is cancelled or a signal arrives:
//
//  1. the server starts draining: [Server.Draining] reports true and the
//     handler of [Server.ReadinessHandler] answers 503 at once; every
//     response carries Connection: close (a GOAWAY on HTTP/2), so that
//     clients with keep-alive connections reconnect, to other replicas once
//     the balancer has taken this one out;
//  2. for DrainDelay it goes on serving every request, new connections
//     included, while the balancer notices;
//  3. then the listener closes, and the requests in flight finish, for at
//     most ShutdownTimeout, after which their connections are closed.
//
// A second signal during the drain delay ends it early.
type Server struct {
	Addr    string
	Handler http.Handler

	ReadHeaderTimeout time.Duration // reading the request line and headers
	ReadTimeout       time.Duration // reading the whole request, body included
	WriteTimeout      time.Duration // from the end of the headers to the end of the response; a download moves it on by as much before each chunk (docs/guide/downloads.md)
	IdleTimeout       time.Duration // a keep-alive connection waiting for its next request
	ShutdownTimeout   time.Duration // waiting for requests in flight once the listener is closed
	MaxHeaderBytes    int           // request line and headers
	MaxBodyBytes      int64         // each request body

	// Signals end the server like ctx's cancellation; none given means
	// SIGINT and SIGTERM.
	Signals []os.Signal

	// NoSignals listens for no signal, whatever Signals holds: only ctx
	// ends the server (a program that handles signals itself, a test).
	NoSignals bool

	// Logger receives the server's records (start, shutdown, panics, and
	// net/http's own errors); nil means slog.Default().
	Logger *slog.Logger

	// OnListen, if set, is called with the listener's address once the
	// server accepts connections (useful with Addr ":0").
	OnListen func(net.Addr)

	// DrainDelay is how long the server goes on serving, with readiness
	// failing, between the start of shutdown and the closing of its
	// listener: the time its load balancer needs to stop sending it new
	// requests. In Kubernetes, removing a terminating pod from a Service's
	// endpoints takes a few seconds to reach every node and ingress; 5 to
	// 15 seconds is usual, and terminationGracePeriodSeconds must exceed
	// DrainDelay + ShutdownTimeout. Zero (the default) or negative: the
	// listener closes at once.
	DrainDelay time.Duration

	draining atomic.Bool
}

// Draining reports whether s has begun to shut down: true from the moment
// its context is cancelled or a signal arrives, through the drain delay,
// until Serve returns; false before and while it serves normally. It is
// safe to call from any goroutine, handlers included.
func (s *Server) Draining() bool { return s.draining.Load() }

// ReadinessCheck is one dependency a readiness probe checks, such as a
// database: Check returns nil when the service can use it.
type ReadinessCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

// ReadinessHandler returns the handler of a readiness probe (GET /readyz),
// which tells a load balancer whether to send this server requests:
//
//   - while s is draining ([Server.Draining]), 503 Service Unavailable
//     with an application/problem+json body and Retry-After, at once and
//     without running the checks;
//   - when a check returns an error, 503 (with Retry-After) with a
//     problem body whose detail names the check; the error itself, which may name hosts or users,
//     goes to s's Logger at level Warn, not to the client;
//   - otherwise 200 with {"status":"ready","checks":{"database":"ok"}}
//     (checks listed by name).
//
// The checks run one after the other with the request's context, so a
// probe that gives up (its timeout) cancels them; a check should be quick,
// such as a database ping. Every answer carries Cache-Control: no-store.
//
// A liveness probe (GET /healthz) should not use it: a process that is
// draining, or whose database is down, is alive and must not be restarted.
func (s *Server) ReadinessHandler(checks ...ReadinessCheck) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if s.Draining() {
			problem.Write(w, problem.New(http.StatusServiceUnavailable, "not ready: the server is shutting down"))
			return
		}
		var ok bytes.Buffer
		ok.WriteString(`{"status":"ready","checks":{`)
		for i, c := range checks {
			if err := c.Check(r.Context()); err != nil {
				s.logger().WarnContext(r.Context(), "vane: readiness check failed",
					slog.String("check", c.Name), slog.Any("error", err))
				problem.Write(w, problem.New(http.StatusServiceUnavailable, "not ready: "+c.Name+" check failed"))
				return
			}
			if i > 0 {
				ok.WriteByte(',')
			}
			name, _ := json.Marshal(c.Name)
			ok.Write(name)
			ok.WriteString(`:"ok"`)
		}
		ok.WriteString("}}\n")
		w.Header().Set("Content-Type", "application/json")
		w.Write(ok.Bytes()) //nolint:errcheck // the client went away; nothing to do
	})
}

// signals returns the signals that end s: none for NoSignals, else
// Signals, or SIGINT and SIGTERM when it lists none.
func (s *Server) signals() []os.Signal {
	switch {
	case s.NoSignals:
		return nil
	case len(s.Signals) == 0:
		return []os.Signal{os.Interrupt, syscall.SIGTERM}
	}
	return s.Signals
}

func (s *Server) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// ListenAndServe listens on s.Addr and serves until ctx is cancelled or a
// signal arrives; see [Serve].
func (s *Server) ListenAndServe(ctx context.Context) error {
	addr := s.Addr
	if addr == "" {
		addr = ":http"
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln, which it closes, until ctx is cancelled or a signal
// arrives; see [Serve].
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	logger := s.logger()
	h := s.Handler
	if h == nil {
		h = http.NotFoundHandler()
	}
	fail := func(w http.ResponseWriter, _ *http.Request, p *problem.Details) { problem.Write(w, p) }
	if r, ok := h.(*Router); ok {
		if err := r.Check(); err != nil {
			return err
		}
		fail = func(w http.ResponseWriter, req *http.Request, p *problem.Details) { r.WriteError(w, req, p) }
	}
	h = middleware.Recoverer(logger)(h)
	if limit := limitOf(s.MaxBodyBytes, DefaultMaxBodyBytes); limit > 0 {
		h = limitBody(limit, h, fail)
	}
	h = s.closeWhileDraining(h)

	stopStreams := make(chan struct{})
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: limitOf(s.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		ReadTimeout:       limitOf(s.ReadTimeout, DefaultReadTimeout),
		WriteTimeout:      limitOf(s.WriteTimeout, DefaultWriteTimeout),
		IdleTimeout:       limitOf(s.IdleTimeout, DefaultIdleTimeout),
		MaxHeaderBytes:    int(limitOf(int64(s.MaxHeaderBytes), DefaultMaxHeaderBytes)),
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		// Handlers keep ctx's values but not its cancellation: a shutdown
		// lets the requests in flight finish.
		BaseContext: func(net.Listener) context.Context {
			return context.WithValue(context.WithoutCancel(ctx), shutdownKey{}, (<-chan struct{})(stopStreams))
		},
	}
	srv.RegisterOnShutdown(func() { close(stopStreams) }) // event streams end when shutdown begins
	if srv.MaxHeaderBytes == 0 {
		srv.MaxHeaderBytes = 1 << 30 // "no limit"; net/http treats 0 as its default
	}
	return s.run(ctx, ln, srv)
}

// engineServer is a server s runs: net/http's, or another engine's (the
// fast engine runs its own through engine.Hooks.Run).
type engineServer interface {
	Serve(ln net.Listener) error
	Shutdown(ctx context.Context) error // graceful: stop accepting, finish what is in flight
	Close() error                       // at once
}

// run serves e on ln until ctx is cancelled or a signal arrives, then
// shuts it down in the order Server documents: draining, the drain delay,
// then a graceful shutdown bounded by ShutdownTimeout.
func (s *Server) run(ctx context.Context, ln net.Listener, e engineServer) error {
	logger := s.logger()
	s.draining.Store(false)
	sigc := make(chan os.Signal, 1)
	if sigs := s.signals(); sigs != nil {
		signal.Notify(sigc, sigs...)
		defer signal.Stop(sigc)
	}

	errc := make(chan error, 1)
	go func() { errc <- e.Serve(ln) }()
	logger.InfoContext(ctx, "vane: serving", slog.String("addr", ln.Addr().String()))
	if s.OnListen != nil {
		s.OnListen(ln.Addr())
	}

	select {
	case err := <-errc: // the listener failed
		return err
	case <-ctx.Done():
	case sig := <-sigc:
		logger.Info("vane: signal received", slog.String("signal", sig.String()))
	}

	// Readiness fails from now on, and responses close their connections
	// (closeWhileDraining), so that clients reconnect elsewhere.
	s.draining.Store(true)
	defer s.draining.Store(false)
	if s.DrainDelay > 0 {
		logger.Info("vane: draining: readiness fails; the listener closes after the drain delay",
			slog.Duration("drain_delay", s.DrainDelay))
		t := time.NewTimer(s.DrainDelay)
		select {
		case <-t.C:
		case <-sigc:
			logger.Info("vane: second signal: ending the drain delay")
		case err := <-errc:
			t.Stop()
			return err
		}
		t.Stop()
	}
	logger.Info("vane: shutting down, finishing requests in flight")
	wait := limitOf(s.ShutdownTimeout, DefaultShutdownTimeout)
	sctx := context.Background()
	if wait > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(sctx, wait)
		defer cancel()
	}
	if err := e.Shutdown(sctx); err != nil {
		e.Close()
		logger.Warn("vane: shutdown timed out; connections closed", slog.Any("error", err))
		return err
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("vane: stopped")
	return nil
}

// closeWhileDraining makes every response sent while s drains close its
// connection (Connection: close; a GOAWAY on HTTP/2), so that a client
// with a keep-alive connection reconnects, through the load balancer, to
// another replica. Idle connections are left open until the listener
// closes: closing one while its client sends a request on it would lose
// that request.
func (s *Server) closeWhileDraining(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.draining.Load() {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}

// limitBody refuses a declared body over limit with 413 and caps the bytes
// any body yields. Requests without a body (GET, most often) pass untouched
// and cost nothing. The capped body goes to a shallow copy of the request:
// net/http's own request keeps its body, by which the server knows whether
// a client that sent Expect: 100-continue was asked for its body (a
// response to one that was not is sent at once, and the connection
// closed, instead of waiting for a body the client holds back).
func limitBody(limit int64, next http.Handler, fail func(http.ResponseWriter, *http.Request, *problem.Details)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			if r.ContentLength > limit {
				w.Header().Set("Connection", "close") // the unread body is not drained
				fail(w, r, problem.New(http.StatusRequestEntityTooLarge,
					"The request body is larger than the limit of "+strconv.FormatInt(limit, 10)+" bytes."))
				return
			}
			r2 := new(http.Request)
			*r2 = *r
			r2.Body = http.MaxBytesReader(w, r.Body, limit)
			r = r2
		}
		next.ServeHTTP(w, r)
	})
}

// limitOf returns v, or def when v is zero, or 0 (no limit) when v < 0.
func limitOf[T time.Duration | int64](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}
