package fast

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane"
)

// patience bounds every wait on a socket in these tests: generous, since
// the machine is shared; a test that hangs fails instead.
const patience = 10 * time.Second

// engines are the two servers every differential test runs on.
var engines = []string{"net/http", "fast"}

// serveOn serves h on a loopback listener with vane.Server's defaults,
// changed by mod, on net/http's server or on the fast engine, until the
// test ends; it returns the address.
func serveOn(t testing.TB, eng string, h http.Handler, mod func(*vane.Server)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &vane.Server{Handler: h, NoSignals: true, ShutdownTimeout: patience}
	if mod != nil {
		mod(srv)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		if eng == "fast" {
			done <- ServeListener(ctx, srv, ln)
		} else {
			done <- srv.Serve(ctx, ln)
		}
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("%s: serve: %v", eng, err)
			}
		case <-time.After(2 * patience):
			t.Errorf("%s: did not stop", eng)
		}
	})
	return ln.Addr().String()
}

// answer is a response as the tests compare them.
type answer struct {
	status int
	header http.Header
	body   string
}

// exchange sends raw, one or more requests, on a new connection and reads
// every response until the server closes it or, when n > 0, until n were
// read.
func exchange(t testing.TB, addr, raw string, n int) []answer {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, patience)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(patience))
	// Written while the answers are read: a server may answer (and
	// close) before it has read the whole of a large request.
	go io.WriteString(c, raw)
	rd := bufio.NewReader(c)
	var out []answer
	for n <= 0 || len(out) < n {
		method := "GET"
		if strings.HasPrefix(raw, "HEAD ") {
			method = "HEAD"
		}
		res, err := http.ReadResponse(rd, &http.Request{Method: method})
		if err != nil {
			break
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		out = append(out, answer{res.StatusCode, res.Header, string(b)})
		if res.Close {
			break
		}
	}
	return out
}

// comparable drops what two engines may rightly send differently: Date,
// and the framing (Content-Length or chunked, which the body read
// already accounts for, and Connection: keep-alive).
func (a answer) comparable() answer {
	h := a.header.Clone()
	for _, k := range []string{"Date", "Content-Length", "Transfer-Encoding"} {
		delete(h, k)
	}
	if v := h.Get("Connection"); strings.EqualFold(v, "keep-alive") {
		delete(h, "Connection")
	}
	return answer{a.status, h, a.body}
}

func (a answer) String() string {
	var keys []string
	for k := range a.header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString(http.StatusText(a.status))
	for _, k := range keys {
		b.WriteString("\n  " + k + ": " + strings.Join(a.header[k], " | "))
	}
	b.WriteString("\n  " + a.body)
	return b.String()
}
