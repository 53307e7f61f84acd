package router

import (
	"context"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// How a handler reads its path parameters.
//
// The router hands a handler the request it was given and nothing else,
// as net/http.ServeMux does: it sets req.Pattern to the matched route's
// pattern and calls the handler. It stores nothing per request, so nothing
// a handler can reach is ever reused: the request, its context and every
// context derived from it stay valid for as long as anyone holds them.
//
// Param derives a value from two things the request carries and the router
// never changes after routing: req.Pattern and the path in req.URL.
// Patterns are segment-aligned, so the static text between two parameters
// has the same length in the path as in the pattern, and a {name} value
// ends at the next '/'. Param finds the first parameter's value at its
// offset in the pattern, the last one's at its distance from the end, and
// the others by skipping values from whichever end is nearer.
//
// What a pattern's parameters are is decided at compile time, not parsed
// per call: every route's pattern string lives in the router's pattern
// arena, preceded by a header that lists its parameters (see patternHeader
// for the layout). req.Pattern is that string itself, so Param recognises
// it by its address: the arenas of live routers are registered in a
// process-wide list, read without locking. A pattern not in any arena (set
// by ServeMux, or by hand) is not vane's: Param then asks req.PathValue.

// The header before a pattern in its arena, read backwards from the
// pattern's first byte:
//
//	entry_0 … entry_n-1  n  len  post  flags  0xFF  pattern…
//
// n (the number of parameters), len (the pattern's length) and post (the
// length of the static text after the last parameter) are little-endian
// uint16s, flags a byte (flagCatchAll), 0xFF a byte no UTF-8 text
// contains, which marks the start of a pattern; len tells a string that
// points elsewhere into a pattern, or is shorter, from the pattern itself.
// entry_i is 8 bytes: gap (uint16, the length of the static text before
// parameter i, after parameter i-1 or from the start), the offset of the
// name in the pattern (uint16), the name's length and first byte, and two
// bytes of padding (the length and first byte are read as one uint16).
const (
	patternMark  = 0xFF
	headerFixed  = 8 // n, len, post, flags and the mark
	entrySize    = 8
	flagCatchAll = 1 // the last parameter is a catch-all
	maxNameLen   = 255
)

// arena is a router's compiled pattern text, registered while the router
// lives.
type arena struct {
	start uintptr // address of text's first byte
	text  string
}

var (
	arenasMu sync.Mutex
	// arenas lists the registered arenas sorted by start. It is replaced,
	// never modified, so readers load it without locking.
	arenas atomic.Pointer[[]arena]
)

// buildArena returns the arena for patterns (well-formed, with names of at
// most maxNameLen bytes), and each pattern as a string inside it.
func buildArena(patterns []string) (string, []string) {
	size := 0
	for _, p := range patterns {
		size += headerFixed + entrySize*strings.Count(p, "{") + len(p)
	}
	buf := make([]byte, 0, size)
	offs := make([]int, len(patterns))
	for i, p := range patterns {
		catchAll, spans := paramSpans(p)
		prev := 0 // end of the previous parameter
		for _, s := range spans {
			name := p[s[0]+1 : s[1]-1]
			name = strings.TrimSuffix(name, "...")
			buf = le16(le16(buf, s[0]-prev), s[0]+1)
			buf = append(buf, byte(len(name)), name[0], 0, 0)
			prev = s[1]
		}
		buf = le16(le16(le16(buf, len(spans)), len(p)), len(p)-prev)
		flags := byte(0)
		if catchAll {
			flags |= flagCatchAll
		}
		buf = append(buf, flags, patternMark)
		offs[i] = len(buf)
		buf = append(buf, p...)
	}
	text := unsafe.String(unsafe.SliceData(buf), len(buf))
	out := make([]string, len(patterns))
	for i, p := range patterns {
		out[i] = text[offs[i] : offs[i]+len(p)]
	}
	return text, out
}

func le16(b []byte, v int) []byte { return append(b, byte(v), byte(v>>8)) }

// paramSpans returns the offsets of each parameter of a well-formed
// pattern: where its '{' is and just after its '}'.
func paramSpans(p string) (catchAll bool, spans [][2]int) {
	for i := 0; i < len(p); i++ {
		if p[i] == '{' {
			j := i + strings.IndexByte(p[i:], '}')
			spans = append(spans, [2]int{i, j + 1})
			catchAll = strings.HasSuffix(p[i:j], "...")
			i = j
		}
	}
	return catchAll, spans
}

// registerArena adds text to the list of live arenas until owner becomes
// unreachable.
func registerArena[T any](owner *T, text string) {
	if len(text) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.StringData(text)))
	arenasMu.Lock()
	var list []arena
	if old := arenas.Load(); old != nil {
		list = slices.Clone(*old)
	}
	i, _ := slices.BinarySearchFunc(list, start, func(a arena, s uintptr) int { return cmpUintptr(a.start, s) })
	list = slices.Insert(list, i, arena{start: start, text: text})
	arenas.Store(&list)
	arenasMu.Unlock()
	runtime.AddCleanup(owner, unregisterArena, start)
}

func unregisterArena(start uintptr) {
	arenasMu.Lock()
	defer arenasMu.Unlock()
	old := arenas.Load()
	if old == nil {
		return
	}
	list := slices.DeleteFunc(slices.Clone(*old), func(a arena) bool { return a.start == start })
	arenas.Store(&list)
}

func cmpUintptr(a, b uintptr) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// header is the first byte of a pattern in an arena, from which its header
// is read backwards.
type header struct{ p unsafe.Pointer }

func (h header) u8(off int) int  { return int(*(*byte)(unsafe.Add(h.p, off))) }
func (h header) u16(off int) int { return int(load16(unsafe.Add(h.p, off))) }
func (h header) n() int          { return h.u16(-8) }
func (h header) post() int       { return h.u16(-4) }
func (h header) catchAll() bool  { return h.u8(-2)&flagCatchAll != 0 }

// headerOf returns the header of pattern when pattern is the pattern of a
// route of a live router. Every byte it reads lies in the registered
// arena; the header it returns has been checked to lie there too.
func headerOf(pattern string) (header, bool) {
	list := arenas.Load()
	if list == nil || len(pattern) == 0 {
		return header{}, false
	}
	sp := unsafe.Pointer(unsafe.StringData(pattern))
	a := arenaOf(*list, uintptr(sp))
	if a == nil {
		return header{}, false
	}
	d := uintptr(sp) - a.start
	if d < headerFixed || d >= uintptr(len(a.text)) {
		return header{}, false
	}
	// From here on the fixed part of the header is known to be inside the
	// arena.
	h := header{sp}
	if h.u8(-1) != patternMark || h.u16(-6) != len(pattern) || int(d) < headerFixed+entrySize*h.n() {
		return header{}, false
	}
	return h, true
}

// arenaOf returns the arena of as (sorted by start) that starts last at or
// before p, or nil.
func arenaOf(as []arena, p uintptr) *arena {
	if len(as) == 1 { // the usual case: one router
		if as[0].start <= p {
			return &as[0]
		}
		return nil
	}
	lo, hi := 0, len(as)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if as[m].start <= p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return nil
	}
	return &as[lo-1]
}

// value returns the value of parameter name of h's route in the routed
// path (routing the escaped path when rawPath is set, as dispatch does),
// and whether the route has such a parameter. It allocates only for an
// escaped path.
func (h header) value(name, path, rawPath string) (string, bool) {
	i, n := h.index(name)
	if i < 0 {
		return "", false
	}
	if rawPath != "" {
		return h.escapedValue(n, i, path, rawPath), true
	}
	return h.extract(n, i, path), true
}

// index returns the position of parameter name in h's route, or -1, and
// the route's number of parameters.
func (h header) index(name string) (int, int) {
	n, l := h.n(), len(name)
	if l == 0 || l > maxNameLen {
		return -1, n
	}
	key := uint16(l) | uint16(name[0])<<8 // an entry's length and first byte
	e := unsafe.Add(h.p, -headerFixed-entrySize*n)
	for i := 0; i < n; i++ {
		if load16(unsafe.Add(e, entrySize*i+4)) == key &&
			(l == 1 || equalName(unsafe.Add(h.p, load16(unsafe.Add(e, entrySize*i+2))), name)) {
			return i, n
		}
	}
	return -1, n
}

// escapedValue is value for a path sent with escapes that change its
// meaning.
func (h header) escapedValue(n, i int, path, rawPath string) string {
	u := url.URL{Path: path, RawPath: rawPath}
	v := h.extract(n, i, routingPath(u.EscapedPath()))
	if strings.IndexByte(v, '%') >= 0 {
		if uv, err := url.PathUnescape(v); err == nil {
			v = uv
		}
	}
	return v
}

// equalName reports whether the len(name) bytes at p are name. Names are
// short: one of up to 8 bytes is compared with two overlapping loads.
func equalName(p unsafe.Pointer, name string) bool {
	l := len(name)
	q := unsafe.Pointer(unsafe.StringData(name))
	switch {
	case l > 8:
		return equalBytes(p, q, l)
	case l >= 4:
		return load32(p) == load32(q) && load32(unsafe.Add(p, l-4)) == load32(unsafe.Add(q, l-4))
	case l >= 2:
		return load16(p) == load16(q) && load16(unsafe.Add(p, l-2)) == load16(unsafe.Add(q, l-2))
	}
	return *(*byte)(p) == *(*byte)(q)
}

// extract returns parameter i's value in path, for h's route of n
// parameters. The first value starts, and the last ends, at a fixed
// distance from the path's start and end; a value in between is found by
// skipping the values between it and the nearer end, each up to its '/'.
// A path that does not have the pattern's shape (changed after routing)
// yields a wrong value or "", never a panic.
func (h header) extract(n, i int, path string) string {
	entries := unsafe.Add(h.p, -headerFixed-entrySize*n)
	return extractValue(entries, n, i, h.post(), h.catchAll(), path)
}

// extractValue is extract, given the parameter entries, the length of the
// static text after the last parameter and whether it is a catch-all. It
// makes no calls: the scans for '/' are loops over the path's bytes,
// through its base pointer within bounds checked here.
func extractValue(entries unsafe.Pointer, n, i, post int, catchAll bool, path string) string {
	base, l := unsafe.Pointer(unsafe.StringData(path)), len(path)
	at := func(j int) byte { return *(*byte)(unsafe.Add(base, j)) }
	gap := func(k int) int { return int(load16(unsafe.Add(entries, entrySize*k))) }
	last := n - 1
	// The number of values to scan going forwards, and backwards (where a
	// catch-all, which may hold '/', cannot be scanned).
	fwd, back := i, last-i
	if i < last || catchAll {
		fwd++ // its own end must be found too, unless it is the last
	}
	if i > 0 {
		back++ // its own start must be found too, unless it is the first
	}
	var start, stop int
	if fwd <= back || catchAll {
		start = gap(0)
		for k := 0; k < i; k++ {
			for start < l && at(start) != '/' {
				start++
			}
			start += gap(k + 1)
		}
		if start > l {
			return ""
		}
		switch {
		case i < last:
			stop = start
			for stop < l && at(stop) != '/' {
				stop++
			}
		case catchAll:
			stop = l
		default:
			stop = l - post
		}
	} else {
		stop = l - post
		for k := last; k > i; k-- {
			for stop > 0 && stop <= l && at(stop-1) != '/' {
				stop--
			}
			stop -= gap(k)
		}
		if stop < 0 || stop > l {
			return ""
		}
		start = gap(0)
		if i > 0 {
			start = stop
			for start > 0 && at(start-1) != '/' {
				start--
			}
		}
	}
	if start > stop || stop > l {
		return ""
	}
	return unsafe.String((*byte)(unsafe.Add(base, start)), stop-start)
}

// param is Param's common case as one function without calls: the
// request's pattern is in an arena, the path has no escapes, and the
// route has the parameter. ok is false otherwise.
func param(pattern string, u *url.URL, name string) (v string, ok bool) {
	list := arenas.Load()
	l := len(name)
	if list == nil || u == nil || l == 0 || l > maxNameLen || len(pattern) == 0 {
		return "", false
	}
	sp := unsafe.Pointer(unsafe.StringData(pattern))
	as := *list
	var a *arena
	if len(as) == 1 {
		a = &as[0]
	} else if a = arenaOf(as, uintptr(sp)); a == nil {
		return "", false
	}
	d := uintptr(sp) - a.start
	if d < headerFixed || d >= uintptr(len(a.text)) ||
		*(*byte)(unsafe.Add(sp, -1)) != patternMark || int(load16(unsafe.Add(sp, -6))) != len(pattern) {
		return "", false
	}
	n := int(load16(unsafe.Add(sp, -8)))
	if int(d) < headerFixed+entrySize*n || u.RawPath != "" {
		return "", false
	}
	entries := unsafe.Add(sp, -headerFixed-entrySize*n)
	key := uint16(l) | uint16(name[0])<<8 // an entry's length and first byte
	q := unsafe.Pointer(unsafe.StringData(name))
	for i := 0; i < n; i++ {
		e := unsafe.Add(entries, entrySize*i)
		if load16(unsafe.Add(e, 4)) != key {
			continue
		}
		if l > 1 {
			np := unsafe.Add(sp, load16(unsafe.Add(e, 2)))
			var eq bool
			switch {
			case l > 8:
				eq = equalBytes(np, q, l)
			case l >= 4:
				eq = load32(np) == load32(q) && load32(unsafe.Add(np, l-4)) == load32(unsafe.Add(q, l-4))
			default:
				eq = load16(np) == load16(q) && load16(unsafe.Add(np, l-2)) == load16(unsafe.Add(q, l-2))
			}
			if !eq {
				continue
			}
		}
		flags := *(*byte)(unsafe.Add(sp, -2))
		return extractValue(entries, n, i, int(load16(unsafe.Add(sp, -4))), flags&flagCatchAll != 0, u.Path), true
	}
	return "", false
}

// Param returns the value of the path parameter name of the route that
// matched req, unescaped, or "" when the route has no such parameter. It
// does not allocate, except for a path sent with escapes that change its
// meaning (such as %2F).
//
// It reads req.Pattern and the path of req.URL, as the router left them:
// it works on copies of req (req.WithContext, http.TimeoutHandler), in
// goroutines, and after the handler returned, for as long as anyone holds
// req. Middleware that rewrites req.URL's path after routing makes the
// values meaningless; rewrite it before routing (root middleware, or
// Mount). A name that the route lacks is looked up in the routes of
// enclosing routers (Mount), then, on a request that ServeMux routed, with
// req.PathValue.
func Param(req *http.Request, name string) string {
	if v, ok := param(req.Pattern, req.URL, name); ok {
		return v
	}
	return paramElsewhere(req, name)
}

// paramElsewhere is Param for a path with escapes, a name that req's route
// lacks, or a request that no vane router routed.
func paramElsewhere(req *http.Request, name string) string {
	h, ours := headerOf(req.Pattern)
	if ours && req.URL != nil {
		if v, ok := h.value(name, req.URL.Path, req.URL.RawPath); ok {
			return v
		}
	}
	if !ours {
		if v := req.PathValue(name); v != "" {
			return v
		}
	}
	c, _ := req.Context().Value(mountKey{}).(*mountContext)
	for c != nil {
		if h, ok := headerOf(c.pattern); ok {
			if v, ok := h.value(name, c.url.Path, c.url.RawPath); ok {
				return v
			}
		}
		c, _ = c.Context.Value(mountKey{}).(*mountContext)
	}
	return ""
}

// mountContext is the context of a request that Mount hands on: it keeps
// the pattern and URL by which the enclosing router routed it, for Param.
type mountContext struct {
	context.Context
	pattern string
	url     url.URL
}

type mountKey struct{}

func (c *mountContext) Value(key any) any {
	if _, ok := key.(mountKey); ok {
		return c
	}
	return c.Context.Value(key)
}

func (c *mountContext) String() string { return "router.mountContext(" + c.pattern + ")" }

// ParamNames returns the parameter names of pattern in order, or an error
// if pattern is not one the router accepts.
func ParamNames(pattern string) ([]string, error) {
	_, names, err := parsePattern(pattern)
	return names, err
}
