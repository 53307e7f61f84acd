package fast

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/vane-http/vane"
)

// The timeouts of these tests: ReadHeaderTimeout, IdleTimeout and
// WriteTimeout.
const (
	headerT = 10 * time.Second
	idleT   = 120 * time.Second
	writeT  = 60 * time.Second
)

// TestConnDeadlines: the deadlines a connection applies itself, in the
// order the engine's calls come (fasthttp sets none), each failing its
// read or write at the nanosecond it is due on synctest's clock: the
// first headers from the connection's start, the answer from the end of
// its handler, the wait for the next request from when it begins, and
// the next headers from their first byte. A deadline set explicitly
// (a body's, through HeaderReceived) replaces the wait's.
func TestConnDeadlines(t *testing.T) {
	limits := &timeouts{header: headerT, idle: idleT, write: writeT}
	conn := func(t *testing.T) (*peerConn, net.Conn) {
		server, client := net.Pipe()
		c := newPeerConn(server, "", &connSet{}, limits)
		t.Cleanup(func() { c.Close(); client.Close() })
		return c, client
	}
	// due checks that done has not ended d - 1ns from now, and has ended
	// with a deadline exceeded at d.
	due := func(t *testing.T, what string, done <-chan error, d time.Duration) {
		t.Helper()
		time.Sleep(d - time.Nanosecond)
		if err := pending(done); err != nil {
			t.Fatalf("%s ended early: %v", what, err)
		}
		time.Sleep(time.Nanosecond)
		if err := pending(done); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("%s at its deadline: %v; want a deadline exceeded", what, err)
		}
	}
	t.Run("first headers from the start", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, client := conn(t)
			time.Sleep(time.Second)
			go client.Write([]byte("G")) // and no more
			if _, err := c.Read(make([]byte, 1)); err != nil {
				t.Fatal(err)
			}
			due(t, "the first request's headers", reading(c), headerT-time.Second)
		})
	})
	t.Run("answer from the end of the handler", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _ := conn(t)
			time.Sleep(3 * time.Second) // the handler
			c.answered()
			written := make(chan error, 1)
			go func() { // a client that does not read its answer
				_, err := c.Write([]byte("HTTP/1.1 204 No Content\r\n\r\n"))
				written <- err
			}()
			due(t, "the answer", written, writeT)
		})
	})
	t.Run("wait from when it begins, headers from their first byte", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, client := conn(t)
			c.answered()
			time.Sleep(2 * time.Second) // the answer being written
			done := reading(c)
			time.Sleep(idleT - time.Nanosecond) // past the first headers' deadline, held
			if err := pending(done); err != nil {
				t.Fatalf("the wait for the next request ended early: %v", err)
			}
			go client.Write([]byte("G")) // its first byte, and no more
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			due(t, "the next request's headers", reading(c), headerT)
		})
	})
	t.Run("wait ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _ := conn(t)
			c.answered()
			time.Sleep(5 * time.Second)
			due(t, "the wait for the next request", reading(c), idleT)
		})
	})
	t.Run("a deadline set replaces the wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _ := conn(t)
			c.answered()
			// A request read from what came with the last (pipelined),
			// whose body has its own deadline.
			c.SetReadDeadline(time.Now().Add(30 * time.Second))
			due(t, "the body", reading(c), 30*time.Second)
		})
	})
	t.Run("none", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			server, client := net.Pipe()
			c := newPeerConn(server, "", &connSet{}, &timeouts{})
			defer client.Close()
			defer c.Close()
			c.answered()
			done := reading(c)
			time.Sleep(1000 * time.Hour)
			if err := pending(done); err != nil {
				t.Fatalf("a read without timeouts ended: %v", err)
			}
		})
	})
}

// TestServerDeadlines: fasthttp's server with the engine's settings, on
// a connection of synctest's clock: it is given no timeout of its own,
// and a kept-alive connection still waits exactly IdleTimeout for its
// next request after an answer, and a stalled request is answered 408
// exactly ReadHeaderTimeout after its first byte.
func TestServerDeadlines(t *testing.T) {
	// fasthttp's Date refresher runs from its first answer on, for good:
	// started here, outside the bubbles.
	var h fasthttp.ResponseHeader
	_ = h.Header()
	r := vane.New()
	vane.Get(r, "/ping", func(ctx context.Context, in *struct{}) (*pingOut, error) { return &pingOut{true}, nil })
	srv := &vane.Server{Handler: r, ReadHeaderTimeout: headerT, IdleTimeout: idleT, WriteTimeout: writeT,
		Logger: slog.New(slog.DiscardHandler)}
	// start serves one connection in the bubble: its client's end, and
	// the server's end of serving it.
	start := func(t *testing.T) (net.Conn, <-chan error) {
		e, err := newEngine(context.Background(), srv, nil)
		if err != nil {
			t.Fatal(err)
		}
		if e.fs.ReadTimeout != 0 || e.fs.WriteTimeout != 0 || e.fs.IdleTimeout != 0 {
			t.Fatalf("fasthttp is given timeouts %v %v %v; the connections apply them", e.fs.ReadTimeout, e.fs.WriteTimeout, e.fs.IdleTimeout)
		}
		server, client := net.Pipe()
		pc := newPeerConn(server, "192.0.2.1:9", &e.conns, &e.limits)
		served := make(chan error, 1)
		go func() { served <- e.fs.ServeConn(pc) }()
		t.Cleanup(func() { client.Close(); e.Close() })
		return client, served
	}
	// serve is start with the server's answers read as they come.
	serve := func(t *testing.T) (net.Conn, <-chan *http.Response, <-chan error) {
		client, _ := start(t)
		answers := make(chan *http.Response, 4)
		ended := make(chan error, 1)
		go func() {
			br := bufio.NewReader(client)
			for {
				res, err := http.ReadResponse(br, nil)
				if err != nil {
					ended <- err
					return
				}
				io.ReadAll(res.Body)
				answers <- res
			}
		}()
		return client, answers, ended
	}
	// answered408 checks that no answer came d - 1ns from now, and a 408
	// at d.
	answered408 := func(t *testing.T, answers <-chan *http.Response, d time.Duration) {
		t.Helper()
		time.Sleep(d - time.Nanosecond)
		synctest.Wait()
		select {
		case res := <-answers:
			t.Fatalf("answered %d early", res.StatusCode)
		default:
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		select {
		case res := <-answers:
			if res.StatusCode != http.StatusRequestTimeout {
				t.Fatalf("answered %d; want 408", res.StatusCode)
			}
		default:
			t.Fatal("no answer at the deadline")
		}
	}
	get := "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n"
	t.Run("idle", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			client, answers, ended := serve(t)
			io.WriteString(client, get)
			if res := <-answers; res.StatusCode != 200 {
				t.Fatalf("first request: %d", res.StatusCode)
			}
			time.Sleep(idleT - time.Nanosecond)
			synctest.Wait()
			select {
			case err := <-ended:
				t.Fatalf("the connection ended before IdleTimeout: %v", err)
			default:
			}
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			select {
			case <-ended:
			default:
				t.Fatal("the connection is open past IdleTimeout")
			}
		})
	})
	t.Run("headers after a wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			client, answers, _ := serve(t)
			io.WriteString(client, get)
			<-answers
			time.Sleep(idleT - time.Second) // long past the first headers' deadline
			io.WriteString(client, "GET /ping HTTP/1.1\r\n")
			answered408(t, answers, headerT)
		})
	})
	t.Run("headers trickled", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			client, answers, _ := serve(t)
			io.WriteString(client, get)
			<-answers
			time.Sleep(time.Minute)
			// A byte a second, never the end of the headers: each byte
			// moves nothing, the headers are due ReadHeaderTimeout after
			// the first.
			stop := make(chan struct{})
			go func() {
				for _, b := range []byte("GET /ping HTTP/1.1\r\nHost: x\r\nX-Slow: ") {
					if _, err := client.Write([]byte{b}); err != nil {
						return
					}
					select {
					case <-stop:
						return
					case <-time.After(time.Second):
					}
				}
			}()
			answered408(t, answers, headerT)
			close(stop)
		})
	})
	t.Run("pipelined headers unfinished", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			// A second request's first bytes sent with the first: the
			// read for the rest is the wait for the next request, and its
			// headers are cut at IdleTimeout after the answer, as a wait
			// with no byte would be (a client holds the connection no
			// longer than by waiting and then sending slowly).
			client, answers, _ := serve(t)
			io.WriteString(client, get+"GET /ping HTTP/1.1\r\n")
			if res := <-answers; res.StatusCode != 200 {
				t.Fatalf("first request: %d", res.StatusCode)
			}
			answered408(t, answers, idleT)
		})
	})
	t.Run("answer not read", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			client, served := start(t)
			io.WriteString(client, get) // and its answer never read
			synctest.Wait()
			time.Sleep(writeT - time.Nanosecond)
			synctest.Wait()
			select {
			case err := <-served:
				t.Fatalf("the connection ended before WriteTimeout: %v", err)
			default:
			}
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			select {
			case err := <-served:
				if !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("the connection ended with %v; want its write deadline exceeded", err)
				}
			default:
				t.Fatal("the connection is served past WriteTimeout with its answer unread")
			}
		})
	})
}
