package vane

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/vane-http/vane/middleware"
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
// (the Default… constants); a negative duration or size means no limit.
//
// Every request passes, before the handler, through:
//   - a body limit: a request whose Content-Length exceeds MaxBodyBytes is
//     answered 413 at once, and reading more than MaxBodyBytes of any body
//     fails (http.MaxBytesError), which typed operations report as 413;
//   - [middleware.Recoverer]: a panic becomes a 500 problem+json response
//     and an Error log record with the stack.
type Server struct {
	Addr    string
	Handler http.Handler

	ReadHeaderTimeout time.Duration // reading the request line and headers
	ReadTimeout       time.Duration // reading the whole request, body included
	WriteTimeout      time.Duration // from the end of the headers to the end of the response
	IdleTimeout       time.Duration // a keep-alive connection waiting for its next request
	ShutdownTimeout   time.Duration // waiting for requests in flight at shutdown
	MaxHeaderBytes    int           // request line and headers
	MaxBodyBytes      int64         // each request body

	// Signals end the server like ctx's cancellation; nil means SIGINT and
	// SIGTERM. Use an empty, non-nil slice to listen for none.
	Signals []os.Signal

	// Logger receives the server's records (start, shutdown, panics, and
	// net/http's own errors); nil means slog.Default().
	Logger *slog.Logger

	// OnListen, if set, is called with the listener's address once the
	// server accepts connections (useful with Addr ":0").
	OnListen func(net.Addr)
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
	logger := s.Logger
	if logger == nil {
		logger = slog.Default()
	}
	sigs := s.Signals
	if sigs == nil {
		sigs = []os.Signal{os.Interrupt, syscall.SIGTERM}
	}
	if len(sigs) > 0 {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, sigs...)
		defer stop()
	}

	h := s.Handler
	if h == nil {
		h = http.NotFoundHandler()
	}
	h = middleware.Recoverer(logger)(h)
	if limit := limitOf(s.MaxBodyBytes, DefaultMaxBodyBytes); limit > 0 {
		h = limitBody(limit, h)
	}

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
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if srv.MaxHeaderBytes == 0 {
		srv.MaxHeaderBytes = 1 << 30 // "no limit"; net/http treats 0 as its default
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	logger.InfoContext(ctx, "vane: serving", slog.String("addr", ln.Addr().String()))
	if s.OnListen != nil {
		s.OnListen(ln.Addr())
	}

	select {
	case err := <-errc: // the listener failed
		return err
	case <-ctx.Done():
	}
	logger.Info("vane: shutting down, finishing requests in flight")
	wait := limitOf(s.ShutdownTimeout, DefaultShutdownTimeout)
	sctx := context.Background()
	if wait > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(sctx, wait)
		defer cancel()
	}
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		logger.Warn("vane: shutdown timed out; connections closed", slog.Any("error", err))
		return err
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("vane: stopped")
	return nil
}

// limitBody refuses a declared body over limit with 413 and caps the bytes
// any body yields. Requests without a body (GET, most often) pass untouched
// and cost nothing.
func limitBody(limit int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			if r.ContentLength > limit {
				writeTooLarge(w, limit)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		next.ServeHTTP(w, r)
	})
}

func writeTooLarge(w http.ResponseWriter, limit int64) {
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Connection", "close") // the unread body is not drained
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	io.WriteString(w, `{"type":"about:blank","title":"Request Entity Too Large","status":413,`+
		`"detail":"The request body is larger than the limit of `+strconv.FormatInt(limit, 10)+` bytes."}`+"\n")
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
