package vane_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/internal/guidesample"
	"github.com/vane-http/vane/middleware"
)

// pattern is the content of a synthetic body: byte i is pattern[i%251],
// so that any range of it can be checked without keeping it.
var pattern = func() []byte {
	b := make([]byte, 251+64<<10)
	for i := range b {
		b[i] = byte(i % 251 * 7)
	}
	return b
}()

// synthetic is a body of size bytes made as it is read, whose Close is
// reported on closed.
type synthetic struct {
	*io.SectionReader
	closed chan time.Time
}

type patternReader struct{}

func (patternReader) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], pattern[(off+int64(n))%251:])
		n += k
	}
	return n, nil
}

func (s synthetic) Close() error {
	s.closed <- time.Now()
	return nil
}

func newSynthetic(size int64) synthetic {
	return synthetic{io.NewSectionReader(patternReader{}, 0, size), make(chan time.Time, 1)}
}

// checkPattern reports whether b is the synthetic body's bytes from off.
func checkPattern(b []byte, off int64) bool {
	for len(b) > 0 {
		want := pattern[off%251:]
		n := min(len(b), len(want))
		if !bytes.Equal(b[:n], want[:n]) {
			return false
		}
		b, off = b[n:], off+int64(n)
	}
	return true
}

type Download struct {
	ETag string `header:"ETag"`
	Body io.ReadSeeker
}

// downloadService is the recommended stack (docs/design/middleware.md) in front
// of a download of size bytes: RequestID, RealIP, Logger, then Timeout
// after routing, on a vane.Server (which adds Recoverer) with short
// timeouts. Each request's body is sent on bodies.
func downloadService(size int64, timeout, writeTimeout time.Duration, bodies chan<- synthetic) *vane.Server {
	r := vane.New()
	r.Use(middleware.RequestID, middleware.RealIP(middleware.RealIPConfig{}), middleware.Logger(slog.New(slog.DiscardHandler)))
	api := r.Group("", vane.Middleware(middleware.Timeout(timeout)))
	vane.Get(api, "/download", func(ctx context.Context, _ *struct{}) (*Download, error) {
		body := newSynthetic(size)
		bodies <- body
		return &Download{ETag: `"v1"`, Body: body}, nil
	})
	return &vane.Server{Handler: r, WriteTimeout: writeTimeout}
}

// A 300 MB download through the recommended middleware, behind a 1 s
// Timeout and a 2 s WriteTimeout, completes for a client that takes 30 s
// of the bubble's clock to read it; a Range request gets 206.
//
// Without the deadline extensions (respond's, and Timeout's reading of
// them) this test does not fail quickly but hangs until go test's
// -timeout: at 1 s Timeout's answer waits for the handler's write, which
// is blocked on the sleeping client, and a goroutine waiting on a mutex
// stops the bubble's clock. middleware's TestTimeoutLetsAProgressingDownloadFinish
// fails plainly instead.
func TestDownloadIsNotCutWhileItProgresses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const size = 300 << 20
		bodies := make(chan synthetic, 2)
		ln, stop := serveInBubble(t, downloadService(size, time.Second, 2*time.Second, bodies))
		client := ln.Client()
		defer func() {
			client.CloseIdleConnections()
			if err := stop(); err != nil {
				t.Error(err)
			}
		}()
		start := time.Now()
		res, err := client.Get("http://memnet/download")
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != 200 || res.ContentLength != size || res.Header.Get("Accept-Ranges") != "bytes" {
			t.Fatalf("%d, Content-Length %d, Accept-Ranges %q", res.StatusCode, res.ContentLength, res.Header.Get("Accept-Ranges"))
		}
		buf := make([]byte, 32<<10)
		var n int64
		for {
			k, err := res.Body.Read(buf)
			if !checkPattern(buf[:k], n) {
				t.Fatalf("the bytes at %d are not the body's", n)
			}
			n += int64(k)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("cut after %d bytes, at %v: %v", n, time.Since(start), err)
			}
			time.Sleep(3 * time.Millisecond) // a slow client: 32 KiB per 3 ms
		}
		res.Body.Close()
		<-bodies
		if took := time.Since(start); n != size || took < 10*time.Second {
			t.Fatalf("%d bytes in %v; want all of them, in far longer than the timeouts", n, took)
		}

		req, _ := http.NewRequest("GET", "http://memnet/download", nil)
		req.Header.Set("Range", "bytes=200000000-200000099")
		req.Header.Set("If-Range", `"v1"`)
		res, err = client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		<-bodies
		if res.StatusCode != 206 || err != nil || len(b) != 100 || !checkPattern(b, 200000000) ||
			res.Header.Get("Content-Range") != fmt.Sprintf("bytes 200000000-200000099/%d", size) {
			t.Errorf("%d %q, %d bytes, %v", res.StatusCode, res.Header.Get("Content-Range"), len(b), err)
		}
	})
}

// A client that stops reading is cut the chunk allowance (the server's
// WriteTimeout) after its last read, and the body is closed then.
func TestDownloadOfAStalledClientIsCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const size = 300 << 20
		bodies := make(chan synthetic, 1)
		ln, stop := serveInBubble(t, downloadService(size, time.Second, 2*time.Second, bodies))
		client := ln.Client()
		defer func() {
			client.CloseIdleConnections()
			stop()
		}()
		res, err := client.Get("http://memnet/download")
		if err != nil {
			t.Fatal(err)
		}
		body := <-bodies
		if _, err := io.ReadFull(res.Body, make([]byte, 1<<20)); err != nil {
			t.Fatal(err)
		}
		stalled := time.Now() // and reads no more
		closed := <-body.closed
		if cut := closed.Sub(stalled); cut != 2*time.Second {
			t.Errorf("the download was cut %v after the client stopped reading, want the 2s WriteTimeout", cut)
		}
		if _, err := io.Copy(io.Discard, res.Body); err == nil {
			t.Error("the cut response reads as complete")
		}
		res.Body.Close()
	})
}

// The samples of docs/guide/downloads.md are in downloads_example_test.go.
func TestDownloadsGuideSamples(t *testing.T) { guidesample.Check(t, "docs/guide/downloads.md") }
