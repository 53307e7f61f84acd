package router

import (
	"context"
	"math/bits"
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
// Patterns are segment-aligned: a parameter is a whole segment, and the
// text between two parameters is static, so the path repeats it. The
// first value starts, and the last ends, at a fixed distance from the
// path's start and end; any other is reached from the nearer of them by
// hopping over the values between (each up to its '/') and the static
// text between them, whose length the pattern gives.
//
// What a pattern's parameters are is decided at compile time, not parsed
// per call: every route's pattern string lives in the router's pattern
// arena, preceded by a header that lists its parameters (the layout is
// below). req.Pattern is that string itself, so Param recognises it by its
// address: the arenas of live routers are registered in a process-wide
// list, read without locking. A pattern not in any arena (set by ServeMux,
// or by hand) is not vane's: Param then asks req.PathValue.

// The header before a pattern in its arena, read backwards from the
// pattern's first byte p:
//
//	[keys] [params] post flags n len 0xFF pattern…
//
// 0xFF, a byte no UTF-8 text contains, marks the start of a pattern; len
// (its length) tells a string that points elsewhere into a pattern, or is
// shorter, from the pattern itself; n is its number of parameters. These
// three are all a pattern without parameters has (headerMin bytes). With
// parameters follow flags (flagCatchAll) and post (the length of the
// static text after the last parameter), then params: for each parameter
// in order, the offset of its name in the pattern and its key (the name's
// length and first byte, length in the low byte). All are little-endian
// uint16s. A pattern of more than four parameters also has keys: the keys
// again, contiguous and padded with zeros to a multiple of four, so that
// four are compared with one 8-byte load.
const (
	patternMark  = 0xFF
	headerMin    = 5 // mark, len, n
	headerFixed  = 8 // and flags, post
	paramSize    = 4 // a parameter's entry: its name's offset, its key
	entryKey     = 2 // the key's offset in an entry
	flagCatchAll = 1 // the last parameter is a catch-all
	maxNameLen   = 255

	lanes16 = 0x0001000100010001
	high16  = 0x8000800080008000
)

// headerSize is the size of the header of a pattern of n parameters.
func headerSize(n int) int {
	switch {
	case n == 0:
		return headerMin
	case n <= 4:
		return headerFixed + paramSize*n
	}
	return headerFixed + paramSize*n + keysSize(n)
}

// keysSize is the size of the keys of n parameters: whole words.
func keysSize(n int) int { return int((uint(n) + 3) >> 2 << 3) }

// paramsAt returns where the params of the header of the pattern at p, of
// n parameters, begin.
func paramsAt(p unsafe.Pointer, n int) unsafe.Pointer {
	return unsafe.Add(p, -headerFixed-paramSize*n)
}

// arena is where a router's compiled pattern text lies, registered for as
// long as the text lives: while its router does, and after, while any
// request keeps a pattern in it (req.Pattern). It holds addresses, not
// the text, so that the list does not keep the text alive.
type arena struct {
	start uintptr // address of the text's first byte
	size  uintptr // the text's length
}

var (
	arenasMu sync.Mutex
	// arenas lists the registered arenas sorted by start. It is replaced,
	// never modified, so readers load it without locking.
	arenas atomic.Pointer[[]arena]
	// lastArena is the arena in which Param last found a pattern while
	// more than fewArenas were registered (tests and benchmarks that make
	// many routers): the request it reads next is most often one the same
	// router served, and then no search is needed. With fewer, the search
	// is a few steps and Param writes nothing shared, so requests of
	// several routers in parallel do not contend for it. Unregistering an
	// arena clears it, so it never names the range of freed text.
	lastArena atomic.Pointer[arena]
	// newestArena is the arena registered last, which Param tries first:
	// the router an application serves with is most often the last one
	// it built (and with Mount, the outer router's patterns are read
	// through the slower search only when an inner one names an outer
	// parameter). It is written only when an arena is registered or
	// unregistered; unregistering the newest clears it.
	newestArena atomic.Pointer[arena]
)

// fewArenas is how many registered arenas Param searches without trying
// lastArena first.
const fewArenas = 8

// buildArena returns the arena for patterns (well-formed, with names of at
// most maxNameLen bytes), and the offset of each in it.
func buildArena(patterns []string) (string, []int) {
	size := 0
	for _, p := range patterns {
		size += headerSize(strings.Count(p, "{")) + len(p)
	}
	size = max(size, 16) // never a tiny allocation
	buf := make([]byte, 0, size)
	offs := make([]int, len(patterns))
	for i, p := range patterns {
		catchAll, spans := paramSpans(p)
		n := len(spans)
		keys := make([]int, n)
		for j, sp := range spans {
			name := strings.TrimSuffix(p[sp[0]+1:sp[1]-1], "...")
			keys[j] = len(name) | int(name[0])<<8
		}
		if n > 4 {
			for j := range keysSize(n) / 2 {
				key := 0
				if j < n {
					key = keys[j]
				}
				buf = le16(buf, key)
			}
		}
		for j, sp := range spans {
			buf = le16(le16(buf, sp[0]+1), keys[j])
		}
		if n > 0 {
			flags := 0
			if catchAll {
				flags |= flagCatchAll
			}
			buf = le16(buf, len(p)-spans[n-1][1])
			buf = append(buf, byte(flags))
		}
		buf = le16(le16(buf, n), len(p))
		buf = append(buf, patternMark)
		offs[i] = len(buf)
		buf = append(buf, p...)
	}
	return unsafe.String(unsafe.SliceData(buf), len(buf)), offs
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

// registerArena adds text, a string that starts its own allocation of at
// least 16 bytes (buildArena's), to the list of live arenas until the
// text is unreachable: until neither its router nor any request's
// req.Pattern holds it.
//
// The text's finalizer unregisters it. A finalizer, not a cleanup: the
// runtime frees an object with a finalizer only in a collection after the
// finalizer has run, so the list never names memory that has been freed
// and reused (by another string that could then pass for a pattern).
func registerArena(text string) {
	if len(text) == 0 {
		return
	}
	data := unsafe.StringData(text)
	start := uintptr(unsafe.Pointer(data))
	arenasMu.Lock()
	var list []arena
	if old := arenas.Load(); old != nil {
		list = slices.Clone(*old)
	}
	i, _ := slices.BinarySearchFunc(list, start, func(a arena, s uintptr) int { return cmpUintptr(a.start, s) })
	list = slices.Insert(list, i, arena{start: start, size: uintptr(len(text))})
	arenas.Store(&list)
	newestArena.Store(&arena{start: start, size: uintptr(len(text))})
	arenasMu.Unlock()
	runtime.SetFinalizer(data, unregisterArena)
}

func unregisterArena(data *byte) {
	start := uintptr(unsafe.Pointer(data))
	arenasMu.Lock()
	defer arenasMu.Unlock()
	old := arenas.Load()
	if old == nil {
		return
	}
	list := slices.DeleteFunc(slices.Clone(*old), func(a arena) bool { return a.start == start })
	arenas.Store(&list)
	lastArena.Store(nil)
	if a := newestArena.Load(); a != nil && a.start == start {
		newestArena.Store(nil)
	}
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

// arenaOf returns the arena of as (sorted by start) that holds p, or nil.
func arenaOf(as []arena, p uintptr) *arena {
	lo, hi := 0, len(as)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if as[m].start <= p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 || p-as[lo-1].start >= as[lo-1].size {
		return nil
	}
	return &as[lo-1]
}

// header is the first byte of a pattern in an arena, from which its header
// is read backwards; headerOf has checked that the whole header lies in
// the arena.
type header struct{ p unsafe.Pointer }

// headerOf returns the header of pattern when pattern is the pattern of a
// route of a live router. Every byte it reads lies in the registered
// arena.
func headerOf(pattern string) (header, bool) {
	if len(pattern) == 0 {
		return header{}, false
	}
	sp := unsafe.Pointer(unsafe.StringData(pattern))
	a := searchArenas(uintptr(sp))
	if a == nil {
		return header{}, false
	}
	if _, ok := patternAt(sp, uintptr(sp)-a.start, len(pattern)); !ok {
		return header{}, false
	}
	return header{sp}, true
}

// patternAt reports whether sp, d bytes into its arena, is the start of a
// pattern of l bytes there, and returns its number of parameters: the
// pattern's length and the mark in one load (the sum exceeds 24 bits for
// a string longer than any pattern), then the number, and that the whole
// header lies in the arena. Inlined into Param.
func patternAt(sp unsafe.Pointer, d uintptr, l int) (n int, ok bool) {
	if d < headerMin || uint64(load32(unsafe.Add(sp, -4)))>>8 != uint64(l)+patternMark<<16 {
		return 0, false
	}
	n = int(load16(unsafe.Add(sp, -5)))
	return n, int(d) >= headerSize(n)
}

func (h header) u16(off int) int { return int(load16(unsafe.Add(h.p, off))) }
func (h header) n() int          { return h.u16(-5) }

// name returns the name of parameter i of h's pattern.
func (h header) name(i int, pattern string) string {
	e := unsafe.Add(paramsAt(h.p, h.n()), paramSize*i)
	off := int(load16(e))
	return pattern[off : off+int(load16(unsafe.Add(e, entryKey))&0xff)]
}

// value returns the value of parameter name of h's route in the routed
// path (routing the escaped path when rawPath is set, as dispatch does),
// and whether the route has such a parameter. It allocates only for an
// escaped path.
func (h header) value(name, path, rawPath string) (string, bool) {
	v, ok := valueOf(h.p, h.n(), name, path)
	if !ok || rawPath == "" {
		return v, ok
	}
	u := url.URL{Path: path, RawPath: rawPath}
	v, _ = valueOf(h.p, h.n(), name, routingPath(u.EscapedPath()))
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

// equalName reports whether the l bytes at p and q are equal, l being at
// least 2. Names are short: one of up to 8 bytes is compared with two
// overlapping loads.
func equalName(p, q unsafe.Pointer, l int) bool {
	switch {
	case l > 8:
		return equalBytes(p, q, l)
	case l >= 4:
		return load32(p) == load32(q) && load32(unsafe.Add(p, l-4)) == load32(unsafe.Add(q, l-4))
	}
	return load16(p) == load16(q) && load16(unsafe.Add(p, l-2)) == load16(unsafe.Add(q, l-2))
}

// valueOf returns the value in path of parameter name of the route of n
// parameters whose pattern is at p, and whether the route has it.
// Patterns are segment-aligned and the text between two parameters is
// static, so the path repeats it: the first value starts where the
// pattern's first parameter does, the last (unless a catch-all) ends
// where the static suffix begins, and any other is reached from the
// nearer of those by hopping over the values between (each up to its '/')
// and the static text between them (its length known from the pattern). A
// value ends at the next '/', the last where the suffix begins (a
// catch-all's at the end). A path that does not have the pattern's shape
// (changed after routing) yields a wrong value or "", never a panic. The
// first and the last value, most of what handlers read, take no loop but
// the scan for their other end.
func valueOf(p unsafe.Pointer, n int, name, path string) (string, bool) {
	if n == 0 { // a pattern without parameters has no entries in its header
		return "", false
	}
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
				return "", false
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
		return "", false
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
		return unsafe.String((*byte)(unsafe.Add(base, start)), stop-start), true
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
			return unsafe.String((*byte)(unsafe.Add(base, start)), stop-start), true
		}
		start = segmentStart(base, stop)
		return unsafe.String((*byte)(unsafe.Add(base, start)), stop-start), true
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

// segmentStart returns the index just after the last '/' in the stop
// bytes at base, or 0: where a value that ends at stop begins. Eight bytes
// at a time while a word is left (bytesEqual is exact, so the highest
// byte flagged is the nearest '/'), then byte by byte.
func segmentStart(base unsafe.Pointer, stop int) int {
	for ; stop >= 8; stop -= 8 {
		if m := bytesEqual(load64(unsafe.Add(base, stop-8)), '/'); m != 0 {
			return stop - bits.LeadingZeros64(m)>>3
		}
	}
	for stop > 0 && *(*byte)(unsafe.Add(base, stop-1)) != '/' {
		stop--
	}
	return stop
}

// searchArenas returns the registered arena that holds p, or nil: by
// binary search among a few, through lastArena among more.
func searchArenas(p uintptr) *arena {
	list := arenas.Load()
	if list == nil {
		return nil
	}
	as := *list
	if len(as) <= fewArenas {
		return arenaOf(as, p)
	}
	if a := lastArena.Load(); a != nil && p-a.start < a.size {
		return a
	}
	a := arenaOf(as, p)
	if a != nil {
		lastArena.Store(a)
	}
	return a
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
	// The common case, in this one function: the request's pattern is in
	// an arena, the path has no escapes, and the route has the parameter.
	// paramElsewhere does the rest. The arena check is headerOf's,
	// written out here: searchArenas is not inlined, and the newest arena
	// spares most reads its call.
	pattern, u := req.Pattern, req.URL
	if u == nil || u.RawPath != "" {
		return paramElsewhere(req, name)
	}
	// An empty pattern is in no arena, or does not match its header's
	// length.
	sp := unsafe.Pointer(unsafe.StringData(pattern))
	a := newestArena.Load()
	if a == nil || uintptr(sp)-a.start >= a.size {
		if a = searchArenas(uintptr(sp)); a == nil {
			return paramElsewhere(req, name)
		}
	}
	if n, ok := patternAt(sp, uintptr(sp)-a.start, len(pattern)); ok {
		if v, ok := valueOf(sp, n, name, u.Path); ok {
			return v
		}
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
