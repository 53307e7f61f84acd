package fast

import (
	"bytes"
	"context"
	"net/http"
	"unsafe"

	"github.com/valyala/fasthttp"
	"github.com/vane-http/vane/internal/engine"
)

// state is the scratch of one request on its way through the engine,
// kept with its connection (stateOf), since no handler sees it. What a
// handler can reach is made fresh for each request (the arena: the
// target's strings, and the header lines' unless they repeat the
// request before's; the context; the body) or never written again (the
// header lines' strings of a request before).
type state struct {
	req    engine.Request
	ctx    *requestContext // the request's context, which read makes with its arena
	header http.Header     // req.Header on the native path
	vals   []string        // the backing of header's values
	names  []string        // header's names, in the order filled, when named
	named  bool            // header holds names, one value each, and no other
	kvs    []span          // the header lines in block: key, value
	params []string        // req.Params
	w      writer          // the native path's ResponseWriter
	head   headerScratch   // the response header's scratch (putHeader)
	block  string          // the arena the header lines are in: this request's, or one before's
	host   span            // the first Host line in block; k0 < 0: none
	hosts  int             // Host header lines
	lines  int             // header lines, Host and Transfer-Encoding included
	chunk  bool            // Transfer-Encoding: chunked
	filled bool            // header holds the lines of kvs and block (fillHeader)
	// The header block of the request before, when scanHeaders read it
	// and it had at most maxRepeated bytes: a request that repeats it
	// byte for byte has the same lines, which read leaves where they are
	// (kvs, host and block), and the same header.
	lastRaw    []byte
	repeatable bool // lastRaw holds a block
}

// maxRepeated is the largest header block read remembers, to keep the
// lines of a request that repeats it: a connection keeps a copy.
const maxRepeated = 1024

type span struct{ k0, k1, v0, v1 int32 }

// read fills st.req from c with strings that outlive the request: the
// request target and every header line are copied once into a new
// string, the arena, of which the request's strings are substrings.
// Header is not filled (native and adapter fill their own); kvs locate
// the header lines in block. A header block that repeats the one before
// byte for byte is not read again: its lines are the ones before, in
// the arena before (block), which is never written again.
func (st *state) read(c *fasthttp.RequestCtx, base context.Context) {
	h := &c.Request.Header
	uri := h.RequestURI()
	raw := h.RawHeaders()
	repeated := st.repeatable && bytes.Equal(raw, st.lastRaw)
	n := len(uri)
	if !repeated {
		n += len(raw)
	}
	ctx, arena := newRequest(base, n)
	st.ctx = ctx
	arena = append(arena, uri...)
	if !repeated {
		arena = st.readLines(arena, h, raw)
	}
	s := unsafe.String(unsafe.SliceData(arena), len(arena))
	if !repeated {
		st.block = s
	}
	target := s[:len(uri)]
	r := &st.req
	*r = engine.Request{
		Method:        method(h.Method()),
		RequestURI:    target,
		Proto:         proto(h),
		RemoteAddr:    remoteAddr(c),
		ContentLength: int64(h.ContentLength()),
		Params:        st.params[:0],
	}
	r.Path, r.RawQuery = target, ""
	if i := indexByte(target, '?'); i >= 0 {
		r.Path, r.RawQuery = target[:i], target[i+1:]
	}
	if st.host.k0 >= 0 {
		r.Host = st.block[st.host.v0:st.host.v1]
	}
	switch {
	case st.chunk:
		r.ContentLength = -1
	case r.ContentLength == -2: // no length and no coding: no body
		r.ContentLength = 0
	}
}

// readLines appends the header lines of raw, the block fasthttp read for
// h, to arena, which holds the request target: each name and value once,
// located by kvs; Host and Transfer-Encoding are recorded (host, hosts,
// chunk) and left out of kvs, as net/http leaves them out of Header. A
// block scanHeaders takes whole, of at most maxRepeated bytes, is kept
// in lastRaw for the next request to compare.
func (st *state) readLines(arena []byte, h *fasthttp.RequestHeader, raw []byte) []byte {
	target := len(arena)
	// add records a header line whose key and value end the arena.
	add := func(sp span) {
		st.lines++
		k := arena[sp.k0:sp.k1]
		switch {
		case string(k) == "Host":
			if st.hosts++; st.host.k0 < 0 {
				st.host = sp
			}
			return // net/http keeps it in Host, not Header
		case string(k) == "Transfer-Encoding":
			st.chunk = st.chunk || bytes.Contains(bytes.ToLower(arena[sp.v0:sp.v1]), chunkedValue)
			return // net/http keeps it in TransferEncoding
		}
		st.kvs = append(st.kvs, sp)
	}
	st.resetLines()
	if scanHeaders(&arena, raw, add) {
		st.repeatable = len(raw) <= maxRepeated
		if st.repeatable {
			st.lastRaw = append(st.lastRaw[:0], raw...)
		}
		return arena
	}
	// Folded lines, a space in a name, a bare LF: fasthttp's own reading,
	// which scanHeaders matches on every other block.
	arena = arena[:target]
	st.resetLines()
	st.repeatable = false
	for k, v := range h.AllInOrder() {
		sp := span{k0: int32(len(arena))}
		arena = append(arena, k...)
		sp.k1, sp.v0 = int32(len(arena)), int32(len(arena))
		arena = append(arena, v...)
		sp.v1 = int32(len(arena))
		add(sp)
	}
	return arena
}

// resetLines forgets the lines read before.
func (st *state) resetLines() {
	st.kvs = st.kvs[:0]
	st.host = span{-1, -1, -1, -1}
	st.chunk, st.hosts, st.lines, st.filled = false, 0, 0, false
}

// fillHeader fills st.header, the native path's request header, from
// block: every line but Host and Transfer-Encoding (and Content-Length
// with a chunked body), as net/http's Request.Header has them.
//
// A client sends the same names in the same order request after request:
// then only the values change, and each of the map's value slices is one
// element of st.vals, which is written in place; when the lines are the
// ones it was filled with (a repeated block), it is left as it is.
// Nothing on the native path writes to the header (the engine's
// contract: it is scratch, and Detach and HTTP copy it).
func (st *state) fillHeader() http.Header {
	h, s := st.header, st.block
	if st.filled {
		return h
	}
	st.filled = true
	if st.sameNames() {
		for i, sp := range st.kvs {
			st.vals[i] = s[sp.v0:sp.v1]
		}
		return h
	}
	clear(h)
	if cap(st.vals) < len(st.kvs) {
		st.vals = make([]string, 0, len(st.kvs)) // never grown while the map points into it
	}
	st.vals, st.names, st.named = st.vals[:0], st.names[:0], true
	for _, sp := range st.kvs {
		k, v := s[sp.k0:sp.k1], s[sp.v0:sp.v1]
		if st.chunk && k == "Content-Length" {
			st.named = false
			continue
		}
		if old, ok := h[k]; ok {
			h[k] = append(old, v) // a line repeated: rare, and allocates
			st.named = false
			continue
		}
		st.vals = append(st.vals, v)
		st.names = append(st.names, k)
		n := len(st.vals)
		h[k] = st.vals[n-1 : n : n]
	}
	return h
}

// sameNames reports whether st.header holds, one value each, exactly the
// names of st.kvs, in their order: the names of the request before.
func (st *state) sameNames() bool {
	if !st.named || st.chunk || len(st.names) != len(st.kvs) {
		return false
	}
	s := st.block
	for i, sp := range st.kvs {
		if st.names[i] != s[sp.k0:sp.k1] {
			return false
		}
	}
	return true
}

// newHeader is fillHeader for the adapter: a new map, which the handler
// may keep.
func (st *state) newHeader() http.Header {
	h := make(http.Header, len(st.kvs))
	s := st.block
	for _, sp := range st.kvs {
		k, v := s[sp.k0:sp.k1], s[sp.v0:sp.v1]
		if st.chunk && k == "Content-Length" {
			continue
		}
		h[k] = append(h[k], v)
	}
	return h
}

// scanHeaders appends each line of raw, a request's header block as
// fasthttp read and accepted it, to *arena: its name in canonical form
// (as fasthttp's normalizing gives it) and its value without the
// whitespace around it; add is given the line's place in the arena. It
// reports false, having added some lines or none, on anything but plain
// "Name: value" lines ending in CRLF: the caller then reads the block with
// fasthttp's scanner, RequestHeader.AllInOrder, which scanHeaders equals
// on the blocks it takes (FuzzScanHeaders).
func scanHeaders(arena *[]byte, raw []byte, add func(span)) bool {
	a := *arena
	for i := 0; ; {
		if i+1 < len(raw) && raw[i] == '\r' && raw[i+1] == '\n' {
			return true // the blank line
		}
		sp := span{k0: int32(len(a))}
		// The name, checked and made canonical as it is copied.
		upper := true
		for ; i < len(raw) && raw[i] != ':'; i++ {
			c := raw[i]
			if upper {
				c = upperToken[c]
			} else {
				c = lowerToken[c]
			}
			if c == 0 {
				return false // not a token byte
			}
			a = append(a, c)
			upper = c == '-'
		}
		if i >= len(raw) || int32(len(a)) == sp.k0 {
			return false
		}
		sp.k1 = int32(len(a))
		for i++; i < len(raw) && (raw[i] == ' ' || raw[i] == '\t'); i++ {
		}
		lf := bytes.IndexByte(raw[i:], '\n')
		if lf < 1 || raw[i+lf-1] != '\r' {
			// No line end, or a bare LF ending the line: fasthttp's
			// scanner.
			return false
		}
		v := raw[i : i+lf-1]
		for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
			v = v[:len(v)-1]
		}
		sp.v0 = int32(len(a))
		a = append(a, v...)
		sp.v1 = int32(len(a))
		i += lf + 1
		if i >= len(raw) || raw[i] == ' ' || raw[i] == '\t' {
			return false // a folded line, or no blank line
		}
		*arena = a
		add(sp)
	}
}

// upperToken and lowerToken map each byte of RFC 9110's token (a field
// name) to its upper and lower case, and every other byte to 0: a name
// in canonical form (as fasthttp's normalizing and
// textproto.CanonicalMIMEHeaderKey write one of token bytes) is upper
// case at its start and after a hyphen, lower case elsewhere.
var upperToken, lowerToken = func() (up, low [256]byte) {
	for c := byte('a'); c <= 'z'; c++ {
		up[c], up[c-'a'+'A'] = c-'a'+'A', c-'a'+'A'
		low[c], low[c-'a'+'A'] = c, c
	}
	for c := byte('0'); c <= '9'; c++ {
		up[c], low[c] = c, c
	}
	for _, c := range []byte("!#$%&'*+-.^_`|~") {
		up[c], low[c] = c, c
	}
	return up, low
}()

var chunkedValue = []byte("chunked")

// method returns the method m as a string: a constant for the standard
// methods, a copy for any other.
func method(m []byte) string {
	switch string(m) {
	case http.MethodGet:
		return http.MethodGet
	case http.MethodHead:
		return http.MethodHead
	case http.MethodPost:
		return http.MethodPost
	case http.MethodPut:
		return http.MethodPut
	case http.MethodPatch:
		return http.MethodPatch
	case http.MethodDelete:
		return http.MethodDelete
	case http.MethodOptions:
		return http.MethodOptions
	case http.MethodConnect:
		return http.MethodConnect
	case http.MethodTrace:
		return http.MethodTrace
	}
	return string(m)
}

// proto is the request's protocol, "HTTP/1.1", "HTTP/1.0" or another
// version fasthttp read (HTTP/x.y), which handle refuses unless its
// major version is 1.
func proto(h *fasthttp.RequestHeader) string {
	switch p := h.Protocol(); {
	case h.IsHTTP11():
		return "HTTP/1.1"
	case string(p) == "HTTP/1.0":
		return "HTTP/1.0"
	default:
		return string(p)
	}
}

// remoteAddr is the connection's peer as net/http gives it (host:port),
// made once per connection by the engine's listener.
func remoteAddr(c *fasthttp.RequestCtx) string {
	if pc, ok := c.Conn().(*peerConn); ok {
		return pc.peer
	}
	return c.RemoteAddr().String()
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// pathByte marks the bytes a path may hold to be served natively: those
// net/http keeps in URL.Path as they are, with an empty RawPath (RFC
// 3986's unreserved and sub-delims, ':', '@' and '/'). Anything else
// (an escape, a byte net/http escapes or refuses) goes to the adapter,
// which parses the target as net/http does.
var pathByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "-._~!$&'()*+,;=:@/" {
		t[c] = true
	}
	return t
}()

// queryByte marks the bytes a query may hold to be served natively: all
// but control characters, space, '#' (which the router refuses) and
// bytes of 0x80 and above, which net/http keeps but a client sends
// escaped.
var queryByte = func() (t [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = c != '#'
	}
	return t
}()

// native reports whether the request target is one the native path
// takes: origin form, a path of pathByte bytes, a query of queryByte
// bytes.
func native(path, query string) bool {
	if path == "" || path[0] != '/' {
		return false
	}
	for i := 0; i < len(path); i++ {
		if !pathByte[path[i]] {
			return false
		}
	}
	for i := 0; i < len(query); i++ {
		if !queryByte[query[i]] {
			return false
		}
	}
	return true
}
