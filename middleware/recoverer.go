package middleware

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/vane-http/vane/problem"
)

// problem500 is the response to a panic: an RFC 9457 problem that says
// nothing about the cause, which goes to the log instead.
var problem500 = problem.NewFixed(problem.New(http.StatusInternalServerError, "The server could not complete the request."))

// Recoverer returns middleware that turns a panic in the handler into a 500
// application/problem+json response and one log record at level Error on
// logger (slog.Default() when nil) with the method, path, panic value and
// stack.
//
// If the handler had already started its response when it panicked, the
// status can no longer change: the response is cut short instead (the
// connection is closed, as net/http does for http.ErrAbortHandler), so the
// client sees a truncated response rather than a complete-looking one.
// A panic with http.ErrAbortHandler itself is passed on unlogged: it is how
// a handler asks net/http to abort the response.
func Recoverer(logger *slog.Logger) func(http.Handler) http.Handler {
	mw := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// One small allocation per request; not pooled, because a
			// handler that (wrongly) writes after returning would then write
			// into another request's response.
			rw := &responseWriter{ResponseWriter: w}
			defer func() {
				if v := recover(); v != nil {
					recovered(logger, v, rw.started(), w, r.Context(), r.Method, r.URL.Path)
				}
			}()
			next.ServeHTTP(rw, r)
		})
	}
	describe(mw, recovererForm(logger))
	return mw
}

// recovered is Recoverer's answer to the panic v of a handler of the
// request (method, path) whose writer is w (wrote: the response has
// started): http.ErrAbortHandler panics on; anything else is logged and
// answered 500, or, when the response has started, becomes an
// http.ErrAbortHandler panic.
func recovered(logger *slog.Logger, v any, wrote bool, w http.ResponseWriter, ctx context.Context, method, path string) {
	if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
		panic(v)
	}
	l := logger
	if l == nil {
		l = slog.Default()
	}
	l.ErrorContext(ctx, "panic serving request",
		slog.String("method", method),
		slog.String("path", path),
		slog.Any("panic", v),
		slog.String("stack", string(debug.Stack())))
	if wrote {
		panic(http.ErrAbortHandler)
	}
	h := w.Header()
	for k := range h {
		delete(h, k) // drop what the handler had set
	}
	h.Set("Cache-Control", "no-store")
	problem500.Write(w)
}
