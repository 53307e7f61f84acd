package adversarial

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// memory: what an anonymous client can make the service hold after its
// requests are answered.
func memory(t *testing.T, s *target) {
	t.Run("thousands of header lines leave nothing with their connection", func(t *testing.T) {
		// A request of 9,000 header lines of seven bytes (63 KB, within
		// the service's 64 KiB) is answered, and its connection stays
		// open. A server that keeps what reading the lines grew (the fast
		// engine's state, fasthttp's request header: some 2 MB here)
		// with the connection, or in a pool from which the next
		// connection takes it, lets a client pin a megabyte a connection
		// for as long as it keeps connections open.
		//
		// Measured as the service's resident memory, a round at a time:
		// conns connections kept open after one kind of request, each
		// with a connection beside it, closed, that sent the other kind,
		// so that every round makes the same garbage and takes from the
		// same pools; a warm-up round first. With the service built with
		// the race detector, a kept connection costs up to about 1 MB
		// resident in either round (its buffers, and the heap's headroom
		// over what is live); keeping the lines' memory, 3.2 to 4.1 MB.
		if runtime.GOOS != "linux" {
			t.Skip("reads /proc")
		}
		id, _ := s.create(t, `{"name":"`+s.name("Lines")+`","species":"cat"}`)
		const conns, lines = 32, 9000
		big, small := s.linesRequest(id, lines), s.linesRequest(id, 2)
		round := func(kept, beside string) {
			for range conns {
				s.openWith(t, kept)
				s.openWith(t, beside).Close()
			}
		}
		round(big, small)
		rss0 := s.rss(t)
		round(small, big)
		rss1 := s.rss(t)
		round(big, small)
		rss2 := s.rss(t)
		plain, grown := (rss1-rss0)/conns, (rss2-rss1)/conns
		t.Logf("resident bytes a kept connection: %d after a plain request, %d after one of %d lines", plain, grown, lines)
		const most = 2 << 20
		if plain > most || grown > most {
			t.Errorf("a kept connection holds %d resident bytes after a plain request and %d after one of %d header lines (with such requests beside it), want at most %d",
				plain, grown, lines, most)
		}
	})
}

// linesRequest is a GET of pet id with n header lines of seven bytes each
// (a name of three characters, at most 46,656 of them), besides Host.
func (s *target) linesRequest(id int64, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\n", path(id), s.host)
	for i := range n {
		name := strconv.FormatInt(int64(i), 36)
		fmt.Fprintf(&b, "%s%s:v\r\n", strings.Repeat("0", 3-len(name)), name)
	}
	b.WriteString("\r\n")
	return b.String()
}

// openWith opens a connection, sends raw and then a plain GET of
// /openapi.json on it (so that it has served a request after raw), and
// returns it open; the test's end closes it.
func (s *target) openWith(t *testing.T, raw string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(30 * time.Second)) // keeps a broken server from hanging the suite
	rd := bufio.NewReader(c)
	for _, req := range []string{raw, "GET /openapi.json HTTP/1.1\r\nHost: " + s.host + "\r\n\r\n"} {
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(rd, nil)
		if err != nil {
			t.Fatalf("%q: %v", firstLine(req), err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Close {
			t.Fatalf("%q: %d, closing %v", firstLine(req), res.StatusCode, res.Close)
		}
	}
	return c
}

// rss is the service's resident memory in bytes (VmRSS).
func (s *target) rss(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.svc.Pid()))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/PID/status")
	return 0
}
