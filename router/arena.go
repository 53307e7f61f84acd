package router

import (
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
//
// unsafe: kept by BenchmarkParam (the header lies before the pattern's
// first byte; docs/design/2026-11-27-unsafe.md).
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
	buf := make([]byte, 0, max(size, minArena))
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
	for len(buf) < minArena {
		buf = append(buf, 0)
	}
	return string(buf), offs
}

// minArena is the least size of an arena: a string of 16 bytes or more is
// an allocation of its own (smaller ones may share one), so that the
// finalizer registerArena sets is the arena's alone.
const minArena = 16

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
// least minArena bytes (buildArena's), to the list of live arenas until the
// text is unreachable: until neither its router nor any request's
// req.Pattern holds it.
//
// The text's finalizer unregisters it. A finalizer, not a cleanup: the
// runtime frees an object with a finalizer only in a collection after the
// finalizer has run, so the list never names memory that has been freed
// and reused (by another string that could then pass for a pattern).
//
// unsafe: the arena is named by its address, which searchArenas compares;
// no benchmark, no alternative.
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

// header is the first byte of a pattern in an arena, from which its header
// is read backwards; headerOf has checked that the whole header lies in
// the arena.
type header struct{ p unsafe.Pointer }

// headerOf returns the header of pattern when pattern is the pattern of a
// route of a live router. Every byte it reads lies in the registered
// arena.
//
// unsafe: kept by BenchmarkParam5 (see paramsAt).
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
//
// unsafe: kept by BenchmarkParam (see paramsAt).
func patternAt(sp unsafe.Pointer, d uintptr, l int) (n int, ok bool) {
	if d < headerMin || uint64(load32(unsafe.Add(sp, -4)))>>8 != uint64(l)+patternMark<<16 {
		return 0, false
	}
	n = int(load16(unsafe.Add(sp, -5)))
	return n, int(d) >= headerSize(n)
}

func (h header) u16(off int) int { return int(load16(unsafe.Add(h.p, off))) }

func (h header) n() int { return h.u16(-5) }

// name returns the name of parameter i of h's pattern.
func (h header) name(i int, pattern string) string {
	e := unsafe.Add(paramsAt(h.p, h.n()), paramSize*i)
	off := int(load16(e))
	return pattern[off : off+int(load16(unsafe.Add(e, entryKey))&0xff)]
}
