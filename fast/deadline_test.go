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
		c := &peerConn{Conn: cc, set: &connSet{}}
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
	c := &peerConn{Conn: server, set: &connSet{}}
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
				if tc.fires == 0 {
					// Data after an hour is still read.
					go func() {
						time.Sleep(time.Hour)
						client.Write([]byte{'z'})
					}()
				}
				_, err := c.Read(make([]byte, 1))
				took := time.Since(start)
				switch {
				case tc.fires == 0 && err != nil:
					t.Fatalf("read failed after %v: %v; want it to wait for data", took, err)
				case tc.fires != 0 && !errors.Is(err, os.ErrDeadlineExceeded):
					t.Fatalf("read after %v: %v; want a deadline exceeded", took, err)
				case tc.fires != 0 && took != tc.fires:
					t.Fatalf("read failed after %v; want at %v (synctest's clock)", took, tc.fires)
				}
				var ne net.Error
				if tc.fires != 0 && (!errors.As(err, &ne) || !ne.Timeout()) {
					t.Errorf("%v is not a timeout net.Error", err)
				}
			})
		})
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
		go func() {
			time.Sleep(2 * time.Second) // past the held deadline
			client.Read(make([]byte, 3))
		}()
		n, err := c.Write([]byte("abcdef"))
		if took := time.Since(start); !errors.Is(err, os.ErrDeadlineExceeded) || took != 4*time.Second || n != 3 {
			t.Fatalf("write: %d bytes, %v after %v; want 3 bytes and a deadline exceeded at 4s", n, err, took)
		}
	})
}
