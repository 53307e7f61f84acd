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
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/internal/syncbuf"
)

// startServer runs s in the background on a loopback port and returns its
// base URL and a function that waits for Serve's result.
func startTestServer(t *testing.T, ctx context.Context, s *vane.Server) (string, func() error) {
	t.Helper()
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	if s.Signals == nil {
		s.NoSignals = true // tests cancel ctx; the signal test sets its own
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	// A minute: a generous limit for a server on real sockets to shut
	// down on a loaded machine; a passing test returns at once.
	wait := func() error {
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			t.Fatal("Serve did not return")
			return nil
		}
	}
	return "http://" + ln.Addr().String(), wait
}

// A shutdown lets the request in flight finish, with its context intact,
// while new connections are refused; in a synctest bubble, on memnet, the
// refusal is checked once everything else waits (synctest.Wait).
func TestServeGracefulShutdownFinishesRequestsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started, release := make(chan struct{}), make(chan struct{})
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(started)
			<-release
			if err := r.Context().Err(); err != nil {
				t.Errorf("the request's context was cancelled by the shutdown: %v", err)
			}
			io.WriteString(w, "finished")
		})
		ln, stop := serveInBubble(t, &vane.Server{Handler: h})
		client := ln.Client()

		type result struct {
			body string
			err  error
		}
		got := make(chan result, 1)
		go func() {
			res, err := client.Get("http://memnet/slow")
			if err != nil {
				got <- result{err: err}
				return
			}
			b, err := io.ReadAll(res.Body)
			res.Body.Close()
			got <- result{string(b), err}
		}()
		<-started
		stopped := make(chan error, 1)
		go func() { stopped <- stop() }() // as a SIGTERM would

		// New connections are refused while the old request finishes.
		synctest.Wait()
		if c, err := ln.Dial(context.Background()); !errors.Is(err, syscall.ECONNREFUSED) {
			if c != nil {
				c.Close()
			}
			t.Errorf("a connection during shutdown: %v, want it refused", err)
		}
		close(release)
		r := <-got
		if r.err != nil || r.body != "finished" {
			t.Fatalf("request in flight: %q, %v", r.body, r.err)
		}
		client.CloseIdleConnections()
		if err := <-stopped; err != nil {
			t.Fatalf("Serve returned %v after a graceful shutdown", err)
		}
	})
}

// The requests in flight get ShutdownTimeout to finish, on the synctest
// bubble's clock exactly; then Serve returns the deadline's error.
func TestServeShutdownTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		started := make(chan struct{})
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { close(started); <-release })
		ln, stop := serveInBubble(t, &vane.Server{Handler: h, ShutdownTimeout: 100 * time.Millisecond})
		client := ln.Client()
		go client.Get("http://memnet/")
		<-started
		start := time.Now()
		if err := stop(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Serve returned %v, want a deadline error", err)
		}
		if took := time.Since(start); took != 100*time.Millisecond {
			t.Errorf("Serve returned %v after the cancellation, want the ShutdownTimeout of 100ms", took)
		}
		close(release)
		client.CloseIdleConnections()
	})
}

func TestServeRecoversPanics(t *testing.T) {
	var logs syncbuf.Buffer
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
	synctest.Test(t, func(t *testing.T) {
		ln, stop := serveInBubble(t, &vane.Server{
			Handler:           http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}),
			MaxHeaderBytes:    1 << 10,
			ReadHeaderTimeout: 200 * time.Millisecond,
		})
		client := ln.Client()
		req, _ := http.NewRequest("GET", "http://memnet/", nil)
		req.Header.Set("X-Big", strings.Repeat("a", 8<<10))
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("8 KiB header with a 1 KiB limit: status %d", res.StatusCode)
		}
		client.CloseIdleConnections()

		// A client that never finishes its headers is disconnected at the
		// ReadHeaderTimeout, exactly (the bubble's clock).
		c := dialBubble(t, ln)
		defer c.Close()
		start := time.Now()
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n")
		line, err := bufio.NewReader(c).ReadString('\n')
		if took := time.Since(start); err == nil || took != 200*time.Millisecond {
			t.Errorf("slow client: line %q, err %v after %v; want the connection closed at the 200ms ReadHeaderTimeout", line, err, took)
		}
		c.Close()
		if err := stop(); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
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

// TestServeDrainsBeforeClosingTheListener shows the shutdown order under
// load: at cancellation, readiness turns 503 at once while every request
// is still served; the listener closes when the drain delay has passed;
// and every request the server received is answered in full. It runs in
// a synctest bubble on memnet, so that "at once" and "when the drain delay
// has passed" are exact on the bubble's clock.
func TestServeDrainsBeforeClosingTheListener(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const (
			drain = time.Second
			poll  = time.Millisecond // the readiness probe's interval
		)
		srv := &vane.Server{DrainDelay: drain, ShutdownTimeout: 10 * time.Second}
		var (
			mu       sync.Mutex
			started  = map[string]bool{}
			finished = map[string]bool{}
		)
		mux := http.NewServeMux()
		mux.Handle("GET /readyz", srv.ReadinessHandler())
		mux.HandleFunc("POST /work", func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get("X-Id")
			mu.Lock()
			started[id] = true
			mu.Unlock()
			time.Sleep(30 * time.Millisecond) // in flight when the listener closes
			io.WriteString(w, "done "+id)
			mu.Lock()
			finished[id] = true
			mu.Unlock()
		})
		srv.Handler = mux
		ln, stop := serveInBubble(t, srv)
		const url = "http://memnet"

		type outcome struct {
			id   string
			sent time.Time
			err  error
		}
		var (
			outcomes []outcome
			omu      sync.Mutex
			halt     atomic.Bool
			workers  sync.WaitGroup
			seq      atomic.Int64
		)
		client := &http.Client{Transport: &http.Transport{DialContext: ln.DialContext, MaxIdleConnsPerHost: 16}}
		for range 8 {
			workers.Add(1)
			go func() {
				defer workers.Done()
				for n := 0; !halt.Load() && n < 2000; n++ { // bounded
					id := fmt.Sprint(seq.Add(1))
					req, _ := http.NewRequest("POST", url+"/work", nil)
					req.Header.Set("X-Id", id)
					sent := time.Now()
					res, err := client.Do(req)
					if err == nil {
						var b []byte
						b, err = io.ReadAll(res.Body)
						res.Body.Close()
						if err == nil && (res.StatusCode != 200 || string(b) != "done "+id) {
							err = fmt.Errorf("status %d, body %q", res.StatusCode, b)
						}
					}
					omu.Lock()
					outcomes = append(outcomes, outcome{id, sent, err})
					omu.Unlock()
					if err != nil {
						time.Sleep(5 * time.Millisecond)
					}
				}
			}()
		}

		// The probe: a fresh connection each time, so that a refused dial
		// shows that the listener is closed.
		probe := &http.Client{Transport: &http.Transport{DialContext: ln.DialContext, DisableKeepAlives: true}, Timeout: 5 * time.Second}
		var ready200, notReady503, closedAt time.Time
		time.Sleep(100 * time.Millisecond) // under load
		stopped := make(chan error, 1)
		go func() { stopped <- stop() }()
		synctest.Wait() // the server has begun to drain; no time has passed
		cancelAt := time.Now()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(poll) {
			res, err := probe.Get(url + "/readyz")
			if err != nil {
				// Refused; or closed unanswered, accepted as the listener
				// closed.
				if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, io.EOF) {
					t.Errorf("readiness probe: %v", err)
				}
				closedAt = time.Now()
				break
			}
			res.Body.Close()
			switch {
			case res.StatusCode == 200 && notReady503.IsZero():
				ready200 = time.Now()
			case res.StatusCode == 503 && notReady503.IsZero():
				notReady503 = time.Now()
			case res.StatusCode != 503:
				t.Errorf("readiness %d after it had turned 503", res.StatusCode)
			}
		}
		time.Sleep(50 * time.Millisecond) // load goes on against the closed listener
		halt.Store(true)
		workers.Wait()
		client.CloseIdleConnections()
		if err := <-stopped; err != nil {
			t.Fatalf("Serve: %v", err)
		}

		// Readiness turned 503 at once; the listener closed when the drain
		// delay had passed (seen by the first probe at or after it).
		if notReady503.IsZero() || closedAt.IsZero() {
			t.Fatalf("readiness 503 at %v, listener closed at %v (cancelled at %v)", notReady503, closedAt, cancelAt)
		}
		if d := notReady503.Sub(cancelAt); d != 0 {
			t.Errorf("readiness turned 503 %v after the cancellation, want at once", d)
		}
		if !ready200.IsZero() {
			t.Errorf("readiness 200 at %v, after the cancellation at %v", ready200, cancelAt)
		}
		if d := closedAt.Sub(cancelAt); d < drain || d > drain+poll {
			t.Errorf("the listener closed %v after the cancellation, want at the drain delay of %v", d, drain)
		}

		// No request the server received was lost; requests kept being
		// served while draining; the only failures are requests the server
		// never got (the listener closed, or a keep-alive connection closed
		// while idle).
		mu.Lock()
		defer mu.Unlock()
		servedWhileDraining, refused := 0, 0
		for _, o := range outcomes {
			if o.err == nil {
				if !o.sent.Before(cancelAt) {
					servedWhileDraining++
				}
				continue
			}
			if started[o.id] {
				t.Errorf("request %s was received but not answered: %v", o.id, o.err)
			}
			refused++
		}
		for id := range started {
			if !finished[id] {
				t.Errorf("request %s did not finish", id)
			}
		}
		if servedWhileDraining == 0 {
			t.Error("no request was served during the drain delay")
		}
		if refused == 0 {
			t.Error("no request met the closed listener: the load did not outlast the drain")
		}
		t.Logf("%d requests: %d received and answered (%d sent while draining), %d never received",
			len(outcomes), len(started), servedWhileDraining, refused)
	})
}

func TestReadinessHandler(t *testing.T) {
	var logs syncbuf.Buffer
	srv := &vane.Server{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	dbErr := errors.New("dial tcp db.internal:5432: connection refused")
	var failing error
	calls := 0
	h := srv.ReadinessHandler(
		vane.ReadinessCheck{Name: "cache", Check: func(ctx context.Context) error { return nil }},
		vane.ReadinessCheck{Name: "database", Check: func(ctx context.Context) error { calls++; return failing }},
	)
	get := func() (int, http.Header, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/readyz", nil))
		return w.Code, w.Header(), w.Body.String()
	}

	code, hdr, body := get()
	if code != 200 || body != `{"status":"ready","checks":{"cache":"ok","database":"ok"}}`+"\n" ||
		hdr.Get("Content-Type") != "application/json" || hdr.Get("Cache-Control") != "no-store" {
		t.Errorf("ready: %d %v %s", code, hdr, body)
	}

	failing = dbErr
	code, hdr, body = get()
	if code != 503 || hdr.Get("Content-Type") != "application/problem+json" || !strings.Contains(body, `"detail":"not ready: database check failed"`) {
		t.Errorf("database down: %d %v %s", code, hdr, body)
	}
	if strings.Contains(body, "db.internal") || !strings.Contains(logs.String(), "db.internal") {
		t.Errorf("the check's error must reach the log, not the client: body %s, log %s", body, logs.String())
	}
	if srv.Draining() {
		t.Error("a server that does not serve reports draining")
	}
}

// While the server drains, readiness answers 503 without running its
// checks, and the response closes its connection; synctest.Wait returns
// once the server is draining, with no time passed.
func TestReadinessHandlerWhileDraining(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &vane.Server{DrainDelay: time.Second}
		checked := false
		srv.Handler = srv.ReadinessHandler(vane.ReadinessCheck{Name: "database", Check: func(ctx context.Context) error {
			checked = true
			return nil
		}})
		ln, stop := serveInBubble(t, srv)
		client := ln.Client()
		if res, err := client.Get("http://memnet/"); err != nil || res.StatusCode != 200 || !checked {
			t.Fatalf("before shutdown: %v %v, checked %v", res, err, checked)
		} else {
			res.Body.Close()
		}
		checked = false
		stopped := make(chan error, 1)
		go func() { stopped <- stop() }()
		synctest.Wait()
		if !srv.Draining() {
			t.Fatal("not draining once the shutdown began")
		}
		res, err := client.Get("http://memnet/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 503 || !strings.Contains(string(body), "shutting down") || checked || !res.Close {
			t.Errorf("draining: %d %q, checked %v, Connection: close %v", res.StatusCode, body, checked, res.Close)
		}
		client.CloseIdleConnections()
		if err := <-stopped; err != nil {
			t.Fatal(err)
		}
	})
}
