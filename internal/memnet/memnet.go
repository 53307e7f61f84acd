// Package memnet is an in-memory network for tests: a listener whose
// connections are net.Pipe pairs. A server and its clients on it run
// inside a testing/synctest bubble, where real sockets cannot (a goroutine
// blocked on a socket is not durably blocked, so the bubble's clock would
// never advance), and then every timeout, deadline and timer they use
// runs on the bubble's fake clock: a test of a read timeout or a drain
// delay is exact, and as fast on a loaded machine as on an idle one.
//
// A net.Pipe has no buffer: a write returns once the other end has read
// it, so a client that stops reading blocks the server's next write at
// once, as a full socket buffer would later.
package memnet

import (
	"context"
	"net"
	"net/http"
	"sync"
	"syscall"
)

// Listener is a net.Listener whose connections come from its Dial.
type Listener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

// Listen returns a new listener. Inside a synctest bubble, call it inside
// the bubble: its channels belong to the bubble that made them.
func Listen() *Listener {
	return &Listener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// Accept waits for a connection from Dial, or for Close.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close makes Accept return net.ErrClosed and Dial fail as a closed port
// refuses (syscall.ECONNREFUSED). Connections already made stay open.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr returns the listener's address, "memnet".
func (l *Listener) Addr() net.Addr { return addr{} }

// Dial connects to l and returns the client's end, once Accept has taken
// the server's; it waits for that, or for ctx's end, or for Close.
func (l *Listener) Dial(ctx context.Context) (net.Conn, error) {
	select {
	case <-l.closed:
		return nil, refused()
	default:
	}
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.closed:
		err := refused()
		client.Close()
		server.Close()
		return nil, err
	case <-ctx.Done():
		client.Close()
		server.Close()
		return nil, ctx.Err()
	}
}

// DialContext is Dial with the signature of http.Transport.DialContext;
// network and address are ignored.
func (l *Listener) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	return l.Dial(ctx)
}

// Client returns an HTTP client whose connections are dialled to l,
// whatever the URL's host ("http://memnet/path" reads well). Close its
// idle connections (CloseIdleConnections) before a bubble ends, so that
// their goroutines end too.
func (l *Listener) Client() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: l.DialContext}}
}

func refused() error {
	return &net.OpError{Op: "dial", Net: "memnet", Err: syscall.ECONNREFUSED}
}

type addr struct{}

func (addr) Network() string { return "memnet" }
func (addr) String() string  { return "memnet" }
