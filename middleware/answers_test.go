package middleware

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Every Timeout and Throttle, whatever its settings, declares its 503;
// other middleware declare nothing unless they say so.
func TestAnswers(t *testing.T) {
	if a := Answers(Timeout(3 * time.Minute)); len(a) != 1 || a[0].Status != 503 {
		t.Errorf("Timeout: %+v", a)
	}
	if a := Answers(Throttle(8, 2, time.Second)); len(a) != 1 || a[0].Status != 503 || a[0].Headers["Retry-After"] == "" {
		t.Errorf("Throttle: %+v", a)
	}
	if a := Answers(RequestID); a != nil {
		t.Errorf("RequestID: %+v", a)
	}
	if a := Answers(nil); a != nil {
		t.Errorf("nil: %+v", a)
	}
	mine := func(next http.Handler) http.Handler { return Answering(next, Answer{Status: 401}) }
	if a := Answers(mine); len(a) != 1 || a[0].Status != 401 {
		t.Errorf("declared: %+v", a)
	}
}

// The answers come with the handler a middleware makes, so they survive
// the wrappings a constructor of one's own adds around vane's: one that
// returns Timeout's middleware from a closure of its own, one that calls
// it on next, one that is inlined.
func TestAnswersSurviveWrappedConstructors(t *testing.T) {
	timeout := Timeout(time.Minute)
	for name, mw := range map[string]func(http.Handler) http.Handler{
		"a closure calling Timeout's": func(next http.Handler) http.Handler { return timeout(next) },
		"Timeout made on each call":   func(next http.Handler) http.Handler { return Timeout(time.Second)(next) },
		"a constructor returning it":  withTimeout(2 * time.Second),
		"Throttle made on each call":  func(next http.Handler) http.Handler { return Throttle(1, 0, 0)(next) },
	} {
		if a := Answers(mw); len(a) != 1 || a[0].Status != http.StatusServiceUnavailable {
			t.Errorf("%s: %+v", name, a)
		}
	}
}

func withTimeout(d time.Duration) func(http.Handler) http.Handler {
	t := Timeout(d)
	return func(next http.Handler) http.Handler { return t(next) }
}

// An Answerer serves as the handler it wraps, and its answers cannot be
// changed through what Answers returns.
func TestAnsweringServesAsItsHandler(t *testing.T) {
	a := Answering(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }),
		Answer{Status: 401, Headers: map[string]string{"WWW-Authenticate": "how"}})
	w := httptest.NewRecorder()
	a.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != http.StatusTeapot {
		t.Errorf("served %d", w.Code)
	}
	a.Answers()[0].Status = 500
	if got := a.Answers()[0].Status; got != 401 {
		t.Errorf("answers changed through a copy: %d", got)
	}
}
