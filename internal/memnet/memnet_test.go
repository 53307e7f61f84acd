package memnet_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vane-http/vane/internal/memnet"
)

// An HTTP server on the listener answers a client dialled to it; a read
// timeout passes on the bubble's clock, exactly; after Close, a dial is
// refused.
func TestServerInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ln := memnet.Listen()
		srv := &http.Server{
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, err := io.ReadAll(r.Body)
				if err != nil {
					w.WriteHeader(http.StatusRequestTimeout)
					return
				}
				io.WriteString(w, "got "+string(b))
			}),
			ReadTimeout: 5 * time.Second,
		}
		served := make(chan error, 1)
		go func() { served <- srv.Serve(ln) }()
		client := ln.Client()

		res, err := client.Post("http://memnet/", "text/plain", strings.NewReader("hi"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(b) != "got hi" {
			t.Errorf("%d %q", res.StatusCode, b)
		}

		// A body that never comes: the read timeout, on the fake clock.
		pr, pw := io.Pipe()
		defer pw.Close()
		start := time.Now()
		res, err = client.Post("http://memnet/", "text/plain", pr)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestTimeout || time.Since(start) != 5*time.Second {
			t.Errorf("%d after %v, want 408 after exactly the 5s read timeout", res.StatusCode, time.Since(start))
		}

		client.CloseIdleConnections()
		srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
		if _, err := ln.Dial(context.Background()); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("dial after Close: %v, want connection refused", err)
		}
	})
}
