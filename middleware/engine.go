package middleware

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/vane-http/vane/internal/engine"
)

// The engine forms of this package's middleware: what each does, for a
// server other than net/http's that serves vane's typed operations
// without an *http.Request (the fast engine, module
// github.com/vane-http/vane/fast). Each is recorded against the
// middleware value its constructor returns (describe), shares its state
// (a Throttle's slots, whichever engine serves) and its code, and keeps
// its documented behaviour: the same headers, context values, records
// and answers.

func init() {
	describe(RequestID, requestIDForm)
}

// describe records form as the engine form of mw.
func describe(mw func(http.Handler) http.Handler, form engine.Middleware) {
	engine.Describe(mw, form)
}

// engineWriter is what a server's native ResponseWriter tells of the
// answer written so far.
type engineWriter interface {
	Status() int    // the status written, 200 when none was
	Started() bool  // a status was written
	Written() int64 // body bytes written
}

// withContext runs next with r.Ctx set to ctx, and sets it back after.
func withContext(next engine.Handler, w http.ResponseWriter, r *engine.Request, ctx context.Context) {
	old := r.Ctx
	r.Ctx = ctx
	defer func() { r.Ctx = old }()
	next(w, r)
}

func requestIDForm(next engine.Handler) engine.Handler {
	return func(w http.ResponseWriter, r *engine.Request) {
		var id string
		if v := r.Header[RequestIDHeader]; len(v) > 0 {
			id = v[0]
		}
		if !validRequestID(id) {
			id = rand.Text()
		}
		w.Header().Set(RequestIDHeader, id)
		withContext(next, w, r, context.WithValue(r.Ctx, requestIDKey{}, id))
	}
}

func realIPForm(trusted []netip.Prefix, header string) engine.Middleware {
	return func(next engine.Handler) engine.Handler {
		return func(w http.ResponseWriter, r *engine.Request) {
			client := clientAddr(r.RemoteAddr, r.Header, trusted, header)
			if !client.IsValid() {
				next(w, r)
				return
			}
			withContext(next, w, r, context.WithValue(r.Ctx, clientIPKey{}, client))
		}
	}
}

func loggerForm(logger *slog.Logger) engine.Middleware {
	return func(next engine.Handler) engine.Handler {
		return func(w http.ResponseWriter, r *engine.Request) {
			start := time.Now()
			ew, ok := w.(engineWriter)
			var rw *responseWriter
			if !ok { // a writer another form wrapped
				rw = &responseWriter{ResponseWriter: w}
				w = rw
			}
			panicked := true
			defer func() {
				rec := requestRecord{method: r.Method, route: r.Pattern, path: r.Path, start: start, panicked: panicked}
				if ew != nil {
					rec.status, rec.started, rec.bytes = ew.Status(), ew.Started(), ew.Written()
				} else {
					rec.status, rec.started, rec.bytes = rw.statusOr(http.StatusOK), rw.started(), rw.bytes
				}
				if rec.client = ClientIPFrom(r.Ctx); !rec.client.IsValid() {
					rec.client = peerAddr(r.RemoteAddr)
				}
				logRequest(logger, r.Ctx, rec)
			}()
			next(w, r)
			panicked = false
		}
	}
}

func recovererForm(logger *slog.Logger) engine.Middleware {
	return func(next engine.Handler) engine.Handler {
		return func(w http.ResponseWriter, r *engine.Request) {
			ew, ok := w.(engineWriter)
			inner := w
			if !ok { // a writer another form wrapped
				rw := &responseWriter{ResponseWriter: w}
				ew, inner = rw, rw
			}
			defer func() {
				if v := recover(); v != nil {
					recovered(logger, v, ew.Started(), w, r.Ctx, r.Method, r.Path)
				}
			}()
			next(inner, r)
		}
	}
}

func timeoutForm(d time.Duration) engine.Middleware {
	return func(next engine.Handler) engine.Handler {
		return func(w http.ResponseWriter, r *engine.Request) {
			// The handler runs on a goroutine of its own, which may
			// outlive the request: it gets a copy of r that stays valid.
			r2 := r.Detach()
			serveTimeout(d, w, r.Ctx, r.Method == http.MethodHead, func(tw http.ResponseWriter, ctx context.Context) {
				r2.Ctx = ctx
				next(tw, r2)
			}, func() {})
		}
	}
}

func (t *throttle) form(next engine.Handler) engine.Handler {
	return func(w http.ResponseWriter, r *engine.Request) {
		if !t.acquire(w, r.Ctx) {
			return
		}
		defer t.release()
		next(w, r)
	}
}
