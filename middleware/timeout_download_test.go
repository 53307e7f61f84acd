package middleware_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vane-http/vane/middleware"
)

// A handler that has answered and is sending its body, extending its
// write deadline as each part goes out, is not cut by Timeout however
// long the body takes: here 10 s of body behind a 1 s Timeout.
func TestTimeoutLetsAProgressingDownloadFinish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		part := bytes.Repeat([]byte{'x'}, 1024)
		h := middleware.Timeout(time.Second)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rc := http.NewResponseController(w)
			w.WriteHeader(http.StatusOK)
			for range 40 {
				if err := rc.SetWriteDeadline(time.Now().Add(time.Second)); err != nil {
					t.Errorf("SetWriteDeadline: %v", err)
					return
				}
				if _, err := w.Write(part); err != nil {
					t.Errorf("write: %v", err)
					return
				}
				time.Sleep(250 * time.Millisecond)
			}
		}))
		client, stop := serveBubble(h)
		defer stop()
		res, err := client.Get("http://memnet/")
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || n != 40*1024 || err != nil {
			t.Errorf("%d, %d bytes, %v; want 200 and all of the body", res.StatusCode, n, err)
		}
	})
}

var start time.Time

// A body that stops making progress is cut when the last write deadline
// its handler set passes: not at Timeout's own deadline, not later.
func TestTimeoutCutsAStalledDownloadAtItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start = time.Now()
		release := make(chan struct{})
		h := middleware.Timeout(time.Second)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rc := http.NewResponseController(w)
			io.WriteString(w, "first")
			rc.Flush()
			rc.SetWriteDeadline(time.Now().Add(3 * time.Second))
			rc.SetWriteDeadline(time.Time{}) // clears the connection's, but Timeout's cut stays at 3 s
			time.Sleep(2 * time.Second)
			if _, err := io.WriteString(w, "second"); err != nil {
				t.Errorf("a write at 2 s, within the extended deadline: %v", err)
			}
			rc.Flush()
			<-release // stalled
			if _, err := io.WriteString(w, "never"); !errors.Is(err, http.ErrHandlerTimeout) {
				t.Errorf("a write after the deadline: %v", err)
			}
		}))
		client, stop := serveBubble(h)
		defer stop()
		defer close(release)
		res, err := client.Get("http://memnet/")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		cut := time.Since(start)
		res.Body.Close()
		if string(b) != "firstsecond" || err == nil {
			t.Errorf("%q, %v; want both parts, then an error", b, err)
		}
		if cut != 3*time.Second {
			t.Errorf("cut at %v, want at the deadline the handler set, 3s", cut)
		}
		if !strings.Contains(res.Header.Get("Content-Type"), "text/plain") {
			t.Errorf("Content-Type %q", res.Header.Get("Content-Type"))
		}
	})
}
