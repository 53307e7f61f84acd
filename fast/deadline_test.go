package fast

import (
	"errors"
	"net"
	"os"
	"testing"
	"testing/synctest"
	"time"
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
