package fast

import (
	"errors"
	"os"
	"sync"
	"time"
)

// lazyDeadline is one direction's deadline (read or write) of a
// connection, applied lazily. fasthttp sets three read deadlines and a
// write deadline for every request of a keep-alive connection (the idle
// wait, the headers, the body, the answer), each from the time it is set,
// so each is later than the one before it; moving the runtime's timer
// costs some 500 instructions each time.
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
	want time.Time // the deadline asked for; zero: none
	held time.Time // the deadline the connection holds; zero: none
}

// ask records t as the deadline asked for, and reports whether the
// connection must be given it now: when t is earlier than the deadline
// the connection holds, or the connection holds none.
func (d *lazyDeadline) ask(t time.Time) bool {
	d.mu.Lock()
	d.want = t
	// A zero t (none) keeps the deadline held: it fires, and rearm
	// clears it.
	set := !t.IsZero() && (d.held.IsZero() || t.Before(d.held))
	if set {
		d.held = t
	}
	d.mu.Unlock()
	return set
}

// rearm is called when a read or write ended with the connection's
// deadline exceeded. When the deadline asked for has not come (it is
// later, or none), the connection is given it by set and rearm reports
// true: the call is to be retried. Otherwise the deadline has passed and
// rearm reports false.
func (d *lazyDeadline) rearm(now time.Time, set func(time.Time) error) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.want.IsZero() && !now.Before(d.want) {
		return false
	}
	d.held = d.want
	return set(d.want) == nil
}

// deadlineExceeded reports whether err is a connection's deadline.
func deadlineExceeded(err error) bool {
	return err != nil && errors.Is(err, os.ErrDeadlineExceeded)
}

func (c *peerConn) SetReadDeadline(t time.Time) error {
	if c.read.ask(t) {
		return c.Conn.SetReadDeadline(t)
	}
	return nil
}

func (c *peerConn) SetWriteDeadline(t time.Time) error {
	if c.write.ask(t) {
		return c.Conn.SetWriteDeadline(t)
	}
	return nil
}

func (c *peerConn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.SetWriteDeadline(t))
}

// Read reads from the connection, retrying a read that a deadline held
// for an earlier request interrupted.
func (c *peerConn) Read(p []byte) (int, error) {
	for {
		n, err := c.Conn.Read(p)
		if !deadlineExceeded(err) || !c.read.rearm(time.Now(), c.Conn.SetReadDeadline) {
			return n, err
		}
		if n > 0 {
			return n, nil
		}
	}
}

// Write writes to the connection, going on with a write that a deadline
// held for an earlier request interrupted.
func (c *peerConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	for deadlineExceeded(err) && c.write.rearm(time.Now(), c.Conn.SetWriteDeadline) {
		var m int
		m, err = c.Conn.Write(p[n:])
		n += m
	}
	return n, err
}
