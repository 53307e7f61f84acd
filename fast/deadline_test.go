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

// countConn counts the deadlines set on the connection under it.
type countConn struct {
	net.Conn
	reads, writes int
}

func (c *countConn) SetReadDeadline(t time.Time) error {
	c.reads++
	return c.Conn.SetReadDeadline(t)
}

func (c *countConn) SetWriteDeadline(t time.Time) error {
	c.writes++
	return c.Conn.SetWriteDeadline(t)
}

// TestLazyDeadlineCount: deadlines asked for later and later, as fasthttp
// asks on a keep-alive connection, move the connection's timer only when
// the one it holds fires, not at every ask.
func TestLazyDeadlineCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		server, client := net.Pipe()
		defer client.Close()
		cc := &countConn{Conn: server}
		c := newPeerConn(cc, "", &connSet{}, nil)
		defer c.Close()
		go func() {
			buf := make([]byte, 1)
			for {
				if _, err := client.Read(buf); err != nil {
					return
				}
				client.Write(buf)
			}
		}()
		const requests = 1000
		buf := make([]byte, 1)
		for range requests {
			// A request a millisecond: idle, header, body and write
			// deadlines, as fasthttp sets them.
			c.SetReadDeadline(time.Now().Add(120 * time.Second))
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			c.SetReadDeadline(time.Now().Add(60 * time.Second))
			c.SetWriteDeadline(time.Now().Add(60 * time.Second))
			if _, err := c.Write([]byte{'x'}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Read(buf); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Millisecond)
		}
		// A second of requests: the first set the idle deadline and then
		// the earlier header one, which has been held since and never
		// fired; the 999 after it set none.
		if cc.reads != 2 || cc.writes != 1 {
			t.Errorf("%d requests set %d read and %d write deadlines on the connection; want 2 and 1", requests, cc.reads, cc.writes)
		}
		// Past the first deadline held, reads go on: the timer moved to
		// the one asked for last.
		time.Sleep(20 * time.Second)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		go func() {
			time.Sleep(time.Second)
			client.Write([]byte{'y'})
		}()
		if _, err := c.Read(buf); err != nil {
			t.Fatalf("a read after the first deadline held fired: %v", err)
		}
		if cc.reads < 3 {
			t.Errorf("%d read deadlines set; the fired one must have been moved", cc.reads)
		}
	})
}

// pipeConn is the engine's connection over one end of a net.Pipe, and
// the other end, both closed when the test ends.
func pipeConn(t *testing.T) (*peerConn, net.Conn) {
	server, client := net.Pipe()
	c := newPeerConn(server, "", &connSet{}, nil)
	t.Cleanup(func() { c.Close(); client.Close() })
	return c, client
}

// TestLazyDeadlineFires: a read waits until the deadline asked for, not
// the earlier one the connection held, and then fails as a timeout; an
// earlier deadline asked for is kept at once; none means none.
func TestLazyDeadlineFires(t *testing.T) {
	for _, tc := range []struct {
		name       string
		held, want time.Duration // from the start; 0: none
		fires      time.Duration // when the read fails; 0: it does not
	}{
		{"later than held", 1 * time.Second, 5 * time.Second, 5 * time.Second},
		{"earlier than held", 5 * time.Second, 1 * time.Second, 1 * time.Second},
		{"none after one held", 1 * time.Second, 0, 0},
		{"held alone", 3 * time.Second, -1, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, client := pipeConn(t)
				start := time.Now()
				c.SetReadDeadline(start.Add(tc.held))
				switch {
				case tc.want > 0:
					c.SetReadDeadline(start.Add(tc.want))
				case tc.want == 0:
					c.SetReadDeadline(time.Time{})
				}
				done := reading(c)
				if tc.fires == 0 {
					// Data after an hour is still read.
					time.Sleep(time.Hour)
					if err := pending(done); err != nil {
						t.Fatalf("the read ended before its data: %v", err)
					}
					client.Write([]byte{'z'})
					if err := <-done; err != nil {
						t.Fatalf("read: %v; want the data", err)
					}
					return
				}
				// Steps of synctest's clock: blocked a nanosecond before
				// the deadline asked for, failed at it.
				time.Sleep(tc.fires - time.Nanosecond)
				if err := pending(done); err != nil {
					t.Fatalf("the read ended before %v: %v", tc.fires, err)
				}
				time.Sleep(time.Nanosecond)
				synctest.Wait()
				var err error
				select {
				case err = <-done:
				default:
					t.Fatalf("the read goes on past %v", tc.fires)
				}
				var ne net.Error
				if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
					t.Errorf("read: %v; want a deadline exceeded, a timeout net.Error", err)
				}
			})
		})
	}
}

// reading starts a one-byte read of c; its error arrives on the channel.
func reading(c net.Conn) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		done <- err
	}()
	return done
}

// pending waits until every goroutine of the bubble is blocked, and
// reports nil while the read goes on, else how it ended (an error saying
// so for a read that got data).
func pending(done <-chan error) error {
	synctest.Wait()
	select {
	case err := <-done:
		if err == nil {
			return errors.New("read data")
		}
		return err
	default:
		return nil
	}
}

// TestLazyDeadlineWrite: a write blocked past the write deadline the
// connection held goes on until the one asked for, then fails; what it
// wrote before is counted.
func TestLazyDeadlineWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, client := pipeConn(t)
		start := time.Now()
		c.SetWriteDeadline(start.Add(time.Second))
		c.SetWriteDeadline(start.Add(4 * time.Second))
		type result struct {
			n   int
			err error
		}
		done := make(chan result, 1)
		go func() {
			n, err := c.Write([]byte("abcdef"))
			done <- result{n, err}
		}()
		time.Sleep(2 * time.Second) // past the held deadline
		client.Read(make([]byte, 3))
		time.Sleep(2*time.Second - time.Nanosecond)
		synctest.Wait()
		select {
		case r := <-done:
			t.Fatalf("the write ended before 4s: %d bytes, %v", r.n, r.err)
		default:
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		select {
		case r := <-done:
			if !errors.Is(r.err, os.ErrDeadlineExceeded) || r.n != 3 {
				t.Fatalf("write: %d bytes, %v; want 3 bytes and a deadline exceeded", r.n, r.err)
			}
		default:
			t.Fatal("the write goes on past 4s")
		}
	})
}

// TestLazyDeadlineKeptAlive: the deadlines fasthttp asks for on a
// kept-alive connection, in its order: the first request's headers, its
// answer, the idle wait, then the second request's headers from its
// first byte. The idle wait outlives the first request's header deadline,
// which the connection still held; the second request's stalled headers
// fail exactly one ReadHeaderTimeout after its first byte.
func TestLazyDeadlineKeptAlive(t *testing.T) {
	const timeout = 10 * time.Second // ReadHeaderTimeout
	synctest.Test(t, func(t *testing.T) {
		c, client := pipeConn(t)
		buf := make([]byte, 64)
		go client.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
		c.SetReadDeadline(time.Now().Add(timeout)) // the first byte, the headers
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
		c.SetWriteDeadline(time.Now().Add(60 * time.Second)) // the answer
		go client.Read(buf)
		if _, err := c.Write([]byte("HTTP/1.1 204 No Content\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(120 * time.Second)) // idle
		done := reading(c)
		time.Sleep(timeout + timeout/2) // past the held header deadline
		if err := pending(done); err != nil {
			t.Fatalf("the idle wait ended at the first request's header deadline: %v", err)
		}
		client.Write([]byte("G")) // the second request's first byte
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(timeout)) // its headers, which stall
		done = reading(c)
		time.Sleep(timeout - time.Nanosecond)
		if err := pending(done); err != nil {
			t.Fatalf("the second request's headers failed early: %v", err)
		}
		time.Sleep(time.Nanosecond)
		if err := pending(done); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("the second request's headers at their deadline: %v; want a deadline exceeded", err)
		}
	})
}

// limitsT are the timeouts of the deadline tests: ReadHeaderTimeout,
// IdleTimeout and WriteTimeout.
var limitsT = timeouts{header: 10 * time.Second, idle: 120 * time.Second, write: 60 * time.Second}

// TestConnDeadlines: the deadlines a connection applies itself, in the
// order the engine's calls come (fasthttp sets none), each failing its
// read or write at the nanosecond it is due on synctest's clock: the
// first headers from the connection's start, the answer from the end of
// its handler, the wait for the next request from when it begins, and
// the next headers from their first byte. A deadline set explicitly
// (a body's, through HeaderReceived) replaces the wait's.
func TestConnDeadlines(t *testing.T) {
	limits := &limitsT
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
			due(t, "the first request's headers", reading(c), limitsT.header-time.Second)
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
			due(t, "the answer", written, limitsT.write)
		})
	})
	t.Run("wait from when it begins, headers from their first byte", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, client := conn(t)
			c.answered()
			time.Sleep(2 * time.Second) // the answer being written
			done := reading(c)
			time.Sleep(limitsT.idle - time.Nanosecond) // past the first headers' deadline, held
			if err := pending(done); err != nil {
				t.Fatalf("the wait for the next request ended early: %v", err)
			}
			go client.Write([]byte("G")) // its first byte, and no more
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			due(t, "the next request's headers", reading(c), limitsT.header)
		})
	})
	t.Run("wait ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _ := conn(t)
			c.answered()
			time.Sleep(5 * time.Second)
			due(t, "the wait for the next request", reading(c), limitsT.idle)
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
	srv := &vane.Server{Handler: r, ReadHeaderTimeout: limitsT.header, IdleTimeout: limitsT.idle, WriteTimeout: limitsT.write,
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
	// answered408 checks that no answer comes until d - 1ns from now, and
	// a 408 at d.
	answered408 := func(t *testing.T, answers <-chan *http.Response, d time.Duration) {
		t.Helper()
		if res := arrivesAt(t, "the answer", answers, d); res.StatusCode != http.StatusRequestTimeout {
			t.Fatalf("answered %d; want 408", res.StatusCode)
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
			arrivesAt(t, "the end of the connection", ended, limitsT.idle)
		})
	})
	t.Run("headers after a wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			client, answers, _ := serve(t)
			io.WriteString(client, get)
			<-answers
			time.Sleep(limitsT.idle - time.Second) // long past the first headers' deadline
			io.WriteString(client, "GET /ping HTTP/1.1\r\n")
			answered408(t, answers, limitsT.header)
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
			answered408(t, answers, limitsT.header)
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
			answered408(t, answers, limitsT.idle)
		})
	})
	t.Run("100-continue after WriteTimeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			// A kept-alive connection reused past the last answer's write
			// deadline: the interim 100 Continue is written under a
			// deadline of this request's, not that one.
			client, answers, ended := serve(t)
			io.WriteString(client, get)
			<-answers
			time.Sleep(limitsT.write + limitsT.write/2)
			io.WriteString(client, "GET /ping HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
			synctest.Wait()
			select {
			case res := <-answers:
				if res.StatusCode != http.StatusContinue {
					t.Fatalf("answered %d; want 100 first", res.StatusCode)
				}
			case err := <-ended:
				t.Fatalf("the connection ended: %v", err)
			default:
				t.Fatal("no 100 Continue")
			}
		})
	})
	t.Run("answer not read", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			client, served := start(t)
			io.WriteString(client, get) // and its answer never read
			synctest.Wait()
			if err := arrivesAt(t, "the end of the connection", served, limitsT.write); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("the connection ended with %v; want its write deadline exceeded", err)
			}
		})
	})
}

// arrivesAt checks that nothing comes on ch until d - 1ns from now, on
// synctest's clock, and that something does at d; it returns what came.
func arrivesAt[T any](t *testing.T, what string, ch <-chan T, d time.Duration) T {
	t.Helper()
	time.Sleep(d - time.Nanosecond)
	synctest.Wait()
	select {
	case v := <-ch:
		t.Fatalf("%s came early: %v", what, v)
	default:
	}
	time.Sleep(time.Nanosecond)
	synctest.Wait()
	select {
	case v := <-ch:
		return v
	default:
		t.Fatalf("%s did not come at its time", what)
	}
	panic("unreachable")
}
