package router

import (
	"context"
	"math/bits"
	"net/http"
	"net/url"
	"strings"
	"unsafe"
)

// patternValue returns the value of parameter name of the route whose
// pattern (in an arena) is pattern in the routed path (routing the escaped
// path when rawPath is set, as dispatch does), and whether the route has
// such a parameter. It allocates only for an escaped path.
func patternValue(pattern, name, path, rawPath string) (string, bool) {
	v, ok := paramOf(pattern, &url.URL{Path: path}, name, nil)
	if !ok || rawPath == "" {
		return v, ok
	}
	u := url.URL{Path: path, RawPath: rawPath}
	v, _ = paramOf(pattern, &url.URL{Path: routingPath(u.EscapedPath())}, name, nil)
	if strings.IndexByte(v, '%') >= 0 {
		if uv, err := url.PathUnescape(v); err == nil {
			v = uv
		}
	}
	return v, true
}

// index returns the position of parameter name among the n of the pattern
// at p, or -1: four keys at a time, then the name itself. (valueOf finds a
// short name among four parameters or fewer itself.)
//
// unsafe: kept by BenchmarkParam20 (reads the pattern header in the arena;
// docs/design/2026-11-27-unsafe.md).
func index(p unsafe.Pointer, n int, name string) int {
	l := len(name)
	if l == 0 || l > maxNameLen || n == 0 {
		return -1
	}
	params := paramsAt(p, n)
	key := uint16(l) | uint16(name[0])<<8
	q := unsafe.Pointer(unsafe.StringData(name))
	if n <= 4 {
		for i, e := 0, params; i < n; i, e = i+1, unsafe.Add(e, paramSize) {
			if load16(unsafe.Add(e, entryKey)) == key && equalName(unsafe.Add(p, load16(e)), q, l) {
				return i
			}
		}
		return -1
	}
	match := func(i int) bool {
		e := unsafe.Add(params, paramSize*i)
		return load16(unsafe.Add(e, entryKey)) == key &&
			(l == 1 || equalName(unsafe.Add(p, load16(e)), q, l))
	}
	keys := unsafe.Add(params, -keysSize(n))
	want := uint64(key) * lanes16
	for w := 0; w < n; w += 4 {
		x := load64(unsafe.Add(keys, 2*w)) ^ want
		// The lowest lane of x that is zero has its high bit set in m;
		// lanes above it may be set falsely, so each is checked.
		for m := (x - lanes16) &^ x & high16; m != 0; m &= m - 1 {
			if i := w + bits.TrailingZeros64(m)>>4; i < n && match(i) {
				return i
			}
		}
	}
	return -1
}

// paramOf returns the value of parameter name of the route whose pattern
// is pattern, in u's path, and whether the route has it. Where that is not
// the common case (u's path has escapes, pattern is in no arena, or its
// route lacks name), it hands the request to paramElsewhere, or without
// req returns "", false. Param is one call to it, so that a handler's
// Param makes one call.
//
// The arena check is headerOf's, written out here: searchArenas is not
// inlined, and the newest arena spares most reads its call. Patterns are
// segment-aligned and the text between two parameters is static, so the
// path repeats it: the first value starts where the pattern's first
// parameter does, the last (unless a catch-all) ends where the static
// suffix begins, and any other is reached from the nearer of those by
// hopping over the values between (each up to its '/') and the static
// text between them (its length known from the pattern). A value ends at
// the next '/', the last where the suffix begins (a catch-all's at the
// end). A path that does not have the pattern's shape (changed after
// routing) yields a wrong value or "", never a panic. The first and the
// last value, most of what handlers read, take no loop but the scan for
// their other end.
//
// unsafe: kept by BenchmarkParam and BenchmarkParam5 (the pattern's header
// read in the arena and values sliced out of the path without bounds
// checks; docs/design/2026-11-27-unsafe.md).
func paramOf(pattern string, u *url.URL, name string, req *http.Request) (string, bool) {
	if u == nil || u.RawPath != "" {
		return elsewhere(req, name)
	}
	// An empty pattern is in no arena, or does not match its header's
	// length.
	p := unsafe.Pointer(unsafe.StringData(pattern))
	a := newestArena.Load()
	if a == nil || uintptr(p)-a.start >= a.size {
		if a = searchArenas(uintptr(p)); a == nil {
			return elsewhere(req, name)
		}
	}
	n, ok := patternAt(p, uintptr(p)-a.start, len(pattern))
	if !ok || n == 0 { // a pattern without parameters has no entries in its header
		return elsewhere(req, name)
	}
	path := u.Path
	params := paramsAt(p, n)
	// Which parameter: a short name among few parameters is found here
	// (index does the rest), sparing a call.
	i := 0
	if l := len(name); n <= 4 && uint(l-1) < 8 {
		q := unsafe.Pointer(unsafe.StringData(name))
		key := uint16(l) | uint16(*(*byte)(q))<<8
		// The name's first and last four bytes (two, for a name of two or
		// three), loaded once: a name whose key matches is then compared
		// with two loads of its own, overlapping for a short name.
		var first, lastw uint32
		switch {
		case l >= 4:
			first, lastw = load32(q), load32(unsafe.Add(q, l-4))
		case l >= 2:
			first, lastw = uint32(load16(q)), uint32(load16(unsafe.Add(q, l-2)))
		}
		for e := params; ; i, e = i+1, unsafe.Add(e, paramSize) {
			if i == n {
				return elsewhere(req, name)
			}
			if load16(unsafe.Add(e, entryKey)) != key {
				continue
			}
			np := unsafe.Add(p, load16(e))
			if l >= 4 && load32(np) == first && load32(unsafe.Add(np, l-4)) == lastw ||
				l < 4 && (l == 1 || uint32(load16(np)) == first && uint32(load16(unsafe.Add(np, l-2))) == lastw) {
				break
			}
		}
	} else if i = index(p, n, name); i < 0 {
		return elsewhere(req, name)
	}
	base, l := unsafe.Pointer(unsafe.StringData(path)), len(path)
	// open(j) is where parameter j's '{' is in the pattern, so where its
	// value starts if the values before it are as long as their names'
	// braces; gap(j) is the length of the static text between parameters
	// j-1 and j (j-1 is not a catch-all).
	open := func(j int) int { return int(load16(unsafe.Add(params, paramSize*j))) - 1 }
	gap := func(j int) int {
		e := unsafe.Add(params, paramSize*(j-1))
		return open(j) - int(load16(e)) - int(*(*byte)(unsafe.Add(e, entryKey))) - 1
	}
	post := int(load16(unsafe.Add(p, -8))) // the static text after the last value
	catchAll := *(*byte)(unsafe.Add(p, -6))&flagCatchAll != 0
	var start, stop int
	switch {
	case i == 0 && (n > 1 || catchAll):
		// The first of several, or a catch-all: up to the next '/', or
		// the end.
		if start = open(0); start >= l {
			return "", true
		}
		if catchAll && n == 1 {
			stop = l
		} else {
			stop = start + segmentEnd(unsafe.Add(base, start), l-start)
		}
	case i == n-1 && !catchAll:
		// The last (the only one, when n is 1): back from where the
		// static suffix begins to the previous '/', or to where the
		// only value begins.
		if stop = l - post; uint(stop) > uint(l) {
			return "", true
		}
		if n == 1 {
			if start = open(0); start > stop {
				return "", true
			}
		} else {
			start = segmentStart(base, stop)
		}
	case catchAll || 2*i < n:
		// Forward from the first value, hopping over those before it.
		start = open(0)
		for j := 1; j <= i; j++ {
			if start < l {
				start += segmentEnd(unsafe.Add(base, start), l-start)
			}
			start += gap(j)
		}
		if start >= l {
			return "", true
		}
		if i == n-1 { // a catch-all
			stop = l
		} else {
			stop = start + segmentEnd(unsafe.Add(base, start), l-start)
		}
	default:
		// Back from the last value's end, hopping over those after it.
		stop = l - post
		for j := n - 1; ; j-- {
			if uint(stop) > uint(l) {
				return "", true
			}
			start = segmentStart(base, stop)
			if j == i {
				break
			}
			stop = start - gap(j)
		}
	}
	return unsafe.String((*byte)(unsafe.Add(base, start)), stop-start), true
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
	v, _ := paramOf(req.Pattern, req.URL, name, req)
	return v
}

// elsewhere is what paramOf answers where the common case does not hold:
// paramElsewhere's value for req, or without req none.
func elsewhere(req *http.Request, name string) (string, bool) {
	if req == nil {
		return "", false
	}
	return paramElsewhere(req, name), true
}

// paramElsewhere is Param for a path with escapes, a name that req's route
// lacks, or a request that no vane router routed.
func paramElsewhere(req *http.Request, name string) string {
	_, ours := headerOf(req.Pattern)
	if ours && req.URL != nil {
		if v, ok := patternValue(req.Pattern, name, req.URL.Path, req.URL.RawPath); ok {
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
		if _, ok := headerOf(c.pattern); ok {
			if v, ok := patternValue(c.pattern, name, c.url.Path, c.url.RawPath); ok {
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
