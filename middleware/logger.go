package middleware

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"time"
)

// Logger returns middleware that writes one record to logger
// (slog.Default() when nil) for every request, once its handler has
// returned: the message "request" with these attributes.
//
//	method      the request's method
//	route       the pattern of the route that matched ("/pets/{id}"), or
//	            "" when none did (404, 405, a redirect)
//	path        the request's path
//	status      the status sent (200 when the handler wrote nothing)
//	bytes       the body bytes sent (compressed ones, behind compression
//	            that runs inside Logger)
//	duration    from the request's arrival at Logger to its handler's return
//	request_id  the ID from [RequestID], when it runs before Logger
//	client      the address from [ClientIP]
//
// The level is Info, or Error for a 5xx status. The record is logged with
// the request's context, so a slog.Handler can add what it carries (a
// trace ID).
//
// A handler that panics gets a record too, with status 500 if the response
// had not started (the status [Recoverer] sends), panic=true and level
// Error; the panic then goes on to the middleware outside.
//
// The route is the request's Pattern as the router set it on the request
// Logger passed on: middleware between Logger and the router that pass on
// a derived request must copy it back (those of this package do) or sit
// after routing.
//
// The ResponseWriter the handler gets keeps the optional interfaces of the
// one Logger received: http.Flusher, http.Hijacker, io.ReaderFrom, and the
// rest through Unwrap for http.ResponseController.
func Logger(logger *slog.Logger) func(http.Handler) http.Handler {
	mw := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			rw := &responseWriter{ResponseWriter: w}
			panicked := true
			defer func() {
				logRequest(logger, r.Context(), requestRecord{
					method: r.Method, route: r.Pattern, path: r.URL.Path, start: start,
					status: rw.statusOr(http.StatusOK), started: rw.started(), bytes: rw.bytes,
					client: ClientIP(r), hijacked: rw.hijacked, panicked: panicked,
				})
			}()
			next.ServeHTTP(rw, r)
			panicked = false
		})
	}
	describe(mw, loggerForm(logger))
	return mw
}

// requestRecord is what Logger logs of one request.
type requestRecord struct {
	method, route, path string
	start               time.Time
	status              int // sent, or 200 when the handler wrote nothing
	started             bool
	bytes               int64
	client              netip.Addr
	hijacked, panicked  bool
}

// logRequest writes Logger's record of rec to logger (slog.Default()
// when nil), with ctx.
func logRequest(logger *slog.Logger, ctx context.Context, rec requestRecord) {
	l := logger
	if l == nil {
		l = slog.Default()
	}
	status := rec.status
	if rec.panicked && !rec.started {
		status = http.StatusInternalServerError
	}
	level := slog.LevelInfo
	if status >= 500 || rec.panicked {
		level = slog.LevelError
	}
	if !l.Enabled(ctx, level) {
		return
	}
	attrs := [10]slog.Attr{
		slog.String("method", rec.method),
		slog.String("route", rec.route),
		slog.String("path", rec.path),
		slog.Int("status", status),
		slog.Int64("bytes", rec.bytes),
		slog.Duration("duration", time.Since(rec.start)),
	}
	n := 6
	if id := RequestIDFrom(ctx); id != "" {
		attrs[n] = slog.String("request_id", id)
		n++
	}
	if rec.client.IsValid() {
		attrs[n] = slog.String("client", rec.client.String())
		n++
	}
	if rec.hijacked {
		attrs[n] = slog.Bool("hijacked", true)
		n++
	}
	if rec.panicked {
		attrs[n] = slog.Bool("panic", true)
		n++
	}
	l.LogAttrs(ctx, level, "request", attrs[:n]...)
}
