package main

import (
	"context"
	"net/http"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// vane-fasthttp is the prototype of docs/design/e2e-profile.md: vane's typed
// service, unchanged, served by fasthttp's server. Each request is turned
// into an *http.Request (fasthttpadaptor.ConvertRequest) and answered
// through a ResponseWriter that writes into fasthttp's response, on the
// goroutine that read it. (fasthttpadaptor.NewFastHTTPHandler runs every
// handler on a new goroutine, so that it can flush and hijack; a new
// goroutine's stack then grows again on every request.) It is not part of
// the e2e report: it measures what replacing net/http's server under an
// unchanged vane could gain, and supports no more than this service uses.
func serveVaneFastHTTP(ctx context.Context, addr string) error {
	h := vaneTyped()
	srv := &fasthttp.Server{
		Handler: func(c *fasthttp.RequestCtx) {
			var r http.Request
			if err := fasthttpadaptor.ConvertRequest(c, &r, true); err != nil {
				c.Error("Bad Request", fasthttp.StatusBadRequest)
				return
			}
			w := fastWriter{c: c, h: make(http.Header, 4)}
			h.ServeHTTP(&w, &r)
			if !w.wrote {
				w.WriteHeader(http.StatusOK)
			}
		},
		ReadTimeout: 5 * time.Second,
	}
	go func() {
		<-ctx.Done()
		srv.ShutdownWithContext(context.Background())
	}()
	return srv.ListenAndServe(addr)
}

// fastWriter is an http.ResponseWriter over a fasthttp response.
type fastWriter struct {
	c     *fasthttp.RequestCtx
	h     http.Header
	wrote bool
}

func (w *fastWriter) Header() http.Header { return w.h }

func (w *fastWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	w.c.SetStatusCode(code)
	for k, vs := range w.h {
		for _, v := range vs {
			w.c.Response.Header.Add(k, v)
		}
	}
}

func (w *fastWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.c.Write(p)
}
