package fast

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/vane-http/vane/problem"
)

// The adapter serves what the native path does not, with the handler as
// net/http serves it: an *http.Request of the request (every field a copy
// the handler may keep) and a ResponseWriter over fasthttp's response.
// The handler runs on a worker goroutine (a pool of long-lived ones, so
// that their stacks, which go-json grows deep, are kept), while the
// connection's goroutine waits: for the handler to return, and the
// answer is then sent whole, or for its first Flush, and the rest of the
// answer is then streamed (chunked) as it comes.

// serveAdapter serves st.req with s.handler.
func (s *server) serveAdapter(c *fasthttp.RequestCtx, st *state, b *body) {
	hr, err := st.httpRequest(b)
	if err != nil {
		if b != nil {
			b.finish(c, st.req.ContentLength)
		}
		writeProblem(c, problem.New(http.StatusBadRequest, "The request target is malformed."))
		c.SetConnectionClose()
		return
	}
	hr = hr.WithContext(st.ctx)
	cancel := st.ctx.cancel
	w := &adapterWriter{c: c, header: make(http.Header), events: make(chan any, 1)}
	s.workers.run(func() {
		defer func() {
			v := recover()
			cancel()
			if err, ok := v.(error); v != nil && (!ok || !errors.Is(err, http.ErrAbortHandler)) {
				s.logger.Error("fast: panic serving request", "method", hr.Method, "path", hr.URL.Path, "panic", v)
			}
			w.handlerDone(v)
		}()
		s.handler.ServeHTTP(w, hr)
	})
	switch (<-w.events).(type) {
	case flushed: // stream the rest
		if b != nil {
			b.finish(c, st.req.ContentLength) // a body is not read once the answer has begun
		}
		w.stream()
	case panicked:
		if b != nil {
			b.finish(c, st.req.ContentLength)
		}
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
		// A panic that reached here is http.ErrAbortHandler, or one
		// past a Recoverer: as net/http, the connection is closed
		// without an answer.
		c.HijackSetNoResponse(true)
		c.Hijack(func(net.Conn) {})
	default: // returned
		if b != nil {
			b.finish(c, st.req.ContentLength)
		}
		w.mu.Lock()
		w.done = true
		w.finish()
		w.mu.Unlock()
	}
}

// httpRequest builds the *http.Request of st.req as net/http's server
// reads one, with body b (nil: none).
func (st *state) httpRequest(b *body) (*http.Request, error) {
	r := &st.req
	raw := r.RequestURI
	authority := r.Method == http.MethodConnect && !strings.HasPrefix(raw, "/")
	if authority {
		raw = "http://" + raw
	}
	u, err := url.ParseRequestURI(raw)
	if err != nil {
		return nil, err
	}
	if authority {
		u.Scheme = ""
	}
	hr := &http.Request{
		Method: r.Method, URL: u, Proto: r.Proto, ProtoMajor: 1, ProtoMinor: 1,
		Header: st.newHeader(), ContentLength: r.ContentLength, Host: u.Host,
		RemoteAddr: r.RemoteAddr, RequestURI: r.RequestURI, Body: http.NoBody,
	}
	if r.Proto == "HTTP/1.0" {
		hr.ProtoMinor = 0
	}
	if hr.Host == "" {
		hr.Host = r.Host
	}
	if b != nil {
		hr.Body = b
	}
	if st.chunk {
		hr.TransferEncoding = []string{"chunked"}
	}
	conn := strings.ToLower(strings.Join(hr.Header["Connection"], ","))
	hr.Close = strings.Contains(conn, "close") || hr.ProtoMinor == 0 && !strings.Contains(conn, "keep-alive")
	if pragma := hr.Header["Pragma"]; len(pragma) > 0 && pragma[0] == "no-cache" && hr.Header["Cache-Control"] == nil {
		hr.Header["Cache-Control"] = []string{"no-cache"} // as net/http does
	}
	return hr, nil
}

// What a handler on a worker tells the connection's goroutine, once.
type (
	flushed  struct{}
	panicked struct{ v any }
	returned struct{}
)

// adapterWriter is the adapter's http.ResponseWriter. Until the first
// Flush it writes into fasthttp's response, which the connection's
// goroutine sends when the handler returns; from the first Flush on it
// writes to fasthttp's stream writer. Every use of fasthttp's response
// happens under mu, and none once the request is done: a handler's
// goroutine that writes late gets http.ErrHandlerTimeout-like errors,
// never another request's response.
type adapterWriter struct {
	c      *fasthttp.RequestCtx
	header http.Header
	events chan any // flushed, panicked or returned: the first of them

	mu        sync.Mutex
	status    int
	n         int64
	done      bool          // the request is over: nothing is written any more
	streaming bool          // Flush was called
	bw        *bufio.Writer // the stream, once fasthttp gave it
	attached  chan *bufio.Writer
	ended     chan struct{} // closed when the handler returns, after a Flush
	sent      bool          // an event was sent
	panicked  bool          // the handler panicked
	big       bigBody       // the body past maxKeptBody bytes, before a Flush
}

func (w *adapterWriter) Header() http.Header { return w.header }

func (w *adapterWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status != 0 || code < 200 || w.done {
		return
	}
	w.status = code
}

func (w *adapterWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return 0, http.ErrHandlerTimeout
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.bw != nil {
		n, err := w.bw.Write(p)
		w.n += int64(n)
		return n, err
	}
	w.big.write(&w.c.Response, w.n, p)
	w.n += int64(len(p))
	return len(p), nil
}

// Flush sends what was written: the first Flush hands the answer's
// status and headers to fasthttp, which sends them and then the body as
// the handler writes it.
func (w *adapterWriter) Flush() { w.FlushError() }

// FlushError is Flush, reporting a failed write (the client went away).
func (w *adapterWriter) FlushError() error {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return http.ErrHandlerTimeout
	}
	if w.bw != nil {
		err := w.bw.Flush()
		w.mu.Unlock()
		return err
	}
	if w.streaming {
		w.mu.Unlock()
		return nil
	}
	w.streaming = true
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.attached, w.ended = make(chan *bufio.Writer, 1), make(chan struct{})
	w.sent = true
	w.mu.Unlock()
	w.events <- flushed{}
	bw := <-w.attached // fasthttp's stream writer, once it sends the headers
	w.mu.Lock()
	defer w.mu.Unlock()
	w.bw = bw
	return bw.Flush()
}

// handlerDone is called on the worker when the handler has returned (v:
// what it panicked with, or nil).
func (w *adapterWriter) handlerDone(v any) {
	w.mu.Lock()
	sent, streaming := w.sent, w.streaming
	w.sent = true
	w.panicked = v != nil
	if streaming {
		if w.bw != nil {
			w.bw.Flush() //nolint:errcheck // the client went away
		}
		w.done = true
	}
	w.mu.Unlock()
	switch {
	case streaming:
		close(w.ended)
	case sent:
	case v != nil:
		w.events <- panicked{v}
	default:
		w.events <- returned{}
	}
}

// finish puts the status and headers into fasthttp's response (mu held).
func (w *adapterWriter) finish() {
	resp := &w.c.Response
	w.big.settle(resp)
	if w.status == 0 {
		w.status = http.StatusOK
	}
	resp.SetStatusCode(w.status)
	typed := putHeader(&resp.Header, w.header, nil)
	if !typed && w.n > 0 && !w.streaming {
		resp.Header.SetContentType(http.DetectContentType(resp.Body()))
	}
}

// stream hands the answer, from the first Flush on, to fasthttp's stream
// writer: the headers now, then what was written before the Flush, then
// whatever the handler writes, until it returns.
func (w *adapterWriter) stream() {
	w.mu.Lock()
	w.big.settle(&w.c.Response)
	pending := append([]byte(nil), w.c.Response.Body()...)
	w.finish()
	w.mu.Unlock()
	w.c.SetBodyStreamWriter(func(bw *bufio.Writer) {
		if _, err := bw.Write(pending); err == nil {
			err = bw.Flush()
		}
		w.attached <- bw
		<-w.ended
		if w.panicked {
			// As net/http: the client sees the answer cut short, not
			// ended as if complete.
			w.c.Conn().Close()
		}
	})
}

// workers is a pool of long-lived goroutines for the adapter's handlers:
// the most recently idle first, so that the few in use keep their grown
// stacks; one idle for idleWorker exits.
type workers struct {
	mu   sync.Mutex
	idle []*worker
}

type worker struct{ work chan func() }

const idleWorker = 10 * time.Second

func (p *workers) run(f func()) {
	p.mu.Lock()
	var w *worker
	if n := len(p.idle); n > 0 {
		w = p.idle[n-1]
		p.idle = p.idle[:n-1]
	}
	p.mu.Unlock()
	if w == nil {
		w = &worker{work: make(chan func())}
		go p.loop(w)
	}
	w.work <- f
}

func (p *workers) loop(w *worker) {
	t := time.NewTimer(idleWorker)
	defer t.Stop()
	for {
		select {
		case f := <-w.work:
			f()
			p.mu.Lock()
			p.idle = append(p.idle, w)
			p.mu.Unlock()
			t.Reset(idleWorker)
		case <-t.C:
			p.mu.Lock()
			i := slices.Index(p.idle, w)
			if i >= 0 {
				p.idle = slices.Delete(p.idle, i, i+1)
			}
			p.mu.Unlock()
			if i >= 0 {
				return
			}
			t.Reset(idleWorker) // taken by run: its work is on the way
		}
	}
}
