package vane_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/problem"
)

// rawRequest sends raw on a new connection to base's host and returns the
// first status line the server answers (an interim 100 Continue is
// skipped and reported), or "" when none came within wait.
func rawRequest(t *testing.T, base, raw string, closeWrite bool, wait time.Duration) (status string, sawContinue bool, took time.Duration) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := conn.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	if closeWrite {
		conn.(*net.TCPConn).CloseWrite()
	}
	conn.SetReadDeadline(time.Now().Add(wait))
	rd := bufio.NewReader(conn)
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			return "", sawContinue, time.Since(start)
		}
		if strings.HasPrefix(line, "HTTP/1.1 100") {
			sawContinue = true
			continue
		}
		if strings.HasPrefix(line, "HTTP/") {
			return strings.TrimSpace(line), sawContinue, time.Since(start)
		}
	}
}

type noteIn struct {
	Body struct {
		Text string `json:"text"`
	}
}

type noteOut struct {
	Body struct {
		Text string `json:"text"`
	}
}

// A client that sends Expect: 100-continue and holds its body back gets a
// response that needs no body (401) at once, not after its own timeout;
// one whose body is read gets 100 Continue and the answer.
func TestExpectContinueAnsweredAtOnce(t *testing.T) {
	r := vane.New()
	auth := r.Group("/secret", vane.Middleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
		})
	}))
	auth.HandleFunc(http.MethodPost, "/notes", func(w http.ResponseWriter, req *http.Request) {})
	vane.Post(r, "/notes", func(ctx context.Context, in *noteIn) (*noteOut, error) {
		out := &noteOut{}
		out.Body.Text = in.Body.Text
		return out, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	base, wait := startTestServer(t, ctx, &vane.Server{Handler: r})
	defer func() { cancel(); wait() }()

	head := "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000\r\nExpect: 100-continue\r\n\r\n"
	status, sawContinue, took := rawRequest(t, base, strings.Replace(head, "%s", "/secret/notes", 1), false, 3*time.Second)
	if !strings.Contains(status, " 401") || sawContinue || took > time.Second {
		t.Errorf("401 without a body: %q after %v (100 Continue sent: %v)", status, took, sawContinue)
	}

	// A body that is read: 100 Continue, then the answer.
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"text":"hi"}`
	conn.Write([]byte("POST /notes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 13\r\nExpect: 100-continue\r\n\r\n"))
	conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	rd := bufio.NewReader(conn)
	line, _ := rd.ReadString('\n')
	if !strings.HasPrefix(line, "HTTP/1.1 100") {
		t.Fatalf("first line %q, want 100 Continue", line)
	}
	rd.ReadString('\n')
	conn.Write([]byte(body))
	res, err := http.ReadResponse(rd, nil)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("%v %v", res, err)
	}
}

// A client that shuts down its sending side after its request is still
// reading: it gets the handler's answer, never Timeout's 503, which is
// for Timeout's own deadline only.
func TestTimeoutHalfClosedClient(t *testing.T) {
	r := vane.New()
	api := r.Group("", vane.Middleware(middleware.Timeout(5*time.Second)))
	created := make(chan struct{}, 100)
	vane.Post(api, "/notes", func(ctx context.Context, in *noteIn) (*noteOut, error) {
		time.Sleep(20 * time.Millisecond) // long enough for the server to see the half-close
		created <- struct{}{}
		out := &noteOut{}
		out.Body.Text = in.Body.Text
		return out, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	base, wait := startTestServer(t, ctx, &vane.Server{Handler: r})
	defer func() { cancel(); wait() }()
	body := `{"text":"hi"}`
	for i := range 10 {
		status, _, _ := rawRequest(t, base, "POST /notes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n"+body, true, 3*time.Second)
		if !strings.Contains(status, " 200") {
			t.Fatalf("request %d, half-closed: %q; want the handler's 200", i, status)
		}
	}
}

// A body that stalls is answered 408 within the operation's Timeout, not
// Timeout's 503 and not at the server's read timeout.
func TestStalledBodyIs408(t *testing.T) {
	r := vane.New()
	api := r.Group("", vane.Middleware(middleware.Timeout(500*time.Millisecond)))
	vane.Post(api, "/notes", func(ctx context.Context, in *noteIn) (*noteOut, error) {
		return &noteOut{}, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	base, wait := startTestServer(t, ctx, &vane.Server{Handler: r})
	defer func() { cancel(); wait() }()
	status, _, took := rawRequest(t, base, "POST /notes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"text\":", false, 5*time.Second)
	if !strings.Contains(status, " 408") || took > 2*time.Second {
		t.Errorf("stalled body: %q after %v, want 408 within the 500ms timeout", status, took)
	}
}

// Server's own 413, for a declared body over its limit, goes through the
// router's ErrorHook.
func TestServerTooLargeThroughHook(t *testing.T) {
	r := vane.New(vane.ErrorHook(func(req *http.Request, p *problem.Details) *problem.Details {
		return p.WithHeader("X-Hooked", "1")
	}))
	vane.Post(r, "/notes", func(ctx context.Context, in *noteIn) (*noteOut, error) { return &noteOut{}, nil })
	ctx, cancel := context.WithCancel(context.Background())
	base, wait := startTestServer(t, ctx, &vane.Server{Handler: r, MaxBodyBytes: 10})
	defer func() { cancel(); wait() }()
	res, err := http.Post(base+"/notes", "application/json", strings.NewReader(`{"text":"more than ten bytes"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 413 || res.Header.Get("X-Hooked") != "1" {
		t.Errorf("%d %v", res.StatusCode, res.Header)
	}
}
