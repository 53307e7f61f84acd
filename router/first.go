package router

import "strings"

// firstSegments is a filter of the first path segments the routes of
// every method begin with, so that a miss whose first segment begins none
// of them is known to be a 404 at once: no method's route matches it, with
// or without a trailing slash, so there is no Allow header to build and
// no redirect to probe. It is a 256-bit set of the segments' hashes (32
// bytes, whatever the routes): a segment whose bit is set may still be a
// stranger, and is then routed as before.
type firstSegments struct {
	any  bool // a first segment holds a parameter: any path may match
	bits [4]uint64
}

// newFirstSegments collects the first segments of patterns (each begins
// with '/').
func newFirstSegments(patterns []string) firstSegments {
	var fs firstSegments
	for _, p := range patterns {
		seg := firstSegment(p)
		if strings.ContainsAny(seg, "{}\\") {
			fs.any = true
			continue
		}
		h := segmentHash(seg)
		fs.bits[h>>6&3] |= 1 << (h & 63)
	}
	return fs
}

// mayMatch reports whether some route of some method could match path p
// or p with a trailing slash toggled. It does not allocate.
func (fs *firstSegments) mayMatch(p string) bool {
	if fs.any || len(p) == 0 || p[0] != '/' {
		return true
	}
	h := uint32(2166136261) // segmentHash of the first segment, in one pass
	for i := 1; i < len(p) && p[i] != '/'; i++ {
		h = (h ^ uint32(p[i])) * 16777619
	}
	h = fold(h)
	return fs.bits[h>>6&3]&(1<<(h&63)) != 0
}

// firstSegment returns the first segment of path p, which begins with '/'.
func firstSegment(p string) string {
	seg := p[1:]
	if i := strings.IndexByte(seg, '/'); i >= 0 {
		seg = seg[:i]
	}
	return seg
}

// segmentHash is FNV-1a of s, folded to 8 bits.
func segmentHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return fold(h)
}

// fold folds a 32-bit hash to 8 bits.
func fold(h uint32) uint32 { return (h ^ h>>8 ^ h>>16 ^ h>>24) & 0xff }
