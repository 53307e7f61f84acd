package adversarial

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// continueLines: uploads that wait for `100 Continue` (RFC 9110 §10.1.1),
// as curl's do, with header blocks of a few to thousands of lines, one
// after another on one kept connection. The fast engine starts its
// per-connection state afresh after a request of more than 100 lines;
// the interim answer is written before the handler runs. Each upload
// must get its 100, then its 201 with its own pet, and the next request's
// answer must be its own. net/http keeps the connection after every one;
// the fast engine closes it after an upload past its kept limits
// (documented in docs/guide/fast-engine.md), and the case goes on over a
// new one.
func continueLines(t *testing.T, s *target) {
	var (
		c  net.Conn
		rd *bufio.Reader
	)
	dial := func() {
		t.Helper()
		var err error
		if c, err = net.Dial("tcp", s.host); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(60 * time.Second)) // keeps a broken server from hanging the suite
		rd = bufio.NewReader(c)
	}
	dial()
	read := func(what string, req *http.Request) *http.Response {
		t.Helper()
		res, err := http.ReadResponse(rd, req)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return res
	}
	for _, lines := range []int{2, 150, 5000, 2, 101, 3} {
		name := s.name("Continue")
		body := `{"name":"` + name + `","species":"cat"}`
		var b strings.Builder
		fmt.Fprintf(&b, "POST /pets HTTP/1.1\r\nHost: %s\r\n%s\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n", s.host, s.auth(), len(body))
		for i := range lines {
			n := strconv.FormatInt(int64(i), 36)
			fmt.Fprintf(&b, "x%s%s:v\r\n", strings.Repeat("0", 3-len(n)), n)
		}
		b.WriteString("\r\n")
		what := fmt.Sprintf("an upload with %d extra header lines waiting for 100", lines)
		if _, err := io.WriteString(c, b.String()); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		post, _ := http.NewRequest("POST", "/pets", nil)
		if res := read(what, post); res.StatusCode != http.StatusContinue {
			body, _ := io.ReadAll(res.Body)
			t.Fatalf("%s: %d %q before the body was sent, want 100", what, res.StatusCode, body)
		}
		if _, err := io.WriteString(c, body); err != nil {
			t.Fatalf("%s: the body: %v", what, err)
		}
		res := read(what, post)
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var p pet
		if res.StatusCode != http.StatusCreated || json.Unmarshal(got, &p) != nil || p.Name != name {
			t.Fatalf("%s: %d %q, want 201 with pet %q", what, res.StatusCode, got, name)
		}
		// The fast engine keeps the connection of a request of at most 100
		// header lines (these have five besides the extra ones) and 16 KiB.
		closes := s.engine == "fast" && lines+5 > 100
		if res.Close != closes {
			t.Fatalf("%s: the service closes the connection after it: %v, want %v", what, res.Close, closes)
		}
		if res.Close {
			c.Close()
			dial()
		}
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path(p.ID), s.host)
		get, _ := http.NewRequest("GET", path(p.ID), nil)
		res = read(what+", then a GET of its pet", get)
		got, _ = io.ReadAll(res.Body)
		res.Body.Close()
		var again pet
		if res.StatusCode != http.StatusOK || json.Unmarshal(got, &again) != nil || again.ID != p.ID || again.Name != name {
			t.Fatalf("%s, then GET %s: %d %q, want pet %d %q", what, path(p.ID), res.StatusCode, got, p.ID, name)
		}
	}
}
