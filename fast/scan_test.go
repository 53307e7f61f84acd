package fast

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// readHeaders is what fasthttp reads of a request with the header block
// raw; ok is false when it refuses the request.
func readHeaders(raw string) (h *fasthttp.RequestHeader, ok bool) {
	h = &fasthttp.RequestHeader{}
	err := h.Read(bufio.NewReader(strings.NewReader("GET / HTTP/1.1\r\n" + raw)))
	return h, err == nil
}

// scanned is scanHeaders' reading of h's block: its lines, or ok false
// when it leaves the block to fasthttp's scanner.
func scanned(h *fasthttp.RequestHeader) (lines [][2]string, ok bool) {
	var arena []byte
	ok = scanHeaders(&arena, h.RawHeaders(), func(sp span) {
		lines = append(lines, [2]string{string(arena[sp.k0:sp.k1]), string(arena[sp.v0:sp.v1])})
	})
	return lines, ok
}

func inOrder(h *fasthttp.RequestHeader) (lines [][2]string) {
	for k, v := range h.AllInOrder() {
		lines = append(lines, [2]string{string(k), string(v)})
	}
	return lines
}

func equalLines(a, b [][2]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestScanHeaders: the engine's reading of a header block equals
// fasthttp's (AllInOrder) on the blocks it takes, takes the usual ones,
// and leaves the unusual ones to fasthttp's.
func TestScanHeaders(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		fast bool // scanHeaders takes it
	}{
		{"Host: x\r\nAuthorization: bearer 123\r\n\r\n", true},
		{"host: x\r\ncontent-TYPE:  text/plain \t\r\nX-a-B: \r\nx-empty:\r\n\r\n", true},
		{"Host: x\r\nAccept: a\r\nAccept: b\r\nCookie: a=1; b=2\r\n\r\n", true},
		{"Host: x\r\nUser-Agent: \x80\xff bytes\r\n\r\n", true},
		{"Host: x\r\nX-Fold: a\r\n b\r\n\r\n", false},
		{"Host: x\r\nX-Bare: a\nAccept: b\r\n\r\n", false},
	} {
		h, ok := readHeaders(tc.raw)
		if !ok {
			t.Errorf("%q: fasthttp refuses it", tc.raw)
			continue
		}
		got, fast := scanned(h)
		if fast != tc.fast {
			t.Errorf("%q: scanHeaders takes it: %v, want %v", tc.raw, fast, tc.fast)
		}
		if want := inOrder(h); fast && !equalLines(got, want) {
			t.Errorf("%q: scanHeaders read %q, fasthttp %q", tc.raw, got, want)
		}
	}
}

// FuzzScanHeaders: on every block fasthttp accepts, scanHeaders either
// leaves it to fasthttp's scanner or reads exactly the lines fasthttp
// reads, in order, names canonical as fasthttp makes them; and the arena
// it writes holds the names and values, nothing else.
func FuzzScanHeaders(f *testing.F) {
	for _, s := range []string{
		"Host: x\r\nAuthorization: bearer 123\r\n\r\n",
		"host: x\r\ncontent-TYPE:  text/plain \t\r\nX-a-B: \r\n\r\n",
		"Host: x\r\nX-Fold: a\r\n b\r\n\r\n",
		"Host: x\nAccept: a\n\n",
		"Host: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
		"Host: x\r\nX: a\rb\r\n\r\n",
		"Host : x\r\n\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		h, ok := readHeaders(raw)
		if !ok {
			return
		}
		got, fast := scanned(h)
		if !fast {
			return
		}
		if want := inOrder(h); !equalLines(got, want) {
			t.Fatalf("%q: scanHeaders read %q, fasthttp %q", raw, got, want)
		}
		n := 0
		for _, l := range got {
			n += len(l[0]) + len(l[1])
		}
		var arena []byte
		scanHeaders(&arena, h.RawHeaders(), func(span) {})
		if len(arena) != n || !bytes.Equal(arena, []byte(joined(got))) {
			t.Fatalf("%q: arena %q, want the lines' names and values %q", raw, arena, joined(got))
		}
	})
}

func joined(lines [][2]string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l[0] + l[1])
	}
	return b.String()
}

// TestFillHeaderSequence: on a connection, the native path's header map
// (fillHeader, kept and refilled) equals a new one built from the same
// request (newHeader) for every request, whether a request repeats the
// names before it (values rewritten in place), changes them, repeats a
// name or has a chunked body.
func TestFillHeaderSequence(t *testing.T) {
	blocks := []string{
		"Host: x\r\nAuthorization: bearer 1\r\nAccept: a\r\n\r\n",
		"Host: x\r\nAuthorization: bearer 2\r\nAccept: b\r\n\r\n",
		"Host: x\r\nAccept: b\r\nAuthorization: bearer 3\r\n\r\n",
		"Host: x\r\nAuthorization: bearer 4\r\n\r\n",
		"Host: x\r\nAccept: c\r\nAccept: d\r\nAuthorization: bearer 5\r\n\r\n",
		"Host: x\r\nTransfer-Encoding: chunked\r\nAuthorization: bearer 6\r\nAccept: e\r\n\r\n",
		"Host: x\r\n\r\n",
		"Host: x\r\nX-Fold: a\r\n b\r\nAuthorization: bearer 7\r\n\r\n",
		"Host: x\r\nAuthorization: bearer 8\r\nAccept: f\r\nContent-Length: 0\r\n\r\n",
		"Host: x\r\nAuthorization: bearer 9\r\nAccept: g\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n",
		"Host: x\r\nA: bearer 1\r\nB: bearer 2\r\nC: bearer 3\r\nD: bearer 4\r\nE: bearer 5\r\nF: bearer 6\r\nG: bearer 7\r\nH: bearer 8\r\nI: bearer 9\r\nJ: bearer 10\r\n\r\n",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	st := &state{header: make(http.Header, 8)}
	for i := range 2000 {
		raw := blocks[rng.IntN(len(blocks))]
		switch {
		case i < 3:
			// Few names, then many twice: the values' backing grows.
			raw = blocks[min(i, 1)*(len(blocks)-1)]
		case i%3 == 0:
			raw = blocks[0] // runs of the same names
		}
		raw = strings.ReplaceAll(raw, "bearer", fmt.Sprintf("bearer-%d", i)) // values change
		var c fasthttp.RequestCtx
		if err := c.Request.Header.Read(bufio.NewReader(strings.NewReader("POST / HTTP/1.1\r\n" + raw))); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		c.Init2(&peerConn{Conn: inprocConn{}, peer: "127.0.0.1:9", set: &connSet{}}, nil, false)
		st.read(&c, context.Background())
		got, want := st.fillHeader(), st.newHeader()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("request %d (%q): header %v, want %v", i, raw, got, want)
		}
	}
}

// TestReadRepeated: a connection's requests that repeat the header block
// of the request before byte for byte (read keeps its lines, in the
// arena before, and the header filled from them) read as a new
// connection's first request does: the same host, lines, headers (the
// native path's, filled or not by the request before, and the
// adapter's) and body framing, whatever the targets' lengths, for blocks
// scanHeaders takes and ones it leaves to fasthttp's, and blocks longer
// than read remembers.
func TestReadRepeated(t *testing.T) {
	targets := []string{"/", "/items/123?verbose=true", "/a/much/longer/target/than/the/others?x=1&y=2&z=3"}
	blocks := []string{
		"Host: x\r\nAuthorization: bearer 123\r\n\r\n",
		"Authorization: bearer 123\r\nHost: x\r\n\r\n",
		"Host: x\r\nAuthorization: bearer 124\r\n\r\n",
		"Host: a\r\nAccept: a\r\nAccept: b\r\n\r\n",
		"Accept: */*\r\nHost: y\r\n\r\n",
		"Host: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\nContent-Length: 5\r\n\r\n",
		"Host: x\r\nX-Fold: a\r\n b\r\nAuthorization: bearer 7\r\n\r\n",
		"Host: x\r\nCookie: " + strings.Repeat("c", maxRepeated) + "\r\n\r\n",
	}
	rng := rand.New(rand.NewPCG(5, 6))
	kept := &state{header: make(http.Header, 8)}
	repeats := 0
	var last string
	// Strings of requests a handler would keep, and copies of them: no
	// later request's reading may write where they are.
	var keptStrings, copies []string
	for i := range 3000 {
		target, block := targets[rng.IntN(len(targets))], blocks[rng.IntN(len(blocks))]
		if i%2 == 1 {
			block = last // a run of one block, the targets changing
		}
		if block == last {
			repeats++
		}
		last = block
		request := "POST " + target + " HTTP/1.1\r\n" + block
		native := rng.IntN(3) > 0 // else the adapter's, which leaves the native header as it was
		got := readAs(t, kept, request, native)
		want := readAs(t, &state{header: make(http.Header, 8)}, request, native)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("request %d (%q): read %+v on a kept connection, %+v on a new one", i, request, got, want)
		}
		keptStrings = append(keptStrings, got.Host, got.Path, got.Query)
		for _, vs := range got.Header {
			keptStrings = append(keptStrings, vs...)
		}
		for len(copies) < len(keptStrings) {
			copies = append(copies, strings.Clone(keptStrings[len(copies)]))
		}
	}
	for range 50 {
		readAs(t, kept, "POST "+targets[2]+" HTTP/1.1\r\n"+blocks[0], true)
		readAs(t, kept, "POST "+targets[1]+" HTTP/1.1\r\n"+blocks[2], true)
	}
	for i := range keptStrings {
		if keptStrings[i] != copies[i] {
			t.Fatalf("a kept string was %q, is %q after later requests", copies[i], keptStrings[i])
		}
	}
	if repeats < 1000 {
		t.Fatalf("%d requests repeated the block before; the test wants many", repeats)
	}
}

// readResult is what read gives of a request.
type readResult struct {
	Host, Path, Query string
	Length            int64
	Hosts             int
	Chunk             bool
	Lines             [][2]string
	Header            http.Header // the native path's (fillHeader)
	Adapter           http.Header // the adapter's (newHeader)
}

func readAs(t *testing.T, st *state, request string, native bool) readResult {
	t.Helper()
	var c fasthttp.RequestCtx
	if err := c.Request.Header.Read(bufio.NewReader(strings.NewReader(request))); err != nil {
		t.Fatalf("%q: %v", request, err)
	}
	c.Init2(&peerConn{Conn: inprocConn{}, peer: "127.0.0.1:9", set: &connSet{}}, nil, false)
	st.read(&c, context.Background())
	r := readResult{Host: st.req.Host, Path: st.req.Path, Query: st.req.RawQuery, Length: st.req.ContentLength,
		Hosts: st.hosts, Chunk: st.chunk, Adapter: st.newHeader()}
	if native {
		r.Header = st.fillHeader()
	}
	for _, sp := range st.kvs {
		r.Lines = append(r.Lines, [2]string{st.block[sp.k0:sp.k1], st.block[sp.v0:sp.v1]})
	}
	return r
}

// TestNative: native, which reads four bytes at a time, takes exactly
// the targets a byte-by-byte reading of RFC 3986's path characters
// (unreserved, sub-delims, ':', '@', '/') and of the query's (printable
// ASCII but '#') takes, on targets of every length to 20 of bytes
// around each class's edges.
func TestNative(t *testing.T) {
	const pathOK = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/"
	reference := func(path, query string) bool {
		if path == "" || path[0] != '/' {
			return false
		}
		for _, c := range []byte(path) {
			if !strings.ContainsRune(pathOK, rune(c)) {
				return false
			}
		}
		for _, c := range []byte(query) {
			if c <= ' ' || c >= 0x7f || c == '#' {
				return false
			}
		}
		return true
	}
	alphabet := []byte("/aZ09-._~!$&'()*+,;=:@/?\x00 \"#%<>[\\]^`{|}\x7f\x80\xff")
	rng := rand.New(rand.NewPCG(11, 12))
	for range 200000 {
		b := make([]byte, rng.IntN(21))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
			if rng.IntN(3) > 0 {
				b[j] = pathOK[rng.IntN(len(pathOK))]
			}
		}
		if len(b) > 0 && rng.IntN(4) > 0 {
			b[0] = '/'
		}
		path, query, _ := strings.Cut(string(b), "?")
		if got, want := native(path, query), reference(path, query); got != want {
			t.Fatalf("native(%q, %q) = %v, want %v", path, query, got, want)
		}
	}
}
