package fast

import (
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// sawConn is a connection whose Read records whether ran was set by the
// time it was called, and returns one byte.
type sawConn struct {
	net.Conn
	ran  *atomic.Bool
	seen bool
}

func (c *sawConn) SetReadDeadline(time.Time) error  { return nil }
func (c *sawConn) SetWriteDeadline(time.Time) error { return nil }

func (c *sawConn) Read(p []byte) (int, error) {
	c.seen = c.ran.Load()
	p[0] = 'x'
	return 1, nil
}

// TestIdleReadYields: the first read after an answer (the wait for the
// next request) lets the goroutines that can run go first, so that a
// loaded server finds the next request there instead of reading nothing
// and being woken for it; the reads of a request under way do not yield.
//
// With one P, a goroutine started just before a read runs before it only
// if the reader yields. The scheduler takes from its global queue first
// once every 61 turns, and a yielding goroutine waits there, so a yield
// is sometimes its own next turn: the test counts over many cycles.
func TestIdleReadYields(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const cycles = 40
	for _, limits := range []*timeouts{nil, {idle: 1 << 40, header: 1 << 40, write: 1 << 40}} {
		var ran atomic.Bool
		sc := &sawConn{ran: &ran}
		c := newPeerConn(sc, "", &connSet{}, limits)
		buf := make([]byte, 8)
		// read reports whether a goroutine started just before it ran
		// before the connection was read.
		read := func() bool {
			ran.Store(false)
			done := make(chan struct{})
			go func() { ran.Store(true); close(done) }()
			if _, err := c.Read(buf); err != nil {
				t.Fatal(err)
			}
			<-done
			return sc.seen
		}
		waits, others := 0, 0
		for range cycles {
			if read() { // the request's first read, or the one after the wait
				others++
			}
			if read() { // the same request
				others++
			}
			c.answered()
			if read() { // the wait for the next request
				waits++
			}
		}
		if waits < cycles*3/4 || others > cycles/4 {
			t.Errorf("limits %v: another goroutine ran first in %d of %d waits for a request (want nearly all) and in %d of %d other reads (want nearly none)",
				limits != nil, waits, cycles, others, 2*cycles)
		}
	}
}
