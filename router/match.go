package router

import "unsafe"

// match returns the most specific route for path[start:] in the tree whose
// root is node i (its prefix, then the rest below it), recording the
// parameter values in vals from vals[nv] on, as spans of path. vals must be
// as long as the most parameters any route of the tree has. Lookups call
// it with start and nv 0.
//
// It tries the static child first, then the parameter child, then the
// catch-all child, and backtracks out of a branch that fails deeper down
// (see docs/design/router-tree.md). It is a loop without calls: where a node has an
// alternative after the branch it takes, it pushes the node on a stack of
// backtracking points kept in its frame, and pops the stack when a branch
// fails. When the stack is full, the branch is searched by a match of its
// own (a recursion, once per maxBacktrack points), and the node's
// alternatives are tried after it.
//
// unsafe: kept by BenchmarkGitHubAll, BenchmarkStaticAll and
// BenchmarkParseAll (the match loop without bounds checks;
// docs/design/2026-11-27-unsafe.md).
func (f *flatTrees) match(i uint32, path string, start, nv int, vals []span) *route {
	nodes := unsafe.Pointer(unsafe.SliceData(f.nodes))
	text := unsafe.Pointer(unsafe.StringData(f.text))
	node := func(i uint32) *flatNode {
		return (*flatNode)(unsafe.Add(nodes, uintptr(i)*unsafe.Sizeof(flatNode{})))
	}
	// The path left to match is path[pos:]; it is read through base, never
	// sliced, which spares the pointer masking of an empty slice.
	base, total := unsafe.Pointer(unsafe.StringData(path)), len(path)
	// Node i's own prefix comes first, at start.
	if pl := int(node(i).plen); start+pl > total ||
		pl >= 8 && !equalLong(unsafe.Add(base, start), unsafe.Add(text, node(i).text), pl) ||
		pl < 8 && !equalBytes(unsafe.Add(base, start), unsafe.Add(text, node(i).text), pl) {
		return nil
	}
	pos := start + int(node(i).plen)
	var stack [maxBacktrack]backtrack
	sp := 0
	// resume is what is left to try at node i when a backtracking point
	// was popped: 0 for a node reached afresh.
	var resume uint8
walk:
	for {
		n := node(i)
		wild := n.route & (hasParam | hasCatchAll)
		if resume == 0 {
			rem := total - pos
			if rem == 0 {
				if r := n.route & routeMask; r != 0 {
					return &f.routes[r-1]
				}
				if wild&hasCatchAll != 0 {
					vals[nv] = span{total, total}
					return f.catchAllRoute(n)
				}
				goto fail
			}
			// The static child whose first byte is the path's next, if its
			// prefix matches. Prefixes of up to 8 bytes are compared with
			// one masked 8-byte load of each when the path has 8 bytes left
			// (text has 8 bytes of padding at its end, so its loads never
			// leave it), longer ones a word at a time, short paths byte by
			// byte.
			if cnt := uint32(n.n); cnt != 0 {
				idx := unsafe.Add(text, n.text+uint32(n.plen))
				p := unsafe.Add(base, pos)
				c := *(*byte)(p)
				for j := uint32(0); j < cnt; j++ {
					if *(*byte)(unsafe.Add(idx, j)) != c {
						continue
					}
					k := n.first + j
					ch := node(k)
					pl := int(ch.plen)
					if pl > rem {
						break
					}
					t := unsafe.Add(text, ch.text)
					if rem >= 8 && pl <= 8 {
						// pl is 1 to 8: the shift is 0 to 56, which "&63"
						// tells the compiler, sparing it the check for 64
						// and more.
						if (load64(p)^load64(t))&(^uint64(0)>>((64-8*uint(pl))&63)) != 0 {
							break
						}
					} else if pl >= 8 {
						if !equalLong(p, t, pl) {
							break
						}
					} else if !equalBytes(p, t, pl) {
						break
					}
					if wild != 0 {
						if sp == len(stack) {
							// No room for the point: search the child's
							// subtree in a match of its own, then resume
							// here.
							if r := f.match(k, path, pos, nv, vals); r != nil {
								return r
							}
							resume = resumeParam
							continue walk
						}
						stack[sp] = backtrack{node: i, pos: uint32(pos), nv: uint32(nv), resume: resumeParam}
						sp++
					}
					i, pos = k, pos+pl
					continue walk
				}
			}
		}
		// No static child matches, or it failed: the parameter child, then
		// the catch-all.
		if wild&hasParam != 0 && resume != resumeCatchAll {
			if end := segmentEnd(unsafe.Add(base, pos), total-pos); end > 0 {
				k, kpos, knv := n.first+uint32(n.n), pos+end, nv+1
				vals[nv] = span{pos, kpos}
				// A parameter node that can only go on by '/' and another
				// value is passed at once; if the path does not, neither
				// can the parameter branch. A value ends at a '/' or the
				// path's end, so kpos holds '/' if it is not the end.
				for node(k).route&slashParam != 0 {
					v := kpos + 1
					if v >= total {
						goto noParam
					}
					e := segmentEnd(unsafe.Add(base, v), total-v)
					if e == 0 {
						goto noParam
					}
					vals[knv] = span{v, v + e}
					k, kpos, knv = node(k).first, v+e, knv+1
				}
				if wild&hasCatchAll != 0 {
					if sp == len(stack) {
						if r := f.match(k, path, kpos, knv, vals); r != nil {
							return r
						}
						resume = resumeCatchAll
						continue walk
					}
					stack[sp] = backtrack{node: i, pos: uint32(pos), nv: uint32(nv), resume: resumeCatchAll}
					sp++
				}
				// What a visit of the parameter node would do first, done
				// here: at the path's end, its route is the answer; else
				// the value ended at a '/', where its one static child
				// (if any) begins, and a child that is just "/" (its
				// children diverge after it) is passed at once.
				if kn := node(k); kpos == total {
					if r := kn.route & routeMask; r != 0 {
						return &f.routes[r-1]
					}
				} else if kn.n != 0 {
					// Its one static child, compared here as the static
					// descent would; if it does not match, neither does
					// the parameter node, which has no alternative.
					c := kn.first
					pl, rem := int(node(c).plen), total-kpos
					q, t := unsafe.Add(base, kpos), unsafe.Add(text, node(c).text)
					if pl == 1 || pl <= rem && (rem >= 8 && pl <= 8 && (load64(q)^load64(t))&(^uint64(0)>>((64-8*uint(pl))&63)) == 0 ||
						pl > 8 && equalLong(q, t, pl) || rem < 8 && equalBytes(q, t, pl)) {
						i, pos, nv, resume = c, kpos+pl, knv, 0
						continue walk
					}
					goto fail
				}
				i, pos, nv, resume = k, kpos, knv, 0
				continue walk
			}
		}
	noParam:
		if wild&hasCatchAll != 0 {
			vals[nv] = span{pos, total}
			return f.catchAllRoute(n)
		}
	fail:
		// Backtrack: resume the latest node with an alternative left.
		if sp == 0 {
			return nil
		}
		sp--
		b := stack[sp]
		i, pos, nv, resume = b.node, int(b.pos), int(b.nv), b.resume
	}
}

// span locates a parameter's value in the path matched: path[start:end].
// Matching records spans, not strings: storing them needs no write
// barrier, which keeps the matching loop free of calls.
type span struct{ start, end int }

// maxBacktrack is how many backtracking points match keeps in its frame.
const maxBacktrack = 4

// backtrack is a node of a match in progress with alternatives yet to be
// tried (from its parameter child, or its catch-all child only), the offset
// in the path where it was reached and the number of values matched before
// it.
type backtrack struct {
	node, pos, nv uint32
	resume        uint8
}

// What is left to try at a backtracking point.
const (
	resumeParam    = 1 // the parameter child, then the catch-all child
	resumeCatchAll = 2 // the catch-all child
)

// catchAllRoute returns the route of n's catch-all child.
func (f *flatTrees) catchAllRoute(n *flatNode) *route {
	k := n.first + uint32(n.n)
	if n.route&hasParam != 0 {
		k++
	}
	return &f.routes[f.nodes[k].route&routeMask-1]
}

// lookup returns the route for method and path: the method's own routes,
// then, for HEAD, GET's, then Mount's.
func (f *flatTrees) lookup(method, path string, vals []span) *route {
	return f.find(methodIndex(method), method, path, vals, true)
}

// find returns the route for path among those of route method number i
// (a standard method's, or Mount's at anyMethodID; -1 for method, a
// custom one): a static route equal to path if there is one (findStatic),
// the most specific there is, else what the walk of the tree finds. With
// fallback, it goes on where those have none, as lookup does (fallback).
func (f *flatTrees) find(i int, method, path string, vals []span, fallback bool) *route {
	var rt *route
	if i >= 0 {
		rt = f.methodRoute(i, path, vals)
	} else if root := f.custom[method]; root != 0 {
		rt = f.match(root-1, path, 0, 0, vals)
	}
	if rt != nil || !fallback {
		return rt
	}
	return f.fallback(i, path, vals)
}

// methodRoute returns the route for path among those of route method
// number i: the static index's, else the tree's.
func (f *flatTrees) methodRoute(i int, path string, vals []span) *route {
	if f.mayHaveStatic(uint8(i), path) {
		if rt, _, _ := f.findStatic(uint8(i), path); rt != nil {
			return rt
		}
	}
	if root := f.roots[i]; root != 0 {
		return f.match(root-1, path, 0, 0, vals)
	}
	return nil
}

// fallback returns the route for path where the routes of route method
// number i (-1 for a custom method) have none: for HEAD, GET's; then
// Mount's.
func (f *flatTrees) fallback(i int, path string, vals []span) *route {
	if i == 1 && f.methods&1 != 0 {
		if rt := f.methodRoute(0, path, vals); rt != nil {
			return rt
		}
	}
	if i != anyMethodID && f.methods&(1<<anyMethodID) != 0 {
		return f.methodRoute(anyMethodID, path, vals)
	}
	return nil
}

// mayHaveStatic reports whether the index may hold a route of method for
// path: false for most paths of parameter routes, without hashing them.
// Inlined into dispatch and methodRoute, which call findStatic only when
// it is true.
func (f *flatTrees) mayHaveStatic(method uint8, path string) bool {
	if path == "" || len(f.static.short) == 0 {
		return false // patterns are never empty; the router has no static route
	}
	b := filterBit(method, path)
	return f.static.filter[b>>6]&(1<<(b&63)) != 0
}

// findStatic returns the static route of method (a route method number)
// whose pattern is path, or nil, with what buildStatic enters routes by:
// the hash from which the probe starts and, for a path of fewer than 8
// bytes, its key. path must not be empty, and the router must have a
// static route.
//
// It hashes and probes in one function without calls. A path of fewer
// than 8 bytes is, with method, one exact word: its bytes in the low 56
// bits (two overlapping 4-byte loads, little-endian; of a path of up to 3
// bytes, the first, middle and last byte, which are all of them), its
// length and method above; no key is 0. The table of short patterns holds those words, and
// a slot that holds the path's is the answer, with no comparison of text.
// A longer path is hashed eight bytes at a time (a multiply-fold round as
// in wyhash, once a word and once at the end), and a slot whose tag
// matches is confirmed by comparing the route's method and pattern.
//
// unsafe: kept by BenchmarkStaticAll and bench Micro/Static (the path's
// words read without bounds checks; docs/design/2026-11-27-router-static.md).
func (f *flatTrees) findStatic(method uint8, path string) (rt *route, h, key uint64) {
	ix := &f.static
	n := uint(len(path))
	p := unsafe.Pointer(unsafe.StringData(path))
	if n < 8 {
		if n >= 4 {
			key = uint64(load32(p)) | uint64(load32(unsafe.Add(p, n-4)))<<(8*(n-4)&31)
		} else {
			key = uint64(*(*byte)(p)) | uint64(*(*byte)(unsafe.Add(p, n>>1)))<<8 | uint64(*(*byte)(unsafe.Add(p, n-1)))<<16
		}
		key |= uint64(n)<<56 | uint64(method)<<59
		h = mix(key ^ ix.seed)
		for i := h; ; i++ {
			s := &ix.short[i&ix.shortMask]
			if s.key == key {
				return s.route, h, key
			}
			if s.key == 0 {
				return nil, h, key
			}
		}
	}
	h = ix.seed ^ uint64(n)<<8 ^ uint64(method)
	for i := uint(0); i < n-8; i += 8 {
		h = mix(h ^ load64(unsafe.Add(p, i)))
	}
	h = mix(h ^ load64(unsafe.Add(p, n-8))) // overlaps the last full word
	for i := h; ; i++ {
		s := ix.slots[i&ix.mask]
		if s == 0 {
			return nil, h, 0
		}
		if uint32(s>>32) != uint32(h>>32) {
			continue
		}
		if rt := &f.routes[uint32(s)-1]; len(rt.pattern) == int(n) && rt.method == method &&
			equalLong(p, unsafe.Pointer(unsafe.StringData(rt.pattern)), int(n)) {
			return rt, h, 0
		}
	}
}
