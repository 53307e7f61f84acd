package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/vane-http/vane/middleware"
)

// Every 503 these middleware write carries Retry-After, and documents it:
// Timeout's (a handler that outlives its deadline, such as one waiting on
// a database that stalls) and Throttle's.
func TestEvery503CarriesRetryAfter(t *testing.T) {
	// The handler waits for its context, which a 1 ns deadline ends at
	// once: the 503 comes without any wait on the clock.
	stalled := middleware.Timeout(time.Nanosecond)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	w := httptest.NewRecorder()
	stalled.ServeHTTP(w, httptest.NewRequest("GET", "/pets/1", nil))
	if w.Code != 503 || w.Header().Get("Retry-After") != "1" {
		t.Errorf("Timeout: %d %v", w.Code, w.Header())
	}

	holding, release := make(chan struct{}), make(chan struct{})
	throttled := middleware.Throttle(1, 0, 0)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(holding)
		<-release
	}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		throttled.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	}()
	<-holding
	w = httptest.NewRecorder()
	throttled.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	close(release)
	<-done
	if w.Code != 503 || w.Header().Get("Retry-After") != "1" {
		t.Errorf("Throttle: %d %v", w.Code, w.Header())
	}

	for name, mw := range map[string]func(http.Handler) http.Handler{"Timeout": middleware.Timeout(time.Second), "Throttle": middleware.Throttle(1, 0, 0)} {
		documented := false
		for _, a := range middleware.Answers(mw) {
			documented = documented || a.Status == 503 && a.Headers["Retry-After"] != ""
		}
		if !documented {
			t.Errorf("%s does not document Retry-After on its 503: %+v", name, middleware.Answers(mw))
		}
	}
}
