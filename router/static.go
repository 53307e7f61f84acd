package router

import (
	"math/bits"
	"unsafe"
)

// The static index: every route without parameters, by method and path, in
// one open-addressing hash table that compile builds beside the trees.
//
// A static route that equals the path exactly is the most specific match
// there is (static at every segment), so a hit in the index is the tree's
// answer without walking it: one hash of the path, usually one slot. Most
// misses are turned away by a 256-bit filter before the hash; the others
// cost the hash and usually one empty slot. Then the tree is walked.
//
// The table is built once from the registered routes and never changes, so
// how far a lookup probes depends only on the routes, never on the request:
// no request can make it degrade. compile picks, among a few seeds, the one
// with the shortest probe sequences, and keeps the table at most two
// thirds full (a slot is 8 bytes: the index is part of the router's memory).

// staticIndex is an open-addressing table of static routes.
type staticIndex struct {
	// slots hold the upper 32 bits of a route's hash (its tag) above its
	// index+1 in flatTrees.routes; 0 is an empty slot. len is a power of two.
	slots []uint64
	mask  uint64
	seed  uint64
	// filter has bit filterBit(method, path) set for every route: most
	// paths with parameters miss it and skip the hash.
	filter [4]uint64
}

// filterBit is the filter bit of a path of method: from its length and last
// byte, which the paths of parameter routes rarely share with a static one.
func filterBit(method uint8, path string) uint {
	return (uint(method)*97 + uint(len(path))*31 + uint(path[len(path)-1])) & 255
}

// maxStaticSeeds is how many seeds buildStatic tries.
const maxStaticSeeds = 8

// buildStatic indexes the static routes of f whose method has a tree of its
// own or is Mount's (routes of other methods are found by walking).
func (f *flatTrees) buildStatic() {
	var keys []uint32 // route indices
	for i := range f.routes {
		if rt := &f.routes[i]; rt.nparams == 0 && int(rt.method) <= anyMethodID {
			keys = append(keys, uint32(i))
		}
	}
	if len(keys) == 0 {
		return
	}
	size := 8
	for 2*size < 3*len(keys) {
		size *= 2
	}
	best, bestCost := staticIndex{}, -1
	for s := range maxStaticSeeds {
		ix := staticIndex{slots: make([]uint64, size), mask: uint64(size - 1), seed: staticSeed(s)}
		cost := 0
		for _, k := range keys {
			rt := &f.routes[k]
			h := ix.hash(rt.method, f.pattern(rt))
			i := h & ix.mask
			for ix.slots[i] != 0 {
				i = (i + 1) & ix.mask
				cost++
			}
			ix.slots[i] = h&^(1<<32-1) | uint64(k+1)
			b := filterBit(rt.method, f.pattern(rt))
			ix.filter[b>>6] |= 1 << (b & 63)
		}
		if bestCost < 0 || cost < bestCost {
			best, bestCost = ix, cost
		}
		if cost == 0 {
			break
		}
	}
	f.static = best
}

// staticSeed returns the s-th seed buildStatic tries.
func staticSeed(s int) uint64 { return 0x9e3779b97f4a7c15 * uint64(2*s+1) }

// mayHaveStatic reports whether the index may hold a route of method for
// path: false for most paths of parameter routes, without hashing them.
// Inlined into lookup, which calls findStatic only when it is true.
func (f *flatTrees) mayHaveStatic(method uint8, path string) bool {
	if path == "" || len(f.static.slots) == 0 {
		return false // patterns are never empty
	}
	b := filterBit(method, path)
	return f.static.filter[b>>6]&(1<<(b&63)) != 0
}

// findStatic returns the static route of method (a route method number)
// whose pattern is path, or nil. The index must have slots, and path must
// not be empty.
func (f *flatTrees) findStatic(method uint8, path string) *route {
	ix := &f.static
	h := ix.hash(method, path)
	tag := h >> 32
	for i := h & ix.mask; ; i = (i + 1) & ix.mask {
		s := *(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(ix.slots)), i*8))
		if s == 0 {
			return nil
		}
		if s>>32 == tag {
			if rt := &f.routes[uint32(s)-1]; rt.method == method && f.pattern(rt) == path {
				return rt
			}
		}
	}
}

// hash mixes method and every byte of path, eight bytes at a time.
func (ix *staticIndex) hash(method uint8, path string) uint64 {
	h := ix.seed ^ uint64(len(path))<<8 ^ uint64(method)
	p := unsafe.Pointer(unsafe.StringData(path))
	n := len(path)
	switch {
	case n >= 8:
		for i := 0; i < n-8; i += 8 {
			h = mix(h ^ load64(unsafe.Add(p, i)))
		}
		h = mix(h ^ load64(unsafe.Add(p, n-8))) // overlaps the last full word
	case n >= 4:
		h = mix(h ^ uint64(load32(p))<<32 ^ uint64(load32(unsafe.Add(p, n-4))))
	case n > 0:
		h = mix(h ^ uint64(path[0])<<16 ^ uint64(path[n>>1])<<8 ^ uint64(path[n-1]))
	}
	return mix(h)
}

// mix is one multiply-fold round, as in wyhash.
func mix(x uint64) uint64 {
	hi, lo := bits.Mul64(x^0xa0761d6478bd642f, 0xe7037ed1a0b428db)
	return hi ^ lo
}
