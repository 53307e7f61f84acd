package middleware

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vane-http/vane/problem"
)

// TimeoutBuffer is how many bytes of a response [Timeout] holds back before
// it sends them on.
const TimeoutBuffer = 64 << 10

// Timeout returns middleware that gives each handler d to answer. The
// handler runs with a context that is cancelled when d passes (or when the
// request's own context ends); if it has not answered by then, the client
// gets 503 Service Unavailable with an application/problem+json body and
// Retry-After (problem.DefaultRetryAfter seconds) at once, rather than
// when the handler notices.
//
// To be able to replace a late answer, Timeout holds the response back:
// the handler's headers, status and first [TimeoutBuffer] bytes are kept
// until the handler returns, flushes, or writes more. Then:
//
//   - a handler that returns in time has its response sent as it wrote it,
//     with a Content-Length when all of it was held back (as net/http
//     gives one to a response that fits its own buffer), so that it is
//     not sent chunked;
//   - a handler that is still running when d passes has its context
//     cancelled, and its response replaced by the 503 when none of it had
//     been sent; if some had (it flushed, or wrote more than the buffer),
//     the status can no longer change, so the response is cut short
//     instead (the connection is closed, as with http.ErrAbortHandler) and
//     the client sees an incomplete response, not a complete-looking one.
//
// The handler's writes after its time has passed fail with
// http.ErrHandlerTimeout and reach no one: the late handler and the
// response never race, which `go test -race` checks. Its own goroutine
// runs on until it returns; handlers should pass on the context they get
// (to database/sql, http.Client) so that the work stops too.
//
// The handler runs in a goroutine of its own: a panic in it is re-raised
// in the goroutine that serves the request, with the original stack in the
// panic value's message, for [Recoverer] and net/http to handle
// (http.ErrAbortHandler is re-raised as it is). A panic after the timeout
// has answered is logged by slog.Default() and dropped.
//
// The ResponseWriter the handler gets supports Flush (http.Flusher and
// http.ResponseController), which sends what is held back: use it for
// streams, knowing that d still bounds them. It does not support Hijack,
// nor Unwrap to the writer underneath, since either would let the handler
// write past the timeout. Informational responses (1xx) are passed on as
// they are written.
//
// Timeout bounds the handler's work, not the time a client takes to read
// a large body. A handler that has answered and is sending its body may
// extend its write deadline past d (http.ResponseController's
// SetWriteDeadline, which reaches the connection through this writer):
// it is then cut when the latest deadline it set passes, not at d, so a
// download that keeps making progress is never cut, and one that stalls
// is cut once its deadline passes. Package respond does this for the
// []byte and io.Reader bodies of typed operations, before each chunk it
// writes. The context still ends at d: a body that reads with the
// handler's context (a query's rows, say) ends with it, while a file, a
// []byte or a reader of its own does not. A deadline earlier than the
// latest, or zero, is passed on to the connection but does not shorten
// the handler's time.
//
// On a vane router, install Timeout after routing (on a Group, with Use
// or as Group's argument): then a request that times out is still logged
// with its route, and health checks can stay outside it. A Timeout before
// routing works too, but copies the route back for [Logger] only when the
// handler returns in time.
//
// The handler it makes is an Answerer of its 503 (see Answers), which a
// vane router documents on the operations behind it.
func Timeout(d time.Duration) func(http.Handler) http.Handler {
	mw := func(next http.Handler) http.Handler {
		return Answering(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var r2 *http.Request
			serveTimeout(d, w, r.Context(), r.Method == http.MethodHead, func(tw http.ResponseWriter, ctx context.Context) {
				r2 = r.WithContext(ctx)
				next.ServeHTTP(tw, r2)
			}, func() { copyPattern(r, r2) })
		}), timeoutAnswers...)
	}
	describe(mw, timeoutForm(d))
	return mw
}

// serveTimeout is Timeout's work, for either engine: serve runs the
// handler with tw and its context, on a goroutine of its own; finished
// is called on the serving goroutine when the handler returned in time.
func serveTimeout(d time.Duration, w http.ResponseWriter, parent context.Context, head bool, serve func(tw http.ResponseWriter, ctx context.Context), finished func()) {
	deadline := time.Now().Add(d)
	ctx, cancel := context.WithDeadlineCause(parent, deadline, errOwnDeadline)
	defer cancel()
	tw := &timeoutWriter{w: w, ctx: ctx, deadline: deadline, h: w.Header().Clone(), head: head}
	done := make(chan struct{})
	var panicVal any
	go func() {
		defer func() {
			if p := recover(); p != nil {
				panicVal = goroutinePanic(p)
			}
			close(done)
		}()
		serve(tw, ctx)
	}()

	ended := done
	select {
	case <-done:
	case <-ctx.Done():
		ended = nil
		if context.Cause(ctx) != errOwnDeadline {
			// The request's own context ended first: the client
			// went away or half-closed its connection (and may
			// still read). Not this middleware's deadline: the
			// handler's answer goes out if it comes within it.
			own := time.NewTimer(time.Until(deadline))
			select {
			case <-done:
				ended = done
			case <-own.C:
			}
			own.Stop()
		}
	}
	if ended == nil {
		// A handler sending its body, which extends its write
		// deadline past d, is cut only when that deadline passes.
		ended = tw.waitExtended(done)
	}
	if ended != nil {
		finished()
		if panicVal != nil {
			tw.close(errPanicked)
			panic(panicVal)
		}
		if !tw.finish() && tw.timeout() {
			panic(http.ErrAbortHandler)
		}
		return
	}
	if tw.timeout() {
		panic(http.ErrAbortHandler) // part of the response is out
	}
	go reportLatePanic(done, &panicVal)
}

// timeoutWriter is the ResponseWriter of a handler behind Timeout. Every
// use of the underlying writer w happens with mu held, by the handler's
// goroutine while it runs or by the serving goroutine; once err is set,
// the handler's writes reach nothing.
type timeoutWriter struct {
	w        http.ResponseWriter
	ctx      context.Context // the handler's
	deadline time.Time       // Timeout's own
	head     bool            // the request is a HEAD

	mu        sync.Mutex
	h         http.Header // the handler's header, until committed
	code      int         // the final status the handler set; 0 for none yet
	buf       []byte      // body held back, until committed
	committed bool        // headers and buf sent; writes go straight to w
	err       error       // set when the response is finished or replaced
	// until is the latest write deadline the handler set past deadline,
	// in Unix nanoseconds (0: none). It is read without mu, so that the
	// serving goroutine does not wait behind a write blocked on the
	// connection to learn when the handler's time ends.
	until atomic.Int64
}

var (
	errPanicked = errors.New("middleware: the handler panicked")
	errFinished = errors.New("middleware: write after the handler returned")
)

// Header returns the handler's header: a copy of w's (so that headers set
// by outer middleware are visible) until the response is committed, and
// w's own after, for trailers.
func (tw *timeoutWriter) Header() http.Header {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.committed && tw.err == nil {
		return tw.w.Header()
	}
	return tw.h
}

// late reports whether the handler's time has passed, and if so makes its
// writes fail from now on, even before the serving goroutine has answered.
// The caller holds mu.
func (tw *timeoutWriter) late() bool {
	if tw.err == nil && tw.expired() {
		tw.err = http.ErrHandlerTimeout
	}
	return tw.err != nil
}

func (tw *timeoutWriter) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code)) // as net/http does
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	switch {
	case tw.late():
	case tw.committed:
		tw.w.WriteHeader(code) // net/http reports a superfluous call
	case code < 200 && code != http.StatusSwitchingProtocols:
		tw.informational(code)
	case tw.code == 0:
		tw.code = code
	}
}

// informational sends a 1xx response with the handler's headers, leaving
// w's header as it was for the final response (or the 503).
func (tw *timeoutWriter) informational(code int) {
	dst := tw.w.Header()
	saved := dst.Clone()
	clear(dst)
	for k, v := range tw.h {
		dst[k] = v
	}
	tw.w.WriteHeader(code)
	clear(dst)
	for k, v := range saved {
		dst[k] = v
	}
}

func (tw *timeoutWriter) Write(p []byte) (int, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.late() {
		return 0, tw.err
	}
	if !tw.committed {
		if tw.code == 0 {
			tw.code = http.StatusOK
		}
		if len(tw.buf)+len(p) <= TimeoutBuffer {
			tw.buf = append(tw.buf, p...)
			return len(p), nil
		}
		if err := tw.commit(); err != nil {
			return 0, err
		}
	}
	return tw.w.Write(p)
}

// Flush sends what is held back and flushes w.
func (tw *timeoutWriter) Flush() { tw.FlushError() }

// FlushError is Flush reporting its error, for http.ResponseController.
func (tw *timeoutWriter) FlushError() error {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.late() {
		return tw.err
	}
	if !tw.committed {
		if tw.code == 0 {
			tw.code = http.StatusOK
		}
		if err := tw.commit(); err != nil {
			return err
		}
	}
	return http.NewResponseController(tw.w).Flush()
}

// commit sends the handler's header, status and held-back body to w. The
// caller holds mu.
func (tw *timeoutWriter) commit() error {
	tw.committed = true
	dst := tw.w.Header()
	clear(dst)
	for k, v := range tw.h {
		dst[k] = v
	}
	if tw.code != 0 {
		tw.w.WriteHeader(tw.code)
	}
	buf := tw.buf
	tw.buf = nil
	if len(buf) > 0 {
		if _, err := tw.w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// finish sends the response of a handler that has returned, and reports
// whether it did. It did not when the handler was late: one of its writes
// came after its time, or it returned after its time with its response
// still held back; the caller then answers as at a timeout. It runs on the
// serving goroutine.
func (tw *timeoutWriter) finish() bool {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.err != nil {
		return false
	}
	if !tw.committed {
		if tw.expired() {
			return false
		}
		tw.setLength()
		tw.commit() //nolint:errcheck // the client went away; nothing to do
	}
	tw.err = errFinished
	return true
}

// setLength gives a response held back whole until its handler returned
// a Content-Length, as net/http does for one that fits its own 2 KB
// buffer, so that a larger one is not sent chunked either. It leaves alone
// a response whose handler set Content-Length or Transfer-Encoding or
// announced trailers (which need chunks), an answer to HEAD (whose body
// the handler need not write), and a status without a body (1xx, 204,
// 304). The caller holds mu.
func (tw *timeoutWriter) setLength() {
	code := tw.code
	if code == 0 {
		code = http.StatusOK
	}
	if tw.head || code < 200 || code == http.StatusNoContent || code == http.StatusNotModified {
		return
	}
	for k := range tw.h {
		if k == "Content-Length" || k == "Transfer-Encoding" || k == "Trailer" || strings.HasPrefix(k, http.TrailerPrefix) {
			return
		}
	}
	tw.h["Content-Length"] = []string{strconv.Itoa(len(tw.buf))}
}

// expired reports whether Timeout's own deadline has passed; the end of
// the request's context (a client gone, a half-closed connection) is not
// that.
func (tw *timeoutWriter) expired() bool {
	if until := tw.until.Load(); until != 0 {
		return time.Now().UnixNano() >= until
	}
	return tw.ctx.Err() != nil && (context.Cause(tw.ctx) == errOwnDeadline || !time.Now().Before(tw.deadline))
}

// close makes the handler's further writes fail with err.
func (tw *timeoutWriter) close(err error) {
	tw.mu.Lock()
	tw.err = err
	tw.mu.Unlock()
}

// timeout ends the response of a handler whose time has passed: the 503,
// unless part of the response was sent, which it reports.
func (tw *timeoutWriter) timeout() (committed bool) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.err = http.ErrHandlerTimeout
	if tw.committed {
		return true
	}
	h := tw.w.Header() // as outer middleware left it: CORS and request ID headers stay
	h.Del("Content-Encoding")
	h.Set("Cache-Control", "no-store")
	problemTimeout.Write(tw.w)
	return false
}

// errOwnDeadline is the cause of the context of a handler whose Timeout
// passed, as opposed to the end of the request's own context.
var errOwnDeadline = errors.New("middleware: Timeout's deadline passed")

// SetReadDeadline sets the deadline for reading the request body, through
// to the connection (http.ResponseController finds it).
func (tw *timeoutWriter) SetReadDeadline(t time.Time) error {
	return http.NewResponseController(tw.w).SetReadDeadline(t)
}

// SetWriteDeadline sets the deadline for writing the response, through to
// the connection, and, when t is later than Timeout's own deadline, makes
// t the time at which the handler is cut instead. The handler's time only
// grows: an earlier or zero t leaves it as it was.
func (tw *timeoutWriter) SetWriteDeadline(t time.Time) error {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.late() {
		return tw.err
	}
	if t.After(tw.deadline) && t.UnixNano() > tw.until.Load() {
		tw.until.Store(t.UnixNano())
	}
	return http.NewResponseController(tw.w).SetWriteDeadline(t)
}

// waitExtended waits, once Timeout's own deadline has passed, for a
// handler that extended its write deadline past it: it returns done if
// the handler returns before the latest deadline it set, nil if that
// deadline passes first (or it set none).
func (tw *timeoutWriter) waitExtended(done chan struct{}) chan struct{} {
	for {
		until := tw.until.Load()
		if until == 0 {
			return nil
		}
		wait := time.Until(time.Unix(0, until))
		if wait <= 0 {
			select {
			case <-done:
				return done
			default:
				return nil
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-done:
			t.Stop()
			return done
		case <-t.C:
		}
	}
}

// problemTimeout is the answer to a request that timed out.
var problemTimeout = problem.NewFixed(problem.New(http.StatusServiceUnavailable, "The server did not answer in time."))

// handlerPanic is a panic raised in the handler's goroutine, carried to
// the serving goroutine with the stack where it happened.
type handlerPanic struct {
	value any
	stack []byte
}

func (p *handlerPanic) Error() string {
	return fmt.Sprintf("%v\n\nthe handler's goroutine (behind middleware.Timeout):\n%s", p.value, p.stack)
}

// Unwrap returns the original panic value when it is an error.
func (p *handlerPanic) Unwrap() error {
	err, _ := p.value.(error)
	return err
}

// goroutinePanic wraps a recovered value with the current stack, except
// http.ErrAbortHandler, which net/http must see as it is.
func goroutinePanic(p any) any {
	if err, ok := p.(error); ok && errors.Is(err, http.ErrAbortHandler) {
		return p
	}
	return &handlerPanic{value: p, stack: debug.Stack()}
}

// reportLatePanic waits for a handler whose timeout has answered, and logs
// its panic, if it panics: no one else will see it.
func reportLatePanic(done <-chan struct{}, panicVal *any) {
	<-done
	if p, ok := (*panicVal).(*handlerPanic); ok {
		slog.Error("panic in a handler after its timeout had answered", slog.Any("panic", p))
	}
}
