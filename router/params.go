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

// The header before a pattern in its arena:
//
//	[open_0 end_0 … open_n-1 end_n-1] [n] [len] 0xFF pattern…
//
// n, len and each open_i and end_i are little-endian uint16: open_i is the
// offset of parameter i's '{' in the pattern, end_i the offset just after
// its '}'. 0xFF, a byte no UTF-8 text contains, marks the start of a
// pattern; len is the pattern's length, so that a string pointing into a
// pattern elsewhere than at its start, or shorter, is not taken for it.
const (
	patternMark  = 0xFF
	headerFixed  = 5 // n, len and the mark
	headerPerArg = 4 // open_i and end_i
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

// buildArena returns the arena for the patterns of routes, and the
// pattern of each route as a string inside it, in order.
func buildArena(patterns []string) (string, []string) {
	size := 0
	for _, p := range patterns {
		size += headerFixed + headerPerArg*strings.Count(p, "{") + len(p)
	}
	buf := make([]byte, 0, size)
	offs := make([]int, len(patterns))
	for i, p := range patterns {
		_, spans := paramSpans(p)
		for _, s := range spans {
			buf = le16(le16(buf, s[0]), s[1])
		}
		buf = le16(le16(buf, len(spans)), len(p))
		buf = append(buf, patternMark)
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

// patternHeader returns the arena holding pattern and the offset of the
// pattern in it, when pattern is the pattern of a route of a live router.
func patternHeader(pattern string) (text string, off int, ok bool) {
	list := arenas.Load()
	if list == nil || len(pattern) == 0 {
		return "", 0, false
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(pattern)))
	as := *list
	// The last arena that starts at or before p.
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
		return "", 0, false
	}
	a := &as[lo-1]
	d := p - a.start
	if d < headerFixed || d >= uintptr(len(a.text)) {
		return "", 0, false
	}
	off = int(d)
	t := a.text
	if t[off-1] != patternMark || int(t[off-3])|int(t[off-2])<<8 != len(pattern) {
		return "", 0, false
	}
	if n := int(t[off-5]) | int(t[off-4])<<8; off < headerFixed+headerPerArg*n {
		return "", 0, false
	}
	return t, off, true
}

// value returns the value of parameter name of the route whose pattern
// starts at off in the arena text, in the routed path (routing the escaped
// path when rawPath is set, as dispatch does), and whether the route has
// such a parameter. It allocates only for an escaped path.
func value(text string, off int, name, path, rawPath string) (string, bool) {
	plen := int(text[off-3]) | int(text[off-2])<<8
	n := int(text[off-5]) | int(text[off-4])<<8
	args := off - headerFixed - headerPerArg*n
	pattern := text[off : off+plen]
	catchAll := n > 0 && plen >= 4 && pattern[plen-2] == '.'
	for i := 0; i < n; i++ {
		e := args + headerPerArg*i
		open, end := int(text[e])|int(text[e+1])<<8, int(text[e+2])|int(text[e+3])<<8
		nameEnd := end - 1
		if catchAll && i == n-1 {
			nameEnd -= 3
		}
		if nameEnd-open-1 != len(name) || pattern[open+1:nameEnd] != name {
			continue
		}
		if rawPath == "" {
			return extract(text, args, n, i, plen, catchAll, path), true
		}
		u := url.URL{Path: path, RawPath: rawPath}
		v := extract(text, args, n, i, plen, catchAll, routingPath(u.EscapedPath()))
		if strings.IndexByte(v, '%') >= 0 {
			if uv, err := url.PathUnescape(v); err == nil {
				v = uv
			}
		}
		return v, true
	}
	return "", false
}

// extract returns parameter i's value in path, for a route of n
// parameters whose header's parameter offsets start at args in text and
// whose pattern is plen bytes long. A path that does not have the
// pattern's shape (changed after routing) yields a wrong value or "",
// never a panic.
func extract(text string, args, n, i, plen int, catchAll bool, path string) string {
	open := func(k int) int { e := args + headerPerArg*k; return int(text[e]) | int(text[e+1])<<8 }
	end := func(k int) int { e := args + headerPerArg*k + 2; return int(text[e]) | int(text[e+1])<<8 }
	if catchAll || i <= n-1-i {
		// From the start: values before i are skipped, each up to its '/'.
		pos := open(0)
		for k := 0; k < i; k++ {
			if pos > len(path) {
				return ""
			}
			pos += segmentEnd(path[pos:]) + open(k+1) - end(k)
		}
		if pos > len(path) {
			return ""
		}
		if catchAll && i == n-1 {
			return path[pos:]
		}
		return path[pos : pos+segmentEnd(path[pos:])]
	}
	// From the end: the last value ends where the static suffix begins.
	stop := len(path) - (plen - end(n-1))
	for k := n - 1; ; k-- {
		if stop < 0 {
			return ""
		}
		start := strings.LastIndexByte(path[:stop], '/') + 1
		if k == i {
			return path[start:stop]
		}
		stop = start - (open(k) - end(k-1))
	}
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
	if text, off, ok := patternHeader(req.Pattern); ok && req.URL != nil {
		if v, ok := value(text, off, name, req.URL.Path, req.URL.RawPath); ok {
			return v
		}
	}
	return paramElsewhere(req, name)
}

// paramElsewhere is Param for a name that req's route lacks, or a request
// that no vane router routed.
func paramElsewhere(req *http.Request, name string) string {
	if _, _, ours := patternHeader(req.Pattern); !ours {
		if v := req.PathValue(name); v != "" {
			return v
		}
	}
	c, _ := req.Context().Value(mountKey{}).(*mountContext)
	for c != nil {
		if text, off, ok := patternHeader(c.pattern); ok {
			if v, ok := value(text, off, name, c.url.Path, c.url.RawPath); ok {
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
