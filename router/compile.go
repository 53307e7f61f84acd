package router

import (
	"net/http"
	"slices"
	"strings"
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
	mws    map[*route][]layer      // the group middleware of the routes that have some, for Layers
	// roots: the root node index+1 of each standard method's tree, then
	// of Mount's (at anyMethodID), 0 if none. These trees hold routes with
	// parameters only; static holds the others.
	roots   [anyMethodID + 1]uint32
	methods uint16 // bit i set if route method number i (at most anyMethodID) has a route
	custom  map[string]uint32
	static  staticIndex // the routes without parameters (buildStatic)

	patterns string // the pattern arena: every route's pattern, each after a header (arena.go)
	first    firstSegments

	counted int // nodes count visited while compiling: each node once (a count for tests)
}

// compiled returns the compiled trees, compiling them on first use (or
// taking those Prepare made); from then on registration panics and the
// pointer trees are gone. Inlined: every request but the first takes only
// the load.
func (m *mux) compiled() *flatTrees {
	if f := m.flat.Load(); f != nil {
		return f
	}
	return m.compileOnce()
}

// compileOnce compiles the trees, or takes those Prepare made, unless
// another request has.
func (m *mux) compileOnce() *flatTrees {
	m.mu.Lock()
	defer m.mu.Unlock()
	if f := m.flat.Load(); f != nil {
		return f
	}
	f := m.prepared
	if f == nil {
		f = compile(m)
	}
	m.reg, m.prepared = nil, nil
	m.flat.Store(f)
	return f
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
		if len(reg.mws) > 0 {
			if f.mws == nil {
				f.mws = map[*route][]layer{}
			}
			f.mws[&f.routes[i]] = reg.mws
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
		rt.pattern = text[offs[i] : offs[i]+len(patterns[i])]
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

// staticIndex is two open-addressing tables of static routes: one for
// patterns of fewer than 8 bytes, by exact key, the other for longer ones,
// by hash. Each has a power of two slots, at least one empty.
type staticIndex struct {
	// short holds the routes whose patterns have fewer than 8 bytes, by
	// their method and pattern as one word (findStatic); a key of 0 is an empty slot.
	short     []shortSlot
	shortMask uint64
	// slots hold the upper 32 bits of a longer route's hash (its tag) above
	// its index+1 in flatTrees.routes; 0 is an empty slot.
	slots []uint64
	mask  uint64
	seed  uint64
	// filter has bit filterBit(method, path) set for every route: most
	// paths with parameters miss it and skip the hash.
	filter [4]uint64
}

// shortSlot is a slot of the table of short static patterns.
type shortSlot struct {
	key   uint64 // the route's method and pattern as one word (findStatic)
	route *route
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
	var short, long []uint32 // route indices
	for i := range f.routes {
		if rt := &f.routes[i]; rt.nparams == 0 && int(rt.method) <= anyMethodID {
			if len(rt.pattern) < 8 {
				short = append(short, uint32(i))
			} else {
				long = append(long, uint32(i))
			}
		}
	}
	if len(short)+len(long) == 0 {
		return
	}
	best, bestCost := staticIndex{}, -1
	for s := range maxStaticSeeds {
		f.static = staticIndex{
			short: make([]shortSlot, tableSize(len(short))), slots: make([]uint64, tableSize(len(long))),
			seed: staticSeed(s),
		}
		ix := &f.static
		ix.shortMask, ix.mask = uint64(len(ix.short)-1), uint64(len(ix.slots)-1)
		cost := 0
		for _, k := range short {
			rt := &f.routes[k]
			_, h, key := f.findStatic(rt.method, rt.pattern)
			i := h & ix.shortMask
			for ix.short[i].key != 0 {
				i = (i + 1) & ix.shortMask
				cost++
			}
			ix.short[i] = shortSlot{key, rt}
		}
		for _, k := range long {
			rt := &f.routes[k]
			_, h, _ := f.findStatic(rt.method, rt.pattern)
			i := h & ix.mask
			for ix.slots[i] != 0 {
				i = (i + 1) & ix.mask
				cost++
			}
			ix.slots[i] = h&^(1<<32-1) | uint64(k+1)
		}
		if bestCost < 0 || cost < bestCost {
			best, bestCost = *ix, cost
		}
		if cost == 0 {
			break
		}
	}
	for _, k := range slices.Concat(short, long) {
		rt := &f.routes[k]
		b := filterBit(rt.method, rt.pattern)
		best.filter[b>>6] |= 1 << (b & 63)
	}
	f.static = best
}

// tableSize is the number of slots of a table of n keys: a power of two,
// at most two thirds full, at least one empty.
func tableSize(n int) int {
	size := 1
	for 2*size < 3*n {
		size *= 2
	}
	return size
}

// staticSeed returns the s-th seed buildStatic tries.
func staticSeed(s int) uint64 { return 0x9e3779b97f4a7c15 * uint64(2*s+1) }
