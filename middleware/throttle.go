package middleware

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/vane-http/vane/problem"
)

// Throttle returns middleware that lets at most limit requests run their
// handler at the same time, so that a burst queues in front of the service
// instead of inside it (in its database pool, its memory). A request that
// finds every slot taken waits for one for at most wait, with no more than
// backlog requests waiting; a request that finds the backlog full, or
// waits in vain, is answered 503 Service Unavailable with an
// application/problem+json body and Retry-After: 1, without running its
// handler. A waiting request whose client goes away leaves the queue
// without an answer.
//
// The limit is per process: with several replicas, the service as a whole
// runs up to limit × replicas requests at once.
//
// Throttle panics if limit < 1 or backlog < 0.
//
// The handler it makes is an Answerer of its 503 (see Answers), which a
// vane router documents on the operations behind it.
func Throttle(limit, backlog int, wait time.Duration) func(http.Handler) http.Handler {
	if limit < 1 || backlog < 0 {
		panic("middleware: Throttle needs limit >= 1 and backlog >= 0")
	}
	t := &throttle{slots: make(chan struct{}, limit), backlog: int64(backlog), wait: wait}
	mw := func(next http.Handler) http.Handler {
		return Answering(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !t.acquire(w, r.Context()) {
				return
			}
			defer t.release()
			next.ServeHTTP(w, r)
		}), throttleAnswers...)
	}
	describe(mw, t.form)
	return mw
}

// throttle is the state of one Throttle, which its net/http and engine
// forms share.
type throttle struct {
	slots   chan struct{}
	waiting atomic.Int64
	backlog int64
	wait    time.Duration
}

// acquire takes a slot, waiting in the backlog if there is room, and
// reports whether it did; when it did not, it answered w (503), unless
// ctx ended first.
func (t *throttle) acquire(w http.ResponseWriter, ctx context.Context) bool {
	select {
	case t.slots <- struct{}{}:
		return true
	default:
	}
	if t.waiting.Add(1) > t.backlog {
		t.waiting.Add(-1)
		writeBusy(w)
		return false
	}
	timer := time.NewTimer(t.wait)
	defer timer.Stop()
	defer t.waiting.Add(-1)
	select {
	case t.slots <- struct{}{}:
		return true
	case <-timer.C:
		writeBusy(w)
		return false
	case <-ctx.Done():
		return false
	}
}

func (t *throttle) release() { <-t.slots }

var problemBusy = problem.NewFixed(problem.New(http.StatusServiceUnavailable, "The server is busy; retry shortly."))

func writeBusy(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Retry-After", "1")
	problemBusy.Write(w)
}
