package middleware

import (
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
	slots := make(chan struct{}, limit)
	var waiting atomic.Int64
	return func(next http.Handler) http.Handler {
		return Answering(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case slots <- struct{}{}:
			default:
				if waiting.Add(1) > int64(backlog) {
					waiting.Add(-1)
					writeBusy(w)
					return
				}
				timer := time.NewTimer(wait)
				select {
				case slots <- struct{}{}:
					waiting.Add(-1)
					timer.Stop()
				case <-timer.C:
					waiting.Add(-1)
					writeBusy(w)
					return
				case <-r.Context().Done():
					waiting.Add(-1)
					timer.Stop()
					return
				}
			}
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		}), throttleAnswers...)
	}
}

// problemBusy is the answer to a request Throttle turns away.
var problemBusy = problem.NewFixed(problem.New(http.StatusServiceUnavailable, "The server is busy; retry shortly."))

func writeBusy(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Retry-After", "1")
	problemBusy.Write(w)
}
