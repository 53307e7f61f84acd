package vane

import (
	"net/http"
	"strings"
)

// The compiled tree. Registration builds pointer trees (tree.go), easy to
// insert into; the first request compiles every tree of the router into one
// flat array, which serving reads and registration can no longer change.
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
	routeMask   = hasCatchAll - 1
)

// flatTrees holds every compiled tree of a router.
type flatTrees struct {
	nodes  []flatNode
	text   string
	routes []route
	inner  map[*route]http.Handler  // registered handlers that middleware wraps, for Routes
	roots  [len(methodNames)]uint32 // root node index+1 per standard method, 0 if none
	custom map[string]uint32
	any    uint32
}

// compile flattens the pointer trees of m. Routes keep their registration
// order.
func compile(m *mux) *flatTrees {
	f := &flatTrees{routes: make([]route, len(m.all))}
	index := make(map[*registration]uint32, len(m.all))
	names := map[string]*[]string{} // identical name lists share memory
	for i, reg := range m.all {
		f.routes[i] = reg.route
		if reg.inner != nil {
			if f.inner == nil {
				f.inner = map[*route]http.Handler{}
			}
			f.inner[&f.routes[i]] = reg.inner
		}
		if reg.names != nil {
			key := strings.Join(*reg.names, "/")
			if shared, ok := names[key]; ok {
				f.routes[i].names = shared
			} else {
				names[key] = reg.names
			}
		}
		index[reg] = uint32(i + 1)
	}
	count := m.any.count()
	for _, t := range m.trees {
		count += t.count()
	}
	for _, t := range m.custom {
		count += t.count()
	}
	f.nodes = make([]flatNode, 0, count)
	var text strings.Builder

	// fill writes node n, already given slot i, and its subtree.
	var fill func(i int, n *node)
	fill = func(i int, n *node) {
		fn := flatNode{text: uint32(text.Len()), plen: uint16(len(n.prefix)), n: uint16(len(n.children))}
		text.WriteString(n.prefix)
		text.WriteString(n.indices)
		if n.route != nil {
			fn.route = index[n.route]
		}
		kids := append([]*node(nil), n.children...)
		if n.param != nil {
			fn.route |= hasParam
			kids = append(kids, n.param)
		}
		if n.catchAll != nil {
			fn.route |= hasCatchAll
			kids = append(kids, n.catchAll)
		}
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
		return uint32(i + 1)
	}
	for i, t := range m.trees {
		f.roots[i] = root(t)
	}
	if len(m.custom) > 0 {
		f.custom = make(map[string]uint32, len(m.custom))
		for name, t := range m.custom {
			f.custom[name] = root(t)
		}
	}
	f.any = root(m.any)
	f.text = text.String()
	return f
}

// count returns the number of nodes of the tree below n, n included.
func (n *node) count() int {
	if n == nil {
		return 0
	}
	c := 1 + n.param.count() + n.catchAll.count()
	for _, ch := range n.children {
		c += ch.count()
	}
	return c
}

// match returns the most specific route for path below node i, whose own
// prefix has already been consumed, writing parameter values to vals[nv:].
// vals must be as long as the most parameters any route of the tree has.
//
// It tries the static child first, then the parameter child, then the
// catch-all child, and backtracks out of a branch that fails deeper down
// (see docs/router-tree.md). Only a node with a parameter or catch-all child
// needs to remember where it was; every other step is a loop.
func (f *flatTrees) match(i uint32, path string, vals []string, nv int) *route {
	nodes, text := f.nodes, f.text
	for {
		n := &nodes[i]
		wild := n.route &^ routeMask
		if path == "" {
			if r := n.route & routeMask; r != 0 {
				return &f.routes[r-1]
			}
			if wild&hasCatchAll != 0 {
				vals[nv] = ""
				return f.catchAllRoute(n)
			}
			return nil
		}
		next := uint32(0)
		start := n.text + uint32(n.plen)
		idx := text[start : start+uint32(n.n)]
		c := path[0]
		for j := 0; j < len(idx); j++ {
			if idx[j] == c {
				k := n.first + uint32(j)
				ch := &nodes[k]
				if p := text[ch.text : ch.text+uint32(ch.plen)]; len(path) >= len(p) && path[:len(p)] == p {
					next = k + 1
				}
				break
			}
		}
		if wild == 0 {
			if next == 0 {
				return nil
			}
			i = next - 1
			path = path[nodes[i].plen:]
			continue
		}
		if next != 0 {
			if r := f.match(next-1, path[nodes[next-1].plen:], vals, nv); r != nil {
				return r
			}
		}
		if wild&hasParam != 0 {
			end := 0 // segments are short: a loop beats IndexByte's call
			for end < len(path) && path[end] != '/' {
				end++
			}
			if end > 0 {
				vals[nv] = path[:end]
				if r := f.match(n.first+uint32(n.n), path[end:], vals, nv+1); r != nil {
					return r
				}
			}
		}
		if wild&hasCatchAll != 0 {
			vals[nv] = path
			return f.catchAllRoute(n)
		}
		return nil
	}
}

// catchAllRoute returns the route of n's catch-all child.
func (f *flatTrees) catchAllRoute(n *flatNode) *route {
	k := n.first + uint32(n.n)
	if n.route&hasParam != 0 {
		k++
	}
	return &f.routes[f.nodes[k].route&routeMask-1]
}

// lookup returns the route for method and path, trying the method's tree,
// GET's for HEAD, then Mount's.
func (f *flatTrees) lookup(method, path string, vals []string) *route {
	var rt *route
	if i := methodIndex(method); i >= 0 {
		if root := f.roots[i]; root != 0 {
			rt = f.match(root-1, path, vals, 0)
		}
		if rt == nil && i == 1 && f.roots[0] != 0 {
			rt = f.match(f.roots[0]-1, path, vals, 0)
		}
	} else if root := f.custom[method]; root != 0 {
		rt = f.match(root-1, path, vals, 0)
	}
	if rt == nil && f.any != 0 {
		rt = f.match(f.any-1, path, vals, 0)
	}
	return rt
}
