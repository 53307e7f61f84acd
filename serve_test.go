package vane_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vane-http/vane"
)

// startServer runs s in the background on a loopback port and returns its
// base URL and a function that waits for Serve's result.
func startTestServer(t *testing.T, ctx context.Context, s *vane.Server) (string, func() error) {
	t.Helper()
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	if s.Signals == nil {
		s.Signals = []os.Signal{} // tests cancel ctx; the signal test sets its own
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	wait := func() error {
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return")
			return nil
		}
	}
	return "http://" + ln.Addr().String(), wait
}

func TestServeGracefulShutdownFinishesRequestsInFlight(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		if err := r.Context().Err(); err != nil {
			t.Errorf("the request's context was cancelled by the shutdown: %v", err)
		}
		io.WriteString(w, "finished")
	})
	ctx, cancel := context.WithCancel(context.Background())
	url, wait := startTestServer(t, ctx, &vane.Server{Handler: h})

	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		res, err := http.Get(url + "/slow")
		if err != nil {
			got <- result{err: err}
			return
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		got <- result{string(b), err}
	}()
	<-started
	cancel() // as a SIGTERM would

	// New connections are refused while the old request finishes.
	refused := false
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), time.Second)
		if err != nil {
			refused = true
			break
		}
		c.Close()
	}
	if !refused {
		t.Error("the server still accepts connections 5s after shutdown began")
	}
	close(release)
	r := <-got
	if r.err != nil || r.body != "finished" {
		t.Fatalf("request in flight: %q, %v", r.body, r.err)
	}
	if err := wait(); err != nil {
		t.Fatalf("Serve returned %v after a graceful shutdown", err)
	}
}

func TestServeShutdownTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { close(started); <-release })
	ctx, cancel := context.WithCancel(context.Background())
	url, wait := startTestServer(t, ctx, &vane.Server{Handler: h, ShutdownTimeout: 100 * time.Millisecond})
	go http.Get(url)
	<-started
	cancel()
	if err := wait(); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Serve returned %v, want a deadline error", err)
	}
}

func TestServeRecoversPanics(t *testing.T) {
	var logs lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("kaboom") })
	url, _ := startTestServer(t, ctx, &vane.Server{Handler: h, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	res, err := http.Get(url + "/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 500 || res.Header.Get("Content-Type") != "application/problem+json" ||
		!bytes.Contains(body, []byte(`"status":500`)) {
		t.Errorf("%d %q %s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	if l := logs.String(); !strings.Contains(l, "kaboom") || !strings.Contains(l, "serve_test.go") {
		t.Errorf("log lacks the panic or its stack:\n%s", l)
	}
}

func TestServeBodyLimit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
		fmt.Fprint(w, n)
	})
	url, _ := startTestServer(t, ctx, &vane.Server{Handler: h, MaxBodyBytes: 10})

	post := func(body io.Reader) (int, string) {
		t.Helper()
		res, err := http.Post(url, "text/plain", body)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := post(strings.NewReader("0123456789")); code != 200 || body != "10" {
		t.Errorf("at the limit: %d %q", code, body)
	}
	// Declared too large: refused before the handler runs.
	if code, body := post(strings.NewReader("0123456789A")); code != 413 || !strings.Contains(body, `"status":413`) {
		t.Errorf("Content-Length over the limit: %d %q", code, body)
	}
	// Chunked (no Content-Length): the read fails at the limit.
	if code, _ := post(io.MultiReader(strings.NewReader("0123456789"), strings.NewReader("AB"))); code != 413 {
		t.Errorf("chunked body over the limit: %d", code)
	}
}

func TestServeHeaderLimitAndTimeout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, _ := startTestServer(t, ctx, &vane.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}),
		MaxHeaderBytes:    1 << 10,
		ReadHeaderTimeout: 200 * time.Millisecond,
	})
	addr := strings.TrimPrefix(url, "http://")

	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("X-Big", strings.Repeat("a", 8<<10))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("8 KiB header with a 1 KiB limit: status %d", res.StatusCode)
	}

	// A client that never finishes its headers is disconnected.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	line, err := bufio.NewReader(c).ReadString('\n')
	if time.Since(start) > 3*time.Second {
		t.Errorf("slow client kept for %v (line %q, err %v)", time.Since(start), line, err)
	}
}

func TestServeListenError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = vane.Serve(context.Background(), ln.Addr().String(), http.NotFoundHandler())
	if err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("Serve on a busy port: %v", err)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
