package router

import (
	"path"
	"strings"
	"unsafe"
)

// unescapeDots returns the escaped path p with every %2E or %2e as ".".
func unescapeDots(p string) string {
	if !strings.Contains(p, "%2") {
		return p
	}
	return strings.NewReplacer("%2E", ".", "%2e", ".").Replace(p)
}

// isClean reports whether the path p has no empty, "." or ".." segment (a
// trailing slash is not an empty segment). A path that does not begin with
// '/', such as "*", has nothing to clean.
func isClean(p string) bool { return p == "" || p[0] != '/' || cleanSegments(p[1:]) }

// cleanSegments reports whether the '/'-separated segments of s are neither
// "." nor "..", nor empty but for the last. A segment can only go wrong
// where it begins with '/' or '.', that is at the start of s or where '/'
// is followed by '/' or '.': it looks for those pairs eight bytes at a
// time (words overlapping by one byte, so that no pair straddles two), and
// only where it finds one walks the segments byte by byte.
//
// unsafe: kept by BenchmarkCatchAll (eight bytes at a time;
// docs/design/2026-11-27-unsafe.md).
func cleanSegments(s string) bool {
	n := len(s)
	if n == 0 {
		return true
	}
	if s[0] == '/' || s[0] == '.' {
		return cleanSegmentsSlow(s)
	}
	p := unsafe.Pointer(unsafe.StringData(s))
	if n < 8 {
		for i := 0; i+1 < n; i++ {
			if s[i] == '/' && (s[i+1] == '/' || s[i+1] == '.') {
				return cleanSegmentsSlow(s)
			}
		}
		return true
	}
	for i := 0; i+8 < n; i += 7 {
		if slashPair(load64(unsafe.Add(p, i))) {
			return cleanSegmentsSlow(s)
		}
	}
	// The last word, overlapping the one before.
	return !slashPair(load64(unsafe.Add(p, n-8))) || cleanSegmentsSlow(s)
}

// slashPair reports whether the word x (eight bytes, little-endian)
// holds a '/' followed by a '/' or a '.'. The two differ only in bit 0
// (0x2F, 0x2E): m marks the bytes that are either, and of those the
// ones whose bit 0 is set are '/'.
func slashPair(x uint64) bool {
	m := bytesEqual(x|lowBits, '/')
	return m&(x<<7)&(m>>8) != 0
}

// cleanSegmentsSlow is cleanSegments one byte at a time.
func cleanSegmentsSlow(s string) bool {
	prev := byte('/') // s begins a segment
	for i := 0; i < len(s); i++ {
		c := s[i]
		if prev == '/' && (c == '/' || c == '.') {
			if c == '/' {
				return false // an empty segment before the last
			}
			j := i + 1
			if j < len(s) && s[j] == '.' {
				j++
			}
			if j == len(s) || s[j] == '/' {
				return false // the segment is "." or ".."
			}
		}
		prev = c
	}
	return true
}

// cleanPath returns the canonical form of p, keeping a trailing slash.
func cleanPath(p string) string {
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// routingPath decodes every escape of the escaped path raw except %2F and
// %25, which stay escaped so that the segments stay as the client sent them.
func routingPath(raw string) string {
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '%' && i+2 < len(raw) {
			hi, lo := unhex(raw[i+1]), unhex(raw[i+2])
			if hi < 16 && lo < 16 {
				d := hi<<4 | lo
				if d != '/' && d != '%' {
					b.WriteByte(d)
					i += 2
					continue
				}
				b.WriteString(raw[i : i+3])
				i += 2
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10
	}
	return 255
}

func toggleSlash(p string) string {
	if strings.HasSuffix(p, "/") {
		return p[:len(p)-1]
	}
	return p + "/"
}
