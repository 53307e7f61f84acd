// Package httpcontract is the regression suite for HTTP's contract: the
// example service, built and run as users run it, answered by unusual but
// ordinary clients — Expect: 100-continue, half-closed connections,
// pipelining, HEAD on every route of its document, escaped dot segments,
// content codings and every form of precondition. Each check is bounded in
// time and count and talks to 127.0.0.1 only.
package httpcontract

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/conformance/internal/rawhttp"
	"github.com/vane-http/vane/internal/examplerun"
)

func TestHTTPContract(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example service")
	}
	for _, engine := range examplerun.Engines {
		t.Run(strings.ReplaceAll(engine, "/", ""), func(t *testing.T) { testHTTPContract(t, engine) })
	}
}

// testHTTPContract is the suite against the example served by engine.
func testHTTPContract(t *testing.T, engine string) {
	svc := examplerun.Start(t, examplerun.Options{Race: true, Engine: engine})
	host := strings.TrimPrefix(svc.URL, "http://")
	auth := "Authorization: Bearer " + svc.Token + "\r\n"
	pet := `{"name":"Contract","species":"cat"}`

	t.Run("Expect: 100-continue", func(t *testing.T) {
		// No token: the 401 needs no body, and comes without it. The test
		// waits for it half the service's read timeout (vane's default of
		// 60 s): a server that waited for the body it holds back would
		// answer only at that timeout. (vane's own TestExpectContinueAnsweredAtOnce
		// checks "at once" exactly, on synctest's clock.)
		if engine == "fast" {
			// The fast engine (fasthttp) answers 100 Continue as soon as
			// the headers are read, before routing, and reads the first
			// 8 KiB of the body before the handler runs; net/http answers
			// 100 when the handler first reads the body
			// (docs/guide/fast-engine.md). RFC 9110 section 10.1.1 allows
			// both: the client sends the body it was asked for, and is
			// refused after it.
			conn := dial(t, host)
			defer conn.Close()
			io.WriteString(conn, "POST /pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000\r\nExpect: 100-continue\r\n\r\n")
			rd := bufio.NewReader(conn)
			if line, _ := rd.ReadString('\n'); !strings.HasPrefix(line, "HTTP/1.1 100") {
				t.Fatalf("first line %q, want 100 Continue", line)
			}
			rd.ReadString('\n')
			io.WriteString(conn, strings.Repeat(" ", 2000))
			if r, err := http.ReadResponse(rd, nil); err != nil || r.StatusCode != 401 {
				t.Errorf("without a token, after 100 Continue and the body: %v %v", r, err)
			}
		} else {
			res := rawWait(t, host, "POST /pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000\r\nExpect: 100-continue\r\n\r\n", false, vane.DefaultReadTimeout/2)
			if len(res) == 0 || res[0].status != 401 {
				t.Errorf("without a token: %v", res)
			}
		}
		// With a token: 100 Continue, then the body, then 201.
		conn := dial(t, host)
		defer conn.Close()
		fmt.Fprintf(conn, "POST /pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%sExpect: 100-continue\r\n\r\n", len(pet), auth)
		rd := bufio.NewReader(conn)
		if line, _ := rd.ReadString('\n'); !strings.HasPrefix(line, "HTTP/1.1 100") {
			t.Fatalf("first line %q, want 100 Continue", line)
		}
		rd.ReadString('\n')
		io.WriteString(conn, pet)
		if r, err := http.ReadResponse(rd, nil); err != nil || r.StatusCode != 201 {
			t.Errorf("after 100 Continue: %v %v", r, err)
		}
	})

	t.Run("half-closed clients get their answers", func(t *testing.T) {
		for i := range 20 {
			res := raw(t, host, fmt.Sprintf("POST /pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s", len(pet), auth, pet), true)
			if len(res) == 0 || res[0].status != 201 {
				t.Fatalf("POST %d, half-closed: %v; want 201, never a 503", i, res)
			}
			res = raw(t, host, "GET /pets/1 HTTP/1.1\r\nHost: x\r\n\r\n", true)
			if len(res) == 0 || res[0].status != 200 {
				t.Fatalf("GET %d, half-closed: %v", i, res)
			}
		}
	})

	t.Run("pipelined requests are answered in order", func(t *testing.T) {
		var req strings.Builder
		for _, id := range []int{3, 1, 2} {
			fmt.Fprintf(&req, "GET /pets/%d HTTP/1.1\r\nHost: x\r\n\r\n", id)
		}
		req.WriteString("GET /pets/4 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		res := raw(t, host, req.String(), false)
		var ids []int64
		for _, r := range res {
			var p struct{ ID int64 }
			json.Unmarshal(r.body, &p)
			ids = append(ids, p.ID)
		}
		if fmt.Sprint(ids) != "[3 1 2 4]" {
			t.Errorf("pipelined GETs of 3, 1, 2, 4 answered %v", ids)
		}
	})

	t.Run("HEAD on every GET of the document", func(t *testing.T) {
		var doc struct {
			Paths map[string]map[string]any `json:"paths"`
		}
		json.Unmarshal(examplerun.Get(t, svc.URL+"/openapi.json"), &doc)
		n := 0
		for path, ops := range doc.Paths {
			if _, ok := ops["get"]; !ok {
				continue
			}
			p := strings.ReplaceAll(path, "{id}", "1")
			get := do(t, "GET", svc.URL+p, nil, path == "/pets/events")
			head := do(t, "HEAD", svc.URL+p, nil, false)
			n++
			if head.status != get.status || head.header.Get("Content-Type") != get.header.Get("Content-Type") || len(head.body) != 0 {
				t.Errorf("%s: GET %d %q, HEAD %d %q with %d bytes", p, get.status, get.header.Get("Content-Type"), head.status, head.header.Get("Content-Type"), len(head.body))
			}
		}
		if n < 5 {
			t.Errorf("only %d GET operations in the document", n)
		}
	})

	t.Run("escaped dot segments redirect once, never to themselves", func(t *testing.T) {
		for _, target := range []string{"/pets/%2e%2e/1", "/pets/%2e", "/%2e%2e/%2e%2e/etc/passwd", "/pets/.%2E/pets/1", "/pets/%2E%2E/pets/1?x=%2e"} {
			seen := map[string]bool{}
			loc := target
			for hop := 0; ; hop++ {
				if seen[loc] || hop > 3 {
					t.Fatalf("%s: redirects loop at %s", target, loc)
				}
				seen[loc] = true
				r := do(t, "GET", svc.URL+loc, nil, false)
				if r.status >= 500 {
					t.Fatalf("%s: %d", target, r.status)
				}
				if r.status != 301 {
					break
				}
				u, err := url.Parse(r.header.Get("Location"))
				if err != nil {
					t.Fatal(err)
				}
				loc = u.RequestURI()
			}
		}
	})

	t.Run("content codings", func(t *testing.T) {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		io.WriteString(zw, pet)
		zw.Close()
		h := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + svc.Token}, "Content-Encoding": {"gzip"}}
		if r := do(t, "POST", svc.URL+"/pets", &body{h, gz.Bytes()}, false); r.status != 201 {
			t.Errorf("gzip: %d %s", r.status, r.body)
		}
		h.Set("Content-Encoding", "br")
		if r := do(t, "POST", svc.URL+"/pets", &body{h, []byte(pet)}, false); r.status != 415 || r.header.Get("Accept-Encoding") != "gzip" {
			t.Errorf("br: %d %v", r.status, r.header)
		}
	})

	t.Run("preconditions in every form", func(t *testing.T) {
		h := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + svc.Token}}
		created := do(t, "POST", svc.URL+"/pets", &body{h, []byte(pet)}, false)
		var p struct{ ID int64 }
		json.Unmarshal(created.body, &p)
		path := fmt.Sprintf("%s/pets/%d", svc.URL, p.ID)
		etag := do(t, "GET", path, nil, false).header.Get("ETag")
		put := func(ifMatch ...string) int {
			hh := h.Clone()
			hh["If-Match"] = ifMatch
			return do(t, "PUT", path, &body{hh, []byte(pet)}, false).status
		}
		if s := put(`"nope"`, etag); s != 200 {
			t.Errorf("an If-Match list over two lines, the second current: %d", s)
		}
		etag = do(t, "GET", path, nil, false).header.Get("ETag")
		if s := put("W/" + etag); s != 412 {
			t.Errorf("a weak tag (If-Match compares strongly): %d", s)
		}
		if s := put("*"); s != 200 {
			t.Errorf("If-Match *: %d", s)
		}
		hh := h.Clone()
		hh.Set("If-Match", `"zz"`)
		if r := do(t, "DELETE", path, &body{hh, nil}, false); r.status != 412 {
			t.Errorf("DELETE with a stale If-Match: %d", r.status)
		}
		hh.Set("If-Match", `"zz"`)
		if r := do(t, "POST", svc.URL+"/pets", &body{hh, []byte(pet)}, false); r.status != 412 {
			t.Errorf("an If-Match on POST, which has no version to match: %d", r.status)
		}
	})
}

type response struct {
	status int
	header http.Header
	body   []byte
}

type body struct {
	header http.Header
	data   []byte
}

var client = &http.Client{
	Timeout:       patience,
	Transport:     &http.Transport{DisableCompression: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// do sends a request; stream ends the read after the headers (an event
// stream never ends).
func do(t *testing.T, method, target string, b *body, stream bool) response {
	t.Helper()
	var rd io.Reader
	if b != nil && b.data != nil {
		rd = bytes.NewReader(b.data)
	}
	req, err := http.NewRequest(method, target, rd)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := url.ParseRequestURI(strings.TrimPrefix(target, "http://"+req.URL.Host)); err == nil {
		req.URL.Opaque = u.EscapedPath() // keep the path's escapes as sent
	}
	if b != nil {
		for k, v := range b.header {
			req.Header[k] = v
		}
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer res.Body.Close()
	var data []byte
	if !stream {
		data, _ = io.ReadAll(res.Body)
	}
	return response{res.StatusCode, res.Header, data}
}

// patience bounds a read from the service that should come at once: a
// minute, generous for a service built with the race detector on a
// loaded machine; a passing test never waits for it.
const patience = time.Minute

func dial(t *testing.T, host string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(patience))
	return conn
}

// raw sends text on a new connection, half-closing it after if asked, and
// reads every response until the server closes the connection (as it does
// for every request these tests send raw) or patience passes in silence.
func raw(t *testing.T, host, text string, halfClose bool) []response {
	t.Helper()
	return rawWait(t, host, text, halfClose, patience)
}

// rawWait is raw waiting at most wait for each response. An error of
// the write is not the test's: the server may close before reading all
// of text (a refused request), and what it answered is still read.
func rawWait(t *testing.T, host, text string, halfClose bool, wait time.Duration) []response {
	t.Helper()
	answers, _ := rawhttp.Exchange(dial(t, host), text, rawhttp.Options{HalfClose: halfClose, Wait: wait})
	out := make([]response, len(answers))
	for i, a := range answers {
		out[i] = response{a.Status, a.Header, a.Body}
	}
	return out
}
