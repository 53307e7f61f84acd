package middleware_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vane-http/vane/middleware"
)

// gate is a handler that holds each request until released, counting how
// many it holds at once.
type gate struct {
	entered chan struct{}
	release chan struct{}
	now     atomic.Int64
	peak    atomic.Int64
}

func newGate() *gate { return &gate{entered: make(chan struct{}, 100), release: make(chan struct{})} }

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := g.now.Add(1)
	for p := g.peak.Load(); n > p && !g.peak.CompareAndSwap(p, n); p = g.peak.Load() {
	}
	g.entered <- struct{}{}
	<-g.release
	g.now.Add(-1)
}

// The tests run in synctest bubbles: Throttle's timers run on the
// bubble's clock, and synctest.Wait returns once every request is blocked
// where it waits (in the handler, in the backlog), so that what the tests
// check does not depend on the machine's speed or load. Throttle and the
// gate are made inside the bubble, whose channels they must be.

// recv waits for a response. With nothing left to run, the bubble's clock
// passes the hour at once and the test fails rather than hanging.
func recv(t *testing.T, c <-chan *httptest.ResponseRecorder) *httptest.ResponseRecorder {
	t.Helper()
	select {
	case w := <-c:
		return w
	case <-time.After(time.Hour):
		t.Fatal("no response")
		return nil
	}
}

// enter waits for the gate to admit a request, as recv waits.
func (g *gate) enter(t *testing.T) {
	t.Helper()
	select {
	case <-g.entered:
	case <-time.After(time.Hour):
		t.Fatal("no request entered the handler")
	}
}

func serveAsync(h http.Handler) <-chan *httptest.ResponseRecorder {
	out := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		out <- w
	}()
	return out
}

func TestThrottleTurnsAwayBeyondLimitAndBacklog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := middleware.Throttle(1, 0, time.Minute)(g)
		first := serveAsync(h)
		g.enter(t)
		w := recv(t, serveAsync(h)) // no slot, no backlog: at once
		if w.Code != 503 || w.Header().Get("Retry-After") != "1" || w.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%d %v %s", w.Code, w.Header(), w.Body)
		}
		close(g.release)
		if w := recv(t, first); w.Code != 200 {
			t.Errorf("the request holding the slot: %d", w.Code)
		}
	})
}

func TestThrottleBacklogWaitsForASlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := middleware.Throttle(1, 1, time.Minute)(g)
		first := serveAsync(h)
		g.enter(t)
		second := serveAsync(h) // waits in the backlog
		synctest.Wait()
		if w := recv(t, serveAsync(h)); w.Code != 503 { // the backlog is full
			t.Errorf("third request: %d", w.Code)
		}
		select {
		case <-g.entered:
			t.Fatal("the second request ran while the first held the only slot")
		default:
		}
		g.release <- struct{}{}
		g.enter(t) // the second now runs
		g.release <- struct{}{}
		for _, c := range []<-chan *httptest.ResponseRecorder{first, second} {
			if w := recv(t, c); w.Code != 200 {
				t.Errorf("%d", w.Code)
			}
		}
	})
}

func TestThrottleBacklogGivesUpAfterWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := middleware.Throttle(1, 5, 30*time.Millisecond)(g)
		first := serveAsync(h)
		g.enter(t)
		start := time.Now()
		w := recv(t, serveAsync(h))
		if w.Code != 503 || time.Since(start) != 30*time.Millisecond {
			t.Errorf("%d after %v, want 503 after the backlog's 30ms exactly", w.Code, time.Since(start))
		}
		close(g.release)
		recv(t, first)
	})
}

func TestThrottleWaiterLeavesWithItsClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := middleware.Throttle(1, 1, time.Minute)(g)
		first := serveAsync(h)
		g.enter(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil).WithContext(ctx))
			close(done)
		}()
		synctest.Wait() // it waits in the backlog
		cancel()
		<-done
		// Its place in the backlog is free again.
		second := serveAsync(h)
		synctest.Wait()
		close(g.release)
		for _, c := range []<-chan *httptest.ResponseRecorder{first, second} {
			if w := recv(t, c); w.Code != 200 {
				t.Errorf("%d", w.Code)
			}
		}
	})
}

func TestThrottleNeverExceedsLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		h := middleware.Throttle(3, 100, time.Minute)(g)
		var wg sync.WaitGroup
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
				if w.Code != 200 {
					t.Errorf("%d", w.Code)
				}
			}()
		}
		for range 3 {
			g.enter(t)
		}
		synctest.Wait() // the others wait in the backlog
		if n := len(g.entered); n != 0 {
			t.Errorf("%d more requests entered while 3 held the slots", n)
		}
		close(g.release) // the rest run, three at a time at most
		wg.Wait()
		if p := g.peak.Load(); p != 3 {
			t.Errorf("peak concurrency %d, want 3", p)
		}
	})
}

func TestThrottleRefusesBadArguments(t *testing.T) {
	for _, args := range [][2]int{{0, 0}, {1, -1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Throttle(%d, %d) did not panic", args[0], args[1])
				}
			}()
			middleware.Throttle(args[0], args[1], time.Second)
		}()
	}
}

func ExampleThrottle() {
	// At most 100 requests at once; 200 more may wait up to a second.
	h := middleware.Throttle(100, 200, time.Second)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	fmt.Print(w.Code, " ", w.Body)
	// Output: 200 ok
}
