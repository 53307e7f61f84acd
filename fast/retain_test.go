package fast

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/vane-http/vane"
)

type linesIn struct {
	Tag string `header:"X-Tag"`
}

type linesOut struct {
	Tag string `json:"tag"`
}

// linesRouter has a typed operation, served natively, and a plain
// handler, served through the adapter; both answer the X-Tag header.
func linesRouter() *vane.Router {
	r := vane.New()
	vane.Get(r, "/typed", func(ctx context.Context, in *linesIn) (*linesOut, error) {
		return &linesOut{Tag: in.Tag}, nil
	})
	r.HandleFunc(http.MethodGet, "/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, r.Header.Get("X-Tag"))
	})
	vane.Get(r, "/big/typed", func(ctx context.Context, in *struct{}) (*bigOut, error) {
		return &bigOut{Data: bigText}, nil
	})
	r.HandleFunc(http.MethodGet, "/big/plain", func(w http.ResponseWriter, r *http.Request) {
		// No Content-Type: net/http sniffs it from the body. Written in
		// pieces of 10,000 bytes, which pass maxKeptBody in the middle of
		// one.
		for i := 0; i < len(bigText); i += 10000 {
			io.WriteString(w, bigText[i:min(i+10000, len(bigText))])
		}
	})
	return r
}

type bigOut struct {
	Data string `json:"data"`
}

// bigText is a body of 1 MB, each 100 bytes different.
var bigText = func() string {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "<p>%095d\n", i)
	}
	return b.String()
}()

// manyLines is a request for path with n header lines besides Host and
// X-Tag: tag, each line a few bytes, as an attacker packs them.
func manyLines(method, path, tag string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: x\r\nX-Tag: %s\r\n", method, path, tag)
	for i := range n {
		fmt.Fprintf(&b, "X%04d: v\r\n", i)
	}
	b.WriteString("\r\n")
	return b.String()
}

// TestManyLinesServed: a request of many header lines is answered as any
// other, on both paths, HEAD without a body, and its connection goes on
// serving the requests after it, which see their own lines alone: sent
// one at a time, and pipelined.
func TestManyLinesServed(t *testing.T) {
	addr := serveOn(t, "fast", linesRouter(), nil)
	check := func(t *testing.T, i int, res answer, method, tag string) {
		t.Helper()
		want := tag
		if method == "HEAD" {
			want = ""
		}
		if res.status != 200 || !strings.Contains(res.body, want) || (want == "") != (res.body == "") {
			t.Errorf("answer %d: %v, want 200 with %q", i, res, want)
		}
		if res.header.Get("Connection") == "close" {
			t.Errorf("answer %d closes the connection: %v", i, res)
		}
		if n := res.header.Get("Content-Length"); n == "" || n == "0" {
			t.Errorf("answer %d without a length: %v", i, res)
		}
	}
	steps := []struct {
		method, tag string
		lines       int
	}{{"GET", "big", 3000}, {"HEAD", "head", 3000}, {"GET", "small", 2}, {"GET", "again", 3000}, {"GET", "last", 0}}
	for _, path := range []string{"/typed", "/plain"} {
		t.Run(path[1:]+"/in turn", func(t *testing.T) {
			c := dial(t, addr)
			c.c.SetDeadline(time.Now().Add(patience))
			rd := bufio.NewReader(c.c)
			for i, st := range steps {
				if _, err := io.WriteString(c.c, manyLines(st.method, path, st.tag, st.lines)); err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				res, err := http.ReadResponse(rd, &http.Request{Method: st.method})
				if err != nil {
					t.Fatalf("answer %d: %v", i, err)
				}
				b, _ := io.ReadAll(res.Body)
				check(t, i, answer{res.StatusCode, res.Header, string(b)}, st.method, st.tag)
			}
		})
		t.Run(path[1:]+"/pipelined", func(t *testing.T) {
			var raw string
			for _, st := range steps {
				if st.method == "GET" {
					raw += manyLines(st.method, path, st.tag, st.lines)
				}
			}
			got := exchange(t, addr, raw, 4)
			if len(got) != 4 {
				t.Fatalf("%d answers on one connection, want 4: %v", len(got), got)
			}
			for i, tag := range []string{"big", "small", "again", "last"} {
				check(t, i, got[i], "GET", tag)
			}
		})
	}
}

// TestManyLinesNotKept: a connection that has served a request of many
// header lines, or of a long one, does not keep what reading them grew
// (the engine's state, fasthttp's RequestCtx) while it stays open. Kept,
// each of these connections would hold 1.1 MB (5,000 lines on the native
// path), 530 KB (on the adapter), 131 KB (one line of 60 KB, or a target
// of 60 KB); the bound is 32 KiB.
func TestManyLinesNotKept(t *testing.T) {
	addr := serveOn(t, "fast", linesRouter(), nil)
	const conns, lines = 8, 5000
	cs := make([]*bufio.ReadWriter, conns)
	open := func() {
		for i := range cs {
			c, err := net.DialTimeout("tcp", addr, patience)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			c.SetDeadline(time.Now().Add(4 * patience))
			cs[i] = bufio.NewReadWriter(bufio.NewReader(c), bufio.NewWriter(c))
		}
	}
	send := func(raw string) {
		t.Helper()
		for i, rw := range cs {
			rw.WriteString(raw)
			if err := rw.Flush(); err != nil {
				t.Fatal(err)
			}
			res, err := http.ReadResponse(rw.Reader, nil)
			if err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || res.Close {
				t.Fatalf("connection %d: %s, closing %v", i, res.Status, res.Close)
			}
		}
	}
	// The long line is not X-Tag, which the answer repeats: a long
	// answer is fasthttp's to keep (its response buffer).
	long := strings.Replace(manyLines("GET", "/typed", "long", 0), "X-Tag: long", "X-Tag: long\r\nX-Long: "+strings.Repeat("g", 60000), 1)
	for _, tc := range []struct{ what, raw string }{
		{"5,000 lines, native", manyLines("GET", "/typed", "big", lines)},
		{"5,000 lines, adapter", manyLines("GET", "/plain", "big", lines)},
		{"a line of 60 KB", long},
		{"a request target of 60 KB", strings.Replace(manyLines("GET", "/typed", "small", 0), "/typed", "/typed?x="+strings.Repeat("b", 60000), 1)},
	} {
		open() // connections of their own, which no request has grown
		send(manyLines("GET", "/typed", "small", 2))
		before := liveHeap()
		send(tc.raw)
		send(manyLines("GET", "/typed", "small", 2)) // the connections go on, idle
		after := liveHeap()
		per := (int64(after) - int64(before)) / conns
		t.Logf("%s: %d bytes a connection kept", tc.what, per)
		if per > 32<<10 {
			t.Errorf("%s: each connection keeps %d bytes after the request, want at most %d", tc.what, per, 32<<10)
		}
	}
}

// liveHeap is the bytes of live heap objects, after collections that
// also empty sync.Pools.
func liveHeap() uint64 {
	var m runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestManyLinesRefusedNotKept: a request of many header lines that is
// answered with an error (here a body over the limit: 413, and the
// connection closed) leaves nothing for the connections after it:
// fasthttp would hand its RequestCtx, grown by the lines, to the next
// connection, which would keep it while it stays open.
func TestManyLinesRefusedNotKept(t *testing.T) {
	addr := serveOn(t, "fast", linesRouter(), func(s *vane.Server) { s.MaxBodyBytes = 1 << 10 })
	const conns, lines = 8, 5000
	idle := func() {
		for range conns {
			c := dial(t, addr)
			c.c.SetDeadline(time.Now().Add(4 * patience))
			io.WriteString(c.c, manyLines("GET", "/typed", "small", 2))
			res, err := http.ReadResponse(c.rd, nil)
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("small request: %v %v", res, err)
			}
			io.Copy(io.Discard, res.Body)
		}
	}
	base := liveHeap()
	idle()
	between := liveHeap()
	plain := (int64(between) - int64(base)) / conns // what a new idle connection holds
	for range conns {
		raw := strings.Replace(manyLines("POST", "/typed", "big", lines), "\r\n\r\n", "\r\nContent-Length: 1000000\r\n\r\n", 1)
		got := exchange(t, addr, raw, 1)
		if len(got) != 1 || got[0].status != http.StatusRequestEntityTooLarge {
			t.Fatalf("a body over the limit: %v, want 413", got)
		}
	}
	idle() // at once, as an attacker would: fasthttp's pool holds what the refused requests left
	per := (int64(liveHeap()) - int64(between)) / conns
	t.Logf("a new idle connection holds %d bytes; %d after requests of %d lines were refused", plain, per, lines)
	if per-plain > 64<<10 {
		t.Errorf("a new idle connection holds %d bytes after requests of %d header lines were refused, %d before",
			per, lines, plain)
	}
}

// TestErrorAnswerDropsHeader: the engine's answer to a request fasthttp
// could not read drops the request's header, whose slices a request of
// many lines grew and fasthttp would keep in its pool with the
// RequestCtx.
func TestErrorAnswerDropsHeader(t *testing.T) {
	c := costRequest("/typed")
	var req fasthttp.Request
	if err := req.Read(bufio.NewReaderSize(strings.NewReader(manyLines("POST", "/typed", "big", 5000)), 1<<20)); err != nil {
		t.Fatal(err)
	}
	req.Header.CopyTo(&c.Request.Header)
	before := liveHeap()
	(&server{}).errorHandler(c, fasthttp.ErrBodyTooLarge)
	after := liveHeap()
	if c.Response.StatusCode() != http.StatusRequestEntityTooLarge {
		t.Errorf("answered %d, want 413", c.Response.StatusCode())
	}
	runtime.KeepAlive(c)
	if freed := int64(before) - int64(after); freed < 256<<10 {
		t.Errorf("the answer freed %d bytes of a header of 5,000 lines, want the header's (some 500 KB)", freed)
	}
}

// bigJSON is /big/typed's answer, as encoding/json writes it.
var bigJSON = func() string {
	b, err := json.Marshal(bigOut{Data: bigText})
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// TestBigBodyServed: an answer of 1 MB is sent whole and unchanged on
// both paths, its Content-Type sniffed from it when the handler set
// none, HEAD without a body, and the connection goes on.
func TestBigBodyServed(t *testing.T) {
	addr := serveOn(t, "fast", linesRouter(), nil)
	c := dial(t, addr)
	c.c.SetDeadline(time.Now().Add(patience))
	for _, step := range []struct{ method, path, want, ct string }{
		{"GET", "/big/plain", bigText, "text/html; charset=utf-8"},
		{"GET", "/big/typed", bigJSON, "application/json"},
		{"HEAD", "/big/plain", "", "text/html; charset=utf-8"},
		{"GET", "/typed", `{"tag":"small"}`, "application/json"},
		{"GET", "/big/plain", bigText, "text/html; charset=utf-8"},
	} {
		io.WriteString(c.c, manyLines(step.method, step.path, "small", 0))
		res, err := http.ReadResponse(c.rd, &http.Request{Method: step.method})
		if err != nil {
			t.Fatalf("%s %s: %v", step.method, step.path, err)
		}
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || string(b) != step.want || res.Header.Get("Content-Type") != step.ct || res.Close {
			t.Errorf("%s %s: %d, %d bytes (want %d), Content-Type %q (want %q), closing %v",
				step.method, step.path, res.StatusCode, len(b), len(step.want), res.Header.Get("Content-Type"), step.ct, res.Close)
		}
		if step.method == "HEAD" && res.ContentLength != int64(len(bigText)) {
			t.Errorf("HEAD %s: length %d, want %d", step.path, res.ContentLength, len(bigText))
		}
	}
}

// TestBigBodyNotKept: a connection that has sent an answer of 1 MB does
// not keep it (fasthttp keeps its response buffer at its largest) while
// it stays open. Kept, each would hold 1 MB; the bound is 32 KiB.
func TestBigBodyNotKept(t *testing.T) {
	addr := serveOn(t, "fast", linesRouter(), nil)
	const conns = 8
	for _, path := range []string{"/big/typed", "/big/plain"} {
		cs := make([]*conn, conns)
		for i := range cs {
			cs[i] = dial(t, addr)
			cs[i].c.SetDeadline(time.Now().Add(4 * patience))
		}
		get := func(path string) {
			t.Helper()
			for i, c := range cs {
				io.WriteString(c.c, manyLines("GET", path, "small", 0))
				res, err := http.ReadResponse(c.rd, nil)
				if err != nil {
					t.Fatalf("connection %d: %v", i, err)
				}
				io.Copy(io.Discard, res.Body)
				if res.StatusCode != 200 || res.Close {
					t.Fatalf("connection %d: %s, closing %v", i, res.Status, res.Close)
				}
			}
		}
		get("/typed")
		before := liveHeap()
		get(path)
		get("/typed") // the connections go on, idle
		per := (int64(liveHeap()) - int64(before)) / conns
		t.Logf("%s: %d bytes a connection kept", path, per)
		if per > 32<<10 {
			t.Errorf("%s: each connection keeps %d bytes after an answer of 1 MB, want at most %d", path, per, 32<<10)
		}
	}
}

// TestGrownContextForgotten: a RequestCtx into which a header of more
// than maxKeptBytes was once read (fasthttp keeps its copy of the block
// at that capacity, and the header's other slices with it) is dropped
// after the next request it serves, however small: fasthttp pools such a
// context, grown, when it ends a connection without the engine (the
// client closed it during the body), and the next connection takes it.
func TestGrownContextForgotten(t *testing.T) {
	h := costEngine(t, linesRouter())
	for _, tc := range []struct {
		what   string
		before string // read into the context first, then reset
		forget bool
	}{
		{"never grown", manyLines("GET", "/typed", "a", 2), false},
		{"grown by a long line", strings.Replace(manyLines("POST", "/typed", "a", 0), "X-Tag: a", "X-Tag: a\r\nX-Long: "+strings.Repeat("g", 60000), 1), true},
	} {
		c := costRequest("/typed")
		var req fasthttp.Request
		if err := req.Read(bufio.NewReaderSize(strings.NewReader(tc.before), 1<<20)); err != nil {
			t.Fatal(err)
		}
		req.Header.CopyTo(&c.Request.Header) // as fasthttp reads into the context
		c.Request.Reset()
		if err := c.Request.Read(bufio.NewReader(strings.NewReader(manyLines("GET", "/typed", "small", 2)))); err != nil {
			t.Fatal(err)
		}
		h(c)
		if got := c.LastTimeoutErrorResponse() != nil; got != tc.forget {
			t.Errorf("%s: the context handed over: %v, want %v", tc.what, got, tc.forget)
		}
		if c.Response.StatusCode() != 200 || !strings.Contains(string(c.Response.Body()), "small") {
			t.Errorf("%s: answered %d %q", tc.what, c.Response.StatusCode(), c.Response.Body())
		}
	}
}
