package router

import (
	"math/bits"
	"net/http"
	"slices"
	"strings"
	"unsafe"
)

// The compiled tree. Registration builds pointer trees (tree.go), easy to
// insert into; Prepare, or else the first request, compiles every tree of
// the router into one flat array, which serving reads and registration can
// no longer change. compile's work is linear in the routes' nodes (plus
// sorting each node's children).
//
// A flatNode is 16 bytes, against 80 for a pointer node: prefixes and the
// children's first bytes live in one string (flatTrees.text), a node's
// children sit next to each other in the node array (static children, then
// the parameter child, then the catch-all child), and routes live in one
// slice. That keeps the router within httprouter's memory on the real-API
// tables and a lookup within a few cache lines.

type flatNode struct {
	text  uint32 // offset in flatTrees.text of the prefix, followed by the static children's first bytes
	first uint32 // index of the first child
	route uint32 // index+1 of the node's route in flatTrees.routes (0: none), and the flags below
	plen  uint16 // length of the prefix
	n     uint16 // number of static children
}

const (
	hasParam    = 1 << 31 // a parameter child follows the static children
	hasCatchAll = 1 << 30 // a catch-all child follows them and the parameter child
	// slashParam marks a parameter node whose only way on is '/' and
	// another value: it has no route, and its one child, "/", has no
	// route and nothing below it but a parameter node. match passes both
	// at once, and first is that grandchild (see markSlashParams).
	slashParam = 1 << 29
	routeMask  = slashParam - 1
)

// flatTrees holds every compiled tree of a router.
type flatTrees struct {
	nodes  []flatNode
	text   string
	routes []route
	inner  map[*route]http.Handler // registered handlers that middleware wraps, for Routes
	// roots: the root node index+1 of each standard method's tree, then
	// of Mount's (at anyMethodID), 0 if none. These trees hold routes with
	// parameters only; static holds the others.
	roots   [anyMethodID + 1]uint32
	methods uint16 // bit i set if route method number i (at most anyMethodID) has a route
	custom  map[string]uint32
	static  staticIndex // the routes without parameters (static.go)

	patterns string // the pattern arena: every route's pattern, each after a header (params.go)
	first    firstSegments

	counted int // nodes count visited while compiling: each node once (a count for tests)
}

// compile flattens the pointer trees of m. Routes keep their registration
// order.
func compile(m *mux) *flatTrees {
	regs := m.reg
	f := &flatTrees{routes: make([]route, len(regs.all))}
	index := make(map[*registration]uint32, len(regs.all))
	patterns := make([]string, len(regs.all))
	for i, reg := range regs.all {
		f.routes[i] = reg.route
		patterns[i] = reg.pattern
		if reg.inner != nil {
			if f.inner == nil {
				f.inner = map[*route]http.Handler{}
			}
			f.inner[&f.routes[i]] = reg.inner
		}
		index[reg] = uint32(i + 1)
		if int(reg.method) <= anyMethodID {
			f.methods |= 1 << reg.method
		}
	}
	count := regs.any.count(&f.counted) // and every node's size, read to order children below
	for _, t := range regs.byMethod {
		count += t.count(&f.counted)
	}
	for _, t := range regs.custom {
		count += t.count(&f.counted)
	}
	f.nodes = make([]flatNode, 0, count)
	var text strings.Builder

	// fill writes node n, already given slot i, and its subtree.
	var fill func(i int, n *node)
	fill = func(i int, n *node) {
		fn := flatNode{text: uint32(text.Len()), plen: uint16(len(n.prefix)), n: uint16(len(n.children))}
		text.WriteString(n.prefix)
		if n.route != nil {
			fn.route = index[n.route]
		}
		// Static children in order of how many routes lie below them, so
		// that the scan of the first bytes meets busy branches first.
		kids := append([]*node(nil), n.children...)
		slices.SortStableFunc(kids, func(a, b *node) int { return b.size - a.size })
		indices := make([]byte, len(kids))
		for j, c := range kids {
			indices[j] = c.prefix[0]
		}
		if n.param != nil {
			fn.route |= hasParam
			kids = append(kids, n.param)
		}
		if n.catchAll != nil {
			fn.route |= hasCatchAll
			kids = append(kids, n.catchAll)
		}
		text.Write(indices)
		fn.first = uint32(len(f.nodes))
		f.nodes = f.nodes[:len(f.nodes)+len(kids)]
		for j, c := range kids {
			fill(int(fn.first)+j, c)
		}
		f.nodes[i] = fn
	}
	root := func(t *node) uint32 {
		if t == nil {
			return 0
		}
		i := len(f.nodes)
		f.nodes = f.nodes[:i+1]
		fill(i, t)
		// A root with an empty prefix, one static child and nothing else
		// (the usual root, above "/") is skipped: match starts at the
		// child, comparing its prefix, one node fewer per lookup.
		if n := f.nodes[i]; n.plen == 0 && n.n == 1 && n.route == 0 {
			return n.first + 1
		}
		return uint32(i + 1)
	}
	for i, t := range regs.byMethod {
		f.roots[i] = root(t)
	}
	if len(regs.custom) > 0 {
		f.custom = make(map[string]uint32, len(regs.custom))
		for name, t := range regs.custom {
			f.custom[name] = root(t)
		}
	}
	f.roots[anyMethodID] = root(regs.any)
	text.WriteString("\x00\x00\x00\x00\x00\x00\x00\x00") // padding: match compares prefixes with 8-byte loads
	f.text = text.String()
	f.markSlashParams()
	f.check()
	f.compilePatterns(patterns)
	f.buildStatic()
	f.first = newFirstSegments(patterns)
	return f
}

// compilePatterns puts the routes' patterns (in route order) into the
// pattern arena, where Param finds their parameters (params.go), and marks
// the catch-all routes that need the subtree redirect check.
func (f *flatTrees) compilePatterns(patterns []string) {
	open := 0 // routes ending in '/' or a catch-all
	for i, p := range patterns {
		if p[len(p)-1] == '/' || f.routes[i].catchAll {
			open++
		}
	}
	text, offs := buildArena(patterns)
	for i := range f.routes {
		rt := &f.routes[i]
		rt.pat, rt.plen = uint32(offs[i]), uint16(len(patterns[i]))
		rt.slashProbe = rt.catchAll && open > 1
	}
	f.patterns = text
	registerArena(text)
}

// markSlashParams flags every parameter node whose only way on is '/'
// and another value (slashParam), and points its first at that value's
// node: /{owner}/{repo} is then one step of match, not three. The "/"
// node between them stays in the array, unreachable. A flagged node is
// reached only from its parent's parameter branch, which passes it at
// once, so the walk never stands on one (it has no route and no
// alternative to backtrack to).
func (f *flatTrees) markSlashParams() {
	for x := range f.nodes {
		if f.nodes[x].route&hasParam == 0 {
			continue
		}
		p := &f.nodes[f.nodes[x].first+uint32(f.nodes[x].n)]
		if p.route != 0 || p.n != 1 {
			continue
		}
		s := &f.nodes[p.first]
		if s.plen == 1 && f.text[s.text] == '/' && s.n == 0 && s.route == hasParam {
			p.route, p.first = slashParam, s.first
		}
	}
}

// pattern returns rt's pattern, in the pattern arena.
func (f *flatTrees) pattern(rt *route) string {
	return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(f.patterns)), rt.pat)), int(rt.plen))
}

// count returns the number of nodes of the tree below n, n included,
// records each node's count in its size, and adds the nodes it visited to
// *visits.
func (n *node) count(visits *int) int {
	if n == nil {
		return 0
	}
	c := 1 + n.param.count(visits) + n.catchAll.count(visits)
	for _, ch := range n.children {
		c += ch.count(visits)
	}
	n.size = c
	*visits++
	return c
}

// match returns the most specific route for path[start:] in the tree whose
// root is node i (its prefix, then the rest below it), recording the
// parameter values in vals from vals[nv] on, as spans of path. vals must be
// as long as the most parameters any route of the tree has. Lookups call
// it with start and nv 0.
//
// It tries the static child first, then the parameter child, then the
// catch-all child, and backtracks out of a branch that fails deeper down
// (see docs/router-tree.md). It is a loop without calls: where a node has an
// alternative after the branch it takes, it pushes the node on a stack of
// backtracking points kept in its frame, and pops the stack when a branch
// fails. When the stack is full, the branch is searched by a match of its
// own (a recursion, once per maxBacktrack points), and the node's
// alternatives are tried after it.
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
				} else if kn.n != 0 && node(kn.first).plen == 1 {
					i, pos, nv, resume = kn.first, kpos+1, knv, 0
					continue walk
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
)

// node returns node i without a bounds check: every index stored in the
// tree was checked by compile (see check).
func (f *flatTrees) node(i uint32) *flatNode {
	return (*flatNode)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(f.nodes)), uintptr(i)*unsafe.Sizeof(flatNode{})))
}

// check panics unless every index and offset in the tree is in range, the
// invariant node and match rely on.
func (f *flatTrees) check() {
	for _, n := range f.nodes {
		kids := uint32(n.n)
		if n.route&hasParam != 0 {
			kids++
		}
		if n.route&hasCatchAll != 0 {
			kids++
		}
		if int(n.text)+int(n.plen)+int(n.n) > len(f.text) || kids > 0 && int(n.first+kids) > len(f.nodes) ||
			int(n.route&routeMask) > len(f.routes) {
			panic("vane: internal error: compiled tree out of range")
		}
	}
}

// catchAllRoute returns the route of n's catch-all child.
func (f *flatTrees) catchAllRoute(n *flatNode) *route {
	k := n.first + uint32(n.n)
	if n.route&hasParam != 0 {
		k++
	}
	return &f.routes[f.node(k).route&routeMask-1]
}

// lookup returns the route for method and path, trying the method's routes,
// GET's for HEAD, then Mount's.
func (f *flatTrees) lookup(method, path string, vals []span) *route {
	i := methodIndex(method)
	if i >= 0 {
		if rt := f.methodRoute(i, path, vals); rt != nil {
			return rt
		}
	}
	return f.lookupAfter(i, method, path, vals)
}

// lookupAfter is lookup once the routes of method's own number i (-1 for
// a custom method) have not matched: a custom method's tree, GET's routes
// for HEAD, then Mount's.
func (f *flatTrees) lookupAfter(i int, method, path string, vals []span) *route {
	var rt *route
	if i < 0 {
		if root := f.custom[method]; root != 0 {
			rt = f.match(root-1, path, 0, 0, vals)
		}
	} else if i == 1 && f.methods&1 != 0 {
		rt = f.methodRoute(0, path, vals)
	}
	if rt == nil && f.methods&(1<<anyMethodID) != 0 {
		rt = f.methodRoute(anyMethodID, path, vals)
	}
	return rt
}

// methodRoute returns the route of route method number i (a standard
// method or Mount's) for path: a static route equal to path if there is one
// (static.go), the most specific such route there is, else what the walk of
// i's tree finds.
func (f *flatTrees) methodRoute(i int, path string, vals []span) *route {
	if f.mayHaveStatic(uint8(i), path) {
		if rt := f.findStatic(uint8(i), path); rt != nil {
			return rt
		}
	}
	if root := f.roots[i]; root != 0 {
		return f.match(root-1, path, 0, 0, vals)
	}
	return nil
}
