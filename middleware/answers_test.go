package middleware

import (
	"net/http"
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
	mine := func(next http.Handler) http.Handler { return next }
	Declare(mine, Answer{Status: 401})
	if a := Answers(mine); len(a) != 1 || a[0].Status != 401 {
		t.Errorf("declared: %+v", a)
	}
}
