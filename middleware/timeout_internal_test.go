package middleware

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A handler whose time has passed when it returns is late, even if the
// serving goroutine sees its return before the deadline: its held-back
// response is replaced by the 503, never sent as if in time.
func TestTimeoutWriterFinishAfterDeadline(t *testing.T) {
	for _, name := range []string{"in time", "after its time"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rec := httptest.NewRecorder()
			tw := &timeoutWriter{w: rec, ctx: ctx, h: http.Header{}}
			tw.Header().Set("Content-Type", "text/plain")
			io.WriteString(tw, "answer")
			if name == "after its time" {
				cancel()
			}
			if !tw.finish() {
				tw.timeout() // what Timeout does for a handler that was late
			}
			want := 200
			if name == "after its time" {
				want = 503
			}
			if rec.Code != want {
				t.Errorf("status %d, want %d (body %q)", rec.Code, want, rec.Body)
			}
			if _, err := io.WriteString(tw, "more"); err == nil || (want == 503 && !errors.Is(err, http.ErrHandlerTimeout)) {
				t.Errorf("a write after the end: %v", err)
			}
		})
	}
}
