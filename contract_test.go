package vane_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/problem"
)

// rawRequest sends raw on a new TCP connection to base's host and
// returns the first status line the server answers (an interim 100
// Continue is skipped and reported), or "" when none came within a
// minute: a limit for a real socket on a loaded machine, which a passing
// test never reaches.
func rawRequest(t *testing.T, base, raw string, closeWrite bool) (status string, sawContinue bool) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	if closeWrite {
		conn.(*net.TCPConn).CloseWrite()
	}
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	return readStatus(bufio.NewReader(conn))
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
// one whose body is read gets 100 Continue and the answer. In a synctest
// bubble, "at once" is exact: no time passes on the bubble's clock before
// the 401, where a server waiting for the body would answer at its read
// timeout.
func TestExpectContinueAnsweredAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
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
		ln, stop := serveInBubble(t, &vane.Server{Handler: r})

		conn := dialBubble(t, ln)
		start := time.Now()
		io.WriteString(conn, "POST /secret/notes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000\r\nExpect: 100-continue\r\n\r\n")
		status, sawContinue := readStatus(bufio.NewReader(conn))
		if took := time.Since(start); !strings.Contains(status, " 401") || sawContinue || took != 0 {
			t.Errorf("401 without a body: %q after %v (100 Continue sent: %v), want it at once", status, took, sawContinue)
		}
		conn.Close()

		// A body that is read: 100 Continue, then the answer.
		conn = dialBubble(t, ln)
		defer conn.Close()
		body := `{"text":"hi"}`
		io.WriteString(conn, "POST /notes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 13\r\nExpect: 100-continue\r\n\r\n")
		rd := bufio.NewReader(conn)
		line, _ := rd.ReadString('\n')
		if !strings.HasPrefix(line, "HTTP/1.1 100") {
			t.Fatalf("first line %q, want 100 Continue", line)
		}
		rd.ReadString('\n')
		io.WriteString(conn, body)
		res, err := http.ReadResponse(rd, nil)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("%v %v", res, err)
		}
		res.Body.Close()
		conn.Close()
		if err := stop(); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

// A client that shuts down its sending side after its request is still
// reading: it gets the handler's answer, never Timeout's 503, which is
// for Timeout's own deadline only.
func TestTimeoutHalfClosedClient(t *testing.T) {
	r := vane.New()
	// A minute: the handler answers in 20 ms; a loaded machine must not
	// turn its answer into Timeout's 503.
	api := r.Group("", vane.Middleware(middleware.Timeout(time.Minute)))
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
		status, _ := rawRequest(t, base, "POST /notes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n"+body, true)
		if !strings.Contains(status, " 200") {
			t.Fatalf("request %d, half-closed: %q; want the handler's 200", i, status)
		}
	}
}

// A body that stalls is answered 408 before the operation's Timeout
// passes, not Timeout's 503 and not at the server's read timeout: reading
// stops a tenth of the time left before Timeout's deadline, so with a
// Timeout of 500ms the 408 comes at 450ms, exactly, on the synctest
// bubble's clock.
func TestStalledBodyIs408(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := vane.New()
		api := r.Group("", vane.Middleware(middleware.Timeout(500*time.Millisecond)))
		vane.Post(api, "/notes", func(ctx context.Context, in *noteIn) (*noteOut, error) {
			return &noteOut{}, nil
		})
		ln, stop := serveInBubble(t, &vane.Server{Handler: r})
		conn := dialBubble(t, ln)
		start := time.Now()
		io.WriteString(conn, "POST /notes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"text\":")
		status, _ := readStatus(bufio.NewReader(conn))
		if took := time.Since(start); !strings.Contains(status, " 408") || took != 450*time.Millisecond {
			t.Errorf("stalled body: %q after %v, want 408 after 450ms", status, took)
		}
		conn.Close()
		if err := stop(); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
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
