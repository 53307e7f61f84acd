// Package rawhttp sends an HTTP/1.1 exchange written as text on a fresh
// TCP connection and reads the answers back, for the conformance suites'
// cases that a client library would not send as written: bad framing,
// repeated or malformed fields, pipelined requests, half-closed
// connections.
package rawhttp

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"time"
)

// Response is one answer read back.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Options says how an exchange ends.
type Options struct {
	// HalfClose closes the connection's sending side once text is
	// written, as a client that has nothing more to send.
	HalfClose bool
	// Wait bounds the whole write and the wait for each answer; Next, if
	// set, bounds the silence after an answer instead. Both are generous
	// limits for a service built with the race detector on a busy
	// machine: an exchange waits for them only when the server neither
	// answers nor closes, which is the end of the exchange.
	Wait, Next time.Duration
}

// Exchange writes text on conn, a new connection to the server, reads
// every answer until the server closes the connection, an answer says
// Connection: close, or the server stays silent past o's limits, and
// closes conn. It returns the answers read, and the write's error: a
// server may close before it has read all of text, and the answers it
// sent are read all the same.
func Exchange(conn net.Conn, text string, o Options) ([]Response, error) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(o.Wait))
	_, writeErr := io.WriteString(conn, text)
	if o.HalfClose {
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
	}
	rd := bufio.NewReader(conn)
	var answers []Response
	for {
		wait := o.Wait
		if len(answers) > 0 && o.Next > 0 {
			wait = o.Next
		}
		conn.SetReadDeadline(time.Now().Add(wait))
		res, err := http.ReadResponse(rd, nil)
		if err != nil {
			return answers, writeErr
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		answers = append(answers, Response{res.StatusCode, res.Header, b})
		if res.Close {
			return answers, writeErr
		}
	}
}
