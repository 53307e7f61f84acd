package fast

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane"
)

type pingOut struct {
	Pong bool `json:"pong"`
}

type echoIn struct {
	Body []byte
}

// TestDrain: when the server's context ends, readiness fails at once
// (srv.ReadinessHandler, through the adapter) while the server goes on
// serving, every answer closes its connection, a request in flight
// finishes, and then the server stops.
func TestDrain(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{})
	srv := &vane.Server{NoSignals: true, DrainDelay: time.Second, ShutdownTimeout: patience}
	r := vane.New()
	r.Handle(http.MethodGet, "/readyz", srv.ReadinessHandler())
	vane.Get(r, "/ping", func(ctx context.Context, in *struct{}) (*pingOut, error) { return &pingOut{true}, nil })
	vane.Get(r, "/slow", func(ctx context.Context, in *struct{}) (*pingOut, error) {
		close(entered)
		<-release
		return &pingOut{true}, nil
	})
	srv.Handler = r
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeListener(ctx, srv, ln) }()

	if got := exchange(t, addr, req("GET", "/readyz", ""), 1); len(got) != 1 || got[0].status != 200 {
		t.Fatalf("ready before: %v", got)
	}
	keep := dial(t, addr) // a keep-alive connection, opened before the drain
	keep.c.SetDeadline(time.Now().Add(patience))
	if res, err := keep.get("/ping"); err != nil || res.StatusCode != 200 || res.Close {
		t.Fatalf("before the drain: %v %v", res, err)
	}
	slow := make(chan []answer, 1)
	go func() { slow <- exchange(t, addr, req("GET", "/slow", ""), 1) }()
	<-entered

	cancel()
	deadline := time.Now().Add(patience)
	for {
		got := exchange(t, addr, req("GET", "/readyz", ""), 1)
		if len(got) == 1 && got[0].status == 503 {
			if got[0].header.Get("Retry-After") == "" {
				t.Errorf("readiness 503 without Retry-After: %v", got[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readiness did not fail: %v", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Still serving, natively, but closing each connection after its answer.
	if res, err := keep.get("/ping"); err != nil || res.StatusCode != 200 || !res.Close {
		t.Fatalf("while draining: %v %v; want a 200 that closes the connection", res, err)
	}
	close(release)
	if got := <-slow; len(got) != 1 || got[0].status != 200 {
		t.Fatalf("the request in flight: %v", got)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeListener: %v", err)
		}
	case <-time.After(2 * patience):
		t.Fatal("the server did not stop")
	}
}

// TestLimits: the server's limits on both engines: the same statuses.
func TestLimits(t *testing.T) {
	r := vane.New()
	vane.Post(r, "/echo", func(ctx context.Context, in *echoIn) (*[]byte, error) { return &in.Body, nil },
		vane.BodyLimit(vane.Off)) // only the server's limit
	limits := func(s *vane.Server) { s.MaxBodyBytes, s.MaxHeaderBytes = 100, 1024 }
	cases := map[string]string{
		"declared over":   req("POST", "/echo", strings.Repeat("x", 200), "Content-Type: application/octet-stream"),
		"chunked over":    "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nc8\r\n" + strings.Repeat("y", 200) + "\r\n0\r\n\r\n",
		"within":          req("POST", "/echo", strings.Repeat("z", 100), "Content-Type: application/octet-stream"),
		"headers over":    req("POST", "/echo", "a", "X-Big: "+strings.Repeat("h", 6000)),
		"headers within":  req("POST", "/echo", "a", "X-Big: "+strings.Repeat("h", 3000)),
		"plain over":      req("GET", "/nowhere", "", "X-Big: "+strings.Repeat("h", 6000)),
		"garbage":         "NOT HTTP\r\n\r\n",
		"bad version":     "GET / HTTP/9.9\r\nHost: x\r\n\r\n",
		"space in target": "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n",
	}
	statuses := map[string]map[string]int{}
	for _, eng := range engines {
		addr := serveOn(t, eng, r, limits)
		statuses[eng] = map[string]int{}
		for name, raw := range cases {
			got := exchange(t, addr, raw, 1)
			if len(got) == 1 {
				statuses[eng][name] = got[0].status
			}
		}
	}
	for name := range cases {
		a, b := statuses["net/http"][name], statuses["fast"][name]
		if a != b {
			t.Errorf("%s: net/http %d, fast %d", name, a, b)
		}
	}
	if statuses["fast"]["declared over"] != 413 || statuses["fast"]["chunked over"] != 413 || statuses["fast"]["headers over"] != 431 {
		t.Errorf("fast: %v", statuses["fast"])
	}
}

// TestHeaderTimeout: a client that does not finish its headers within
// ReadHeaderTimeout loses its connection.
func TestHeaderTimeout(t *testing.T) {
	r := vane.New()
	addr := serveOn(t, "fast", r, func(s *vane.Server) { s.ReadHeaderTimeout = 100 * time.Millisecond })
	c, err := net.DialTimeout("tcp", addr, patience)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n") // and no more
	c.SetReadDeadline(time.Now().Add(patience))        // generous: the machine is shared
	rest, err := io.ReadAll(c)
	if err != nil && !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("the connection was not closed: %v", err)
	}
	if len(rest) > 0 && !strings.HasPrefix(string(rest), "HTTP/1.1 408") {
		t.Fatalf("answered %q", rest)
	}
}

// TestHeaderTimeoutKeptAlive: a kept-alive connection outlives the
// header deadline of its first request, which the connection still holds
// while it waits for the next (deadlines are applied lazily): a request
// sent after it is answered. When each deadline fires is checked on
// synctest's clock by TestLazyDeadlineKeptAlive; here only the order of
// events on a real socket, waiting past a short ReadHeaderTimeout.
func TestHeaderTimeoutKeptAlive(t *testing.T) {
	const timeout = 200 * time.Millisecond
	r := vane.New()
	vane.Get(r, "/ping", func(ctx context.Context, in *struct{}) (*pingOut, error) { return &pingOut{true}, nil })
	addr := serveOn(t, "fast", r, func(s *vane.Server) { s.ReadHeaderTimeout = timeout })
	c := dial(t, addr)
	c.c.SetDeadline(time.Now().Add(patience))
	if res, err := c.get("/ping"); err != nil || res.StatusCode != 200 {
		t.Fatalf("first request: %v %v", res, err)
	}
	time.Sleep(2 * timeout) // past the first request's header deadline
	if res, err := c.get("/ping"); err != nil || res.StatusCode != 200 {
		t.Fatalf("a request after the first one's header deadline: %v %v; want 200 on the same connection", res, err)
	}
}

// TestOverload: past MaxConnections a new connection is answered 503 with
// a problem and Retry-After, and closed; the connections within are
// served.
func TestOverload(t *testing.T) {
	r := vane.New()
	vane.Get(r, "/ping", func(ctx context.Context, in *struct{}) (*pingOut, error) { return &pingOut{true}, nil })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ServeListener(ctx, &vane.Server{Handler: r, NoSignals: true}, ln, MaxConnections(1))
	}()
	defer func() { cancel(); <-done }()
	addr := ln.Addr().String()
	first := dial(t, addr)
	first.c.SetDeadline(time.Now().Add(patience))
	if res, err := first.get("/ping"); err != nil || res.StatusCode != 200 {
		t.Fatalf("first: %v %v", res, err)
	}
	got := exchange(t, addr, req("GET", "/ping", ""), 0)
	if len(got) != 1 || got[0].status != 503 || got[0].header.Get("Retry-After") != "1" ||
		got[0].header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("second connection: %v", got)
	}
	if res, err := first.get("/ping"); err != nil || res.StatusCode != 200 {
		t.Fatalf("first again: %v %v", res, err)
	}
}

// get sends GET path on c and reads the answer whole.
func (c *conn) get(path string) (*http.Response, error) {
	c.c.SetDeadline(time.Now().Add(patience))
	if _, err := io.WriteString(c.c, req("GET", path, "")); err != nil {
		return nil, err
	}
	res, err := http.ReadResponse(c.rd, nil)
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res, nil
}

// TestStopAtOnce: a server whose context ends as soon as it starts (before
// fasthttp's Serve has begun, in some of the rounds) stops, and returns
// nil, as on net/http's server.
func TestStopAtOnce(t *testing.T) {
	for i := range 50 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		srv := &vane.Server{Handler: vane.New(), NoSignals: true, Logger: slog.New(slog.DiscardHandler),
			OnListen: func(net.Addr) { cancel() }}
		done := make(chan error, 1)
		go func() { done <- ServeListener(ctx, srv, ln) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
		case <-time.After(patience): // a hang, not a bound on time: it stops at once
			t.Fatalf("round %d: the server did not stop", i)
		}
		cancel()
	}
}
