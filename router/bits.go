package router

import (
	"encoding/binary"
	"math/bits"
	"runtime"
	"unsafe"
)

// The bit-level helpers of the router: little-endian word loads, byte
// comparisons and searches eight bytes at a time, and the mixing round
// of the static index's hash (findStatic). Every caller guarantees that the bytes it names are
// readable.

// Little-endian loads of 8, 4 and 2 bytes from p, which need not be
// aligned: one instruction each on CPUs that load unaligned
// little-endian words (unalignedLE), byte by byte elsewhere.
//
// unsafe: the loads, comparisons and searches below are kept by
// BenchmarkStaticAll (the static index) and BenchmarkGitHubAll
// (match, Param, cleanSegments); docs/design/2026-11-27-unsafe.md.
func load64(p unsafe.Pointer) uint64 {
	if unalignedLE {
		return *(*uint64)(p)
	}
	return binary.LittleEndian.Uint64((*[8]byte)(p)[:])
}

func load32(p unsafe.Pointer) uint32 {
	if unalignedLE {
		return *(*uint32)(p)
	}
	return binary.LittleEndian.Uint32((*[4]byte)(p)[:])
}

func load16(p unsafe.Pointer) uint16 {
	if unalignedLE {
		return *(*uint16)(p)
	}
	return binary.LittleEndian.Uint16((*[2]byte)(p)[:])
}

// unalignedLE: the CPU is little-endian and loads unaligned words in one
// instruction. A constant, so each load compiles to one form.
const unalignedLE = runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64"

// equalBytes reports whether the n bytes at a and b are equal, a word at a
// time while a word is left, then byte by byte.
func equalBytes(a, b unsafe.Pointer, n int) bool {
	i := 0
	for ; i+8 <= n; i += 8 {
		if load64(unsafe.Add(a, i)) != load64(unsafe.Add(b, i)) {
			return false
		}
	}
	for ; i < n; i++ {
		if *(*byte)(unsafe.Add(a, i)) != *(*byte)(unsafe.Add(b, i)) {
			return false
		}
	}
	return true
}

// equalLong reports whether the n bytes at a and b are equal, n being at
// least 8: a word at a time, the last word overlapping the one before.
func equalLong(a, b unsafe.Pointer, n int) bool {
	i := 0
	for ; i+8 < n; i += 8 {
		if load64(unsafe.Add(a, i)) != load64(unsafe.Add(b, i)) {
			return false
		}
	}
	return load64(unsafe.Add(a, n-8)) == load64(unsafe.Add(b, n-8))
}

// segmentEnd returns the index of the first '/' in the n bytes at p, or
// n: where a parameter's value ends. Eight bytes at a time while a word is
// left (the lowest byte flagged is exact), then byte by byte.
func segmentEnd(p unsafe.Pointer, n int) int {
	i := 0
	for ; i+8 <= n; i += 8 {
		x := load64(unsafe.Add(p, i)) ^ ('/' * lowBits)
		if z := (x - lowBits) &^ x & highBits; z != 0 {
			return i + bits.TrailingZeros64(z)>>3
		}
	}
	for i < n && *(*byte)(unsafe.Add(p, i)) != '/' {
		i++
	}
	return i
}

const (
	lowBits      = 0x0101010101010101
	highBits     = 0x8080808080808080
	lowSevenBits = 0x7f7f7f7f7f7f7f7f

	lanes16 = 0x0001000100010001 // the low bit of each 16-bit lane
	high16  = 0x8000800080008000 // the high bit of each 16-bit lane
)

// bytesEqual returns x with the high bit of each byte set where that byte
// of x is c, and every other bit clear (exactly: no false positives).
func bytesEqual(x uint64, c byte) uint64 {
	t := x ^ lowBits*uint64(c)
	return ^((t&lowSevenBits + lowSevenBits) | t) & highBits
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

// mix is one multiply-fold round, as in wyhash.
func mix(x uint64) uint64 {
	hi, lo := bits.Mul64(x^0xa0761d6478bd642f, 0xe7037ed1a0b428db)
	return hi ^ lo
}
