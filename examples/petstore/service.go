package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/klauspost/compress/gzhttp"
	"github.com/rs/cors"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/problem"
)

// options are the service's settings beyond its store and tokens.
type options struct {
	logger         *slog.Logger
	cursorKey      []byte         // signs the list cursors; replicas share it. Empty: a random key of this process
	trustedProxies []netip.Prefix // whose X-Forwarded-For is believed
	corsOrigins    []string       // origins whose browsers may call the API; none: no CORS headers
	timeout        time.Duration  // for each API request; 0: none
	ready          http.Handler   // the readiness probe's handler
}

// newService returns the whole service as one handler, in the order a
// request meets its parts:
//
//	RequestID         an ID for the request, from X-Request-Id or new
//	RealIP            the client's address, behind the trusted proxies only
//	Logger            one log line per request, when it is answered
//	gzip              (klauspost/compress/gzhttp) responses of 1 KiB or more
//	CORS              (rs/cors) for the configured origins, preflights included:
//	                  the headers the operations read and answer, from the document
//	router            /healthz and /readyz, then the API:
//	  Timeout         the API's requests only, after routing
//	  requireToken    the writing routes only
//
// The service keeps no state in the process: everything is in the
// database, so replicas that share one are interchangeable.
func newService(store *Store, tokens map[string]string, o options) *vane.Router {
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	r := vane.New()
	r.Use(
		middleware.RequestID,
		middleware.RealIP(middleware.RealIPConfig{TrustedProxies: o.trustedProxies}),
		middleware.Logger(o.logger),
	)
	r.Use(gzipped)

	// Liveness: the process answers. Readiness: it can serve (its database
	// answers, and it is not shutting down).
	r.HandleFunc(http.MethodGet, "/healthz", func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		io.WriteString(w, `{"status":"ok"}`+"\n")
	})
	ready := o.ready
	if ready == nil {
		ready = (&vane.Server{}).ReadinessHandler()
	}
	r.Handle(http.MethodGet, "/readyz", ready)

	api := r.Group("")
	if o.timeout > 0 {
		api.Use(middleware.Timeout(o.timeout))
	}
	api.Use(finishWhatStarts)
	a := registerAPI(api, store, tokens, o)
	// The event stream is served outside the API's Timeout: it lasts as
	// long as its client listens (or until the server shuts down).
	vane.Stream(r.Group("", vane.Middleware(a.acceptsEvents)), "/pets/events", eventTypes,
		a.serveEvents, vane.ID("petEvents"), vane.Summary("Follow changes to pets"), vane.Tags("pets"),
		vane.Responds(http.StatusNotAcceptable, "Accept does not accept text/event-stream."),
		vane.Description("Server-sent events: a created, updated or deleted event for each change, made through any replica, "+
			"in the order of the changes; a reconnecting client's Last-Event-ID replays what it missed. "+
			"A deleted pet's data is not replayed: its created and updated events are replayed as redacted events, "+
			"which hold its ID only."))
	// /pets/events has GET only: the other methods are answered 405, as the
	// document says, rather than reaching /pets/{id} with id "events".
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		r.Handle(m, "/pets/events", getOnly)
	}
	// OPTIONS says the same as the 405s (the router's own answer would
	// list /pets/{id}'s methods too, which match the path).
	r.Handle(http.MethodOptions, "/pets/events", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Allow", eventsAllow)
		w.WriteHeader(http.StatusNoContent)
	}))
	vane.Docs(r, docsConfig())
	if len(o.corsOrigins) > 0 {
		// Added once every operation is registered: the headers a page may
		// send and read are those the operations declare.
		exposed, allowed := r.CORSHeaders()
		r.Use(cors.New(cors.Options{
			AllowedOrigins: o.corsOrigins,
			AllowedMethods: []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete},
			AllowedHeaders: append(allowed, middleware.RequestIDHeader),
			ExposedHeaders: append(exposed, middleware.RequestIDHeader),
			MaxAge:         600,
		}).Handler)
	}
	return r
}

// finishWhatStarts gives the API's handlers a context that the client
// closing its side of the connection does not cancel, bounded by the
// request's deadline (Timeout's): net/http cancels a request's context
// when the client half-closes its connection, though such a client still
// reads the answer, and a write cancelled half-way would answer it 500.
// A request whose client is really gone finishes its queries within the
// deadline, and its answer is dropped.
func finishWhatStarts(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ctx := context.WithoutCancel(req.Context())
		if dl, ok := req.Context().Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, dl)
			defer cancel()
		}
		next.ServeHTTP(w, req.WithContext(ctx))
	})
}

// readiness is the readiness probe's handler: 503 while srv drains at
// shutdown, or while the database does not answer.
func readiness(srv *vane.Server, store *Store) http.Handler {
	return srv.ReadinessHandler(vane.ReadinessCheck{Name: "database", Check: store.Ping})
}

// gzipped compresses responses with gzhttp's defaults (bodies of at least
// 1 KiB, for clients that accept gzip, with Vary: Accept-Encoding), except
// images: they are compressed already, and a photo is served in byte
// ranges (Range), which apply to the bytes as they are sent. Were a photo
// sent gzipped whole, and in ranges of its plain bytes (gzhttp never
// compresses a 206), a client resuming a cut download with If-Range would
// join two different encodings under one ETag. A HEAD
// request is served as its GET, whose body net/http does not send, so
// that the two agree on Content-Encoding and Content-Length (RFC 9110
// section 9.3.2; gzhttp leaves HEAD uncompressed, and a handler may write
// no body for HEAD), and without Range, which is for GET only. The event
// stream keeps its HEAD: its GET never ends.
func gzipped(next http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(gzhttp.ContentTypeFilter(func(ct string) bool {
		return !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "image/") && gzhttp.DefaultContentTypeFilter(ct)
	}))
	if err != nil {
		panic(err) // the options are fixed: a test catches any error
	}
	gz := wrap(next)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodHead && req.URL.Path != "/pets/events" {
			r2 := *req
			r2.Method = http.MethodGet
			if req.Header["Range"] != nil {
				// Range is for GET only: the HEAD is answered as its GET
				// without it (RFC 9110 section 14.2).
				r2.Header = req.Header.Clone()
				r2.Header.Del("Range")
			}
			req = &r2
		}
		gz.ServeHTTP(w, req)
	})
}

// requestIDHandler is a slog.Handler that adds the request ID (from
// middleware.RequestID) to every record logged with a request's context,
// so that an error logged while serving a request can be matched with
// that request's log line.
type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := middleware.RequestIDFrom(ctx); id != "" {
		has := false
		r.Attrs(func(a slog.Attr) bool {
			has = a.Key == "request_id"
			return !has
		})
		if !has {
			r.AddAttrs(slog.String("request_id", id))
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(attrs)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}

// eventsAllow is the Allow header of /pets/events.
const eventsAllow = "GET, HEAD, OPTIONS"

// getOnly answers 405 Method Not Allowed for a path that has GET only.
var getOnly = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Allow", eventsAllow)
	problem.Write(w, problem.New(http.StatusMethodNotAllowed, "this path has GET only"))
})
