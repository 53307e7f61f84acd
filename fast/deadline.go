package fast

import (
	"errors"
	"net"
	"os"
	"sync"
	"time"
)

// timeouts are the deadlines of vane.Server that the engine applies to a
// connection itself. fasthttp is given none of them, so that it reads no
// clock: it would read the wall and the monotonic clock three times a
// request (time.Now for the idle wait, the headers and the answer), where
// the connection reads only the monotonic one (time.Since of the time it
// was accepted). Each is applied as fasthttp would have:
//
//   - header: the read deadline from the connection's start until its
//     first request's headers are read, and for each later request from
//     its first byte;
//   - idle: the read deadline of the wait for the next request, from the
//     time it begins (the answer before it written);
//   - write: the write deadline of an answer, from the end of its handler.
//
// The body's deadline (ReadTimeout) is fasthttp's still, set through
// HeaderReceived for a request that has a body. Zero means none.
type timeouts struct {
	header, idle, write time.Duration
}

// lazyDeadline is one direction's deadline (read or write) of a
// connection, applied lazily, as nanoseconds of the connection's clock
// (peerConn.now; 0: none). A keep-alive connection is given three read
// deadlines and a write deadline a request (the idle wait, the headers,
// the body, the answer), each from the time it is given, so each is later
// than the one before it; moving the runtime's timer costs some 500
// instructions each time.
//
// So a deadline is only recorded when it is later than the one the
// connection holds (or none): the connection keeps its earlier one, which
// fires first. When it fires, rearm sees that the deadline asked for has
// not come, gives the connection that one and the interrupted read or
// write is retried; a client sees no difference. A deadline earlier than
// the one held is set at once, so a deadline is never late. The timer
// moves about once per timeout (10 s for the headers, by default) rather
// than on every request.
type lazyDeadline struct {
	mu   sync.Mutex
	want int64 // the deadline asked for; 0: none
	held int64 // the deadline the connection holds; 0: none
}

// ask records t as the deadline asked for, and reports whether the
// connection must be given it now: when t is earlier than the deadline
// the connection holds, or the connection holds none.
func (d *lazyDeadline) ask(t int64) bool {
	d.mu.Lock()
	d.want = t
	// A zero t (none) keeps the deadline held: it fires, and rearm
	// clears it.
	set := t != 0 && (d.held == 0 || t < d.held)
	if set {
		d.held = t
	}
	d.mu.Unlock()
	return set
}

// rearm is called when a read or write ended with the connection's
// deadline exceeded, at now. When the deadline asked for has not come (it
// is later, or none), the connection is given it by set and rearm
// reports true: the call is to be retried. Otherwise the deadline has
// passed and rearm reports false.
func (d *lazyDeadline) rearm(now int64, set func(int64) error) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.want != 0 && now >= d.want {
		return false
	}
	d.held = d.want
	return set(d.want) == nil
}

// deadlineExceeded reports whether err is a connection's deadline.
func deadlineExceeded(err error) bool {
	return err != nil && errors.Is(err, os.ErrDeadlineExceeded)
}

// newPeerConn is c as the engine serves it: peer is its client's address,
// set the open connections it joins, and limits the server's timeouts,
// whose header deadline starts now (nil: none applied by the connection).
func newPeerConn(c net.Conn, peer string, set *connSet, limits *timeouts) *peerConn {
	pc := &peerConn{Conn: c, peer: peer, set: set, limits: limits, start: time.Now()}
	if limits != nil {
		pc.setRead(pc.after(limits.header))
	}
	return pc
}

// now is the time on the connection's clock: nanoseconds since it was
// accepted, plus one, so that no time is 0 (none). It reads the monotonic
// clock only.
func (c *peerConn) now() int64 { return int64(time.Since(c.start)) + 1 }

// after is the time d from now on the connection's clock; 0 (none) when d
// is.
func (c *peerConn) after(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return deadlineAt(c.now(), d)
}

// deadlineAt is the deadline d after now on a connection's clock; 0
// (none) when d is.
func deadlineAt(now int64, d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return now + int64(d)
}

// clockOf is t on the connection's clock: 0 for the zero time, 1 (passed)
// for a time before the connection's start.
func (c *peerConn) clockOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return max(int64(t.Sub(c.start))+1, 1)
}

// timeOf is the time of m on the connection's clock; the zero time for 0.
func (c *peerConn) timeOf(m int64) time.Time {
	if m == 0 {
		return time.Time{}
	}
	return c.start.Add(time.Duration(m - 1))
}

func (c *peerConn) setRead(m int64) error {
	if c.read.ask(m) {
		return c.Conn.SetReadDeadline(c.timeOf(m))
	}
	return nil
}

func (c *peerConn) setWrite(m int64) error {
	if c.write.ask(m) {
		return c.Conn.SetWriteDeadline(c.timeOf(m))
	}
	return nil
}

// SetReadDeadline sets the read deadline, for the reads that follow,
// until the next answer is done (answered).
func (c *peerConn) SetReadDeadline(t time.Time) error {
	c.waitNext.Store(false)
	return c.setRead(c.clockOf(t))
}

func (c *peerConn) SetWriteDeadline(t time.Time) error {
	return c.setWrite(c.clockOf(t))
}

func (c *peerConn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.SetWriteDeadline(t))
}

// answered is called when the handler of a request has returned (or
// fasthttp's error handler): its answer is written under the write
// deadline from now, and the next read is the wait for the next request,
// under the idle deadline from when it begins.
func (c *peerConn) answered() {
	if c.limits == nil {
		return
	}
	c.setWrite(c.after(c.limits.write))
	c.waitNext.Store(true)
}

// Read reads from the connection. The first read after an answer waits
// for the next request, under the idle deadline; once it brings the
// request's first bytes the header deadline starts, and a write deadline
// for what is written before the answer. (A request that
// follows in the same packets, pipelined, needs no read to begin; when
// its headers need one, that read is taken as the wait: a client holds
// the connection no longer that way than by waiting.) A read that a
// deadline held for an earlier request interrupted is retried.
func (c *peerConn) Read(p []byte) (int, error) {
	waiting := c.waitNext.Load()
	if waiting {
		c.waitNext.Store(false)
		c.setRead(c.after(c.limits.idle))
	}
	for {
		n, err := c.Conn.Read(p)
		if deadlineExceeded(err) && c.read.rearm(c.now(), c.setConnRead) {
			if n == 0 {
				continue
			}
			err = nil
		}
		if waiting && n > 0 {
			// The request has begun: its headers are due, and what is
			// written before its answer (100 Continue) is under a write
			// deadline of its own, not the last answer's.
			now := c.now()
			c.setRead(deadlineAt(now, c.limits.header))
			c.setWrite(deadlineAt(now, c.limits.write))
		}
		return n, err
	}
}

func (c *peerConn) setConnRead(m int64) error  { return c.Conn.SetReadDeadline(c.timeOf(m)) }
func (c *peerConn) setConnWrite(m int64) error { return c.Conn.SetWriteDeadline(c.timeOf(m)) }

// Write writes to the connection, going on with a write that a deadline
// held for an earlier request interrupted.
func (c *peerConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	for deadlineExceeded(err) && c.write.rearm(c.now(), c.setConnWrite) {
		var m int
		m, err = c.Conn.Write(p[n:])
		n += m
	}
	return n, err
}
