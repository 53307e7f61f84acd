package router

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// The routing tree: one radix tree per HTTP method (see docs/design/router-tree.md).
//
// A node matches a run of static bytes (its prefix). Below it hang
//
//   - static children, each starting with a different byte (indices[i] is
//     the first byte of children[i]), so at most one static child can match;
//   - at most one parameter child, which consumes one non-empty segment
//     (up to the next '/'), and whose own children are static nodes
//     starting with '/';
//   - at most one catch-all child, which consumes the rest of the path,
//     possibly empty, and always carries a route.
//
// Parameter and catch-all children hang only below a node whose prefix ends
// in '/', because a parameter is always a whole segment. Splitting a node
// keeps that invariant: the parameter and catch-all children move to the
// lower half, whose prefix keeps the trailing '/'.
//
// Matching tries the static child first, then the parameter child, then the
// catch-all child, and backtracks out of a branch that fails deeper down.
// That depth-first order returns, among all routes matching a path, the one
// whose segments are most specific from left to right: static beats
// parameter beats catch-all at the first segment where two routes differ.

type nodeKind uint8

const (
	staticNode nodeKind = iota
	paramNode
	catchAllNode
)

// maxPatternLen bounds a pattern so that a compiled prefix length fits 16 bits.
const maxPatternLen = 1<<16 - 1

// maxNameLen bounds a parameter's name, whose length a pattern's header
// keeps in a byte (arena.go).
const maxNameLen = 255

type node struct {
	prefix   string // static bytes matched by this node; "" for parameter, catch-all and root nodes
	indices  string // first byte of each static child, in the order of children
	children []*node
	param    *node         // child matching one whole non-empty segment
	catchAll *node         // child matching the rest of the path
	route    *registration // the route ending here, if any
	size     int           // nodes of the subtree, n included: set by count, read by compile
}

// route is a route as serving sees it (compiled into flatTrees.routes).
type route struct {
	handler  http.HandlerFunc // middleware chain composed at registration, called as a func (one call, where an http.Handler's method would make two)
	pattern  string           // the full pattern, group prefix included; once compiled, in the pattern arena (arena.go)
	nparams  uint16           // number of parameters
	method   uint8            // route method number (tree.go, methodIndex)
	catchAll bool             // the last parameter is a catch-all

	// slashProbe: a catch-all route in a router that has other routes
	// ending in '/' or a catch-all, so that a path it matches with a
	// non-empty catch-all value may be the root of a more specific
	// subtree without its trailing slash (dispatch.go, subtreeRedirect).
	slashProbe bool
}

// registration is a route as registered, kept until the trees are compiled.
type registration struct {
	route
	inner http.Handler // the handler as registered, for Routes, if not handler (wrapped by middleware, or not an http.HandlerFunc)
	mws   []layer      // the group's middleware, for Layers
}

// part is one piece of a parsed pattern: a run of static text (slashes
// included), a parameter or a catch-all.
type part struct {
	kind nodeKind
	text string // static text, or the parameter's name
}

// parsePattern splits pattern into parts and checks that it is well formed.
func parsePattern(pattern string) ([]part, []string, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("vane: pattern %q: %s", pattern, fmt.Sprintf(format, args...))
	}
	if pattern == "" || pattern[0] != '/' {
		return nil, nil, bad("must begin with '/'")
	}
	if len(pattern) > maxPatternLen {
		return nil, nil, bad("longer than %d bytes", maxPatternLen)
	}
	if !utf8.ValidString(pattern) {
		return nil, nil, bad("not valid UTF-8")
	}
	var parts []part
	var names []string
	static := 0 // start of the current static run
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch c {
		case '}':
			return nil, nil, bad("'}' at byte %d has no matching '{'", i)
		case '%':
			return nil, nil, bad("escape sequence at byte %d: write the unescaped text", i)
		case '{':
			if pattern[i-1] != '/' {
				return nil, nil, bad("a parameter must be a whole segment (byte %d)", i)
			}
			end := strings.IndexByte(pattern[i:], '}')
			if end < 0 {
				return nil, nil, bad("unclosed '{' at byte %d", i)
			}
			end += i
			name := pattern[i+1 : end]
			kind := paramNode
			if n, ok := strings.CutSuffix(name, "..."); ok {
				name, kind = n, catchAllNode
			}
			if name == "$" {
				return nil, nil, bad("{$} is not supported: patterns always match the whole path")
			}
			if name == "" {
				return nil, nil, bad("empty parameter name at byte %d", i)
			}
			if len(name) > maxNameLen {
				return nil, nil, bad("parameter name at byte %d is longer than %d bytes", i, maxNameLen)
			}
			if !isIdentifier(name) {
				return nil, nil, bad("parameter name %q is not a Go identifier", name)
			}
			if end+1 < len(pattern) && pattern[end+1] != '/' {
				return nil, nil, bad("a parameter must be a whole segment (byte %d)", end+1)
			}
			if kind == catchAllNode && end+1 != len(pattern) {
				return nil, nil, bad("catch-all {%s...} must be the last segment", name)
			}
			for _, n := range names {
				if n == name {
					return nil, nil, bad("duplicate parameter name %q", name)
				}
			}
			parts = append(parts, part{staticNode, pattern[static:i]}, part{kind, name})
			names = append(names, name)
			i = end + 1
			static = i
		default:
			i++
		}
	}
	if static < len(pattern) {
		parts = append(parts, part{staticNode, pattern[static:]})
	}
	for _, p := range parts {
		if p.kind == staticNode && (strings.Contains(p.text, "//") || strings.Contains(p.text, "/./") ||
			strings.Contains(p.text, "/../") || strings.HasSuffix(p.text, "/.") || strings.HasSuffix(p.text, "/..")) {
			return nil, nil, bad("empty, \".\" and \"..\" segments never match: request paths are cleaned")
		}
	}
	return parts, names, nil
}

func isIdentifier(s string) bool {
	for i, c := range s {
		letter := c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || c > 0x7f
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// insert adds r, whose pattern parsed to parts, below the root n. It returns
// the route already registered with the same shape, if any, and then leaves
// the tree unchanged.
func (n *node) insert(parts []part, r *registration) *registration {
	for _, p := range parts {
		switch p.kind {
		case staticNode:
			n = n.insertStatic(p.text)
		case paramNode:
			if n.param == nil {
				n.param = &node{}
			}
			n = n.param
		case catchAllNode:
			if n.catchAll == nil {
				n.catchAll = &node{}
			}
			n = n.catchAll
		}
	}
	if n.route != nil {
		return n.route
	}
	n.route = r
	return nil
}

// insertStatic walks or creates the static nodes matching s below n, splits
// a node where s diverges from it, and returns the node where s ends.
func (n *node) insertStatic(s string) *node {
	for {
		// Here n.prefix is a prefix of what was walked; find the child for s.
		if s == "" {
			return n
		}
		i := strings.IndexByte(n.indices, s[0])
		if i < 0 {
			child := &node{prefix: s}
			n.indices += s[:1]
			n.children = append(n.children, child)
			return child
		}
		child := n.children[i]
		l := commonPrefix(s, child.prefix)
		if l < len(child.prefix) {
			// Split child into child.prefix[:l] and a lower node with the rest.
			lower := *child
			lower.prefix = child.prefix[l:]
			*child = node{
				prefix:   child.prefix[:l],
				indices:  lower.prefix[:1],
				children: []*node{&lower},
			}
		}
		n, s = child, s[l:]
	}
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// trees are a router's routes as registered, until they are compiled. The
// trees of the standard methods and Mount's hold their routes with
// parameters only: the static index answers the others before any walk
// (buildStatic), so a walk never needs them, and they would only add nodes
// for every walk to pass (the "/" after /people, where /people/{id} is a
// route too). Other methods' trees hold all their routes.
type trees struct {
	byMethod [len(methodNames)]*node // one tree per standard method, routes with parameters only
	custom   map[string]*node        // trees of other methods, every route
	any      *node                   // Mount's routes with parameters, for every method
	static   map[staticKey]struct{}  // the other routes of the standard methods and Mount's
	all      []*registration         // every route in registration order
}

// staticKey is a static route of a standard method or Mount: its route
// method number and pattern.
type staticKey struct {
	method  uint8
	pattern string
}

// methodNames are the methods with a tree of their own, in the order Allow
// headers list them.
var methodNames = [...]string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "OPTIONS", "TRACE"}

// Route method numbers: methodIndex for methods with a tree of their own,
// then Mount's, then the others in order of first use.
const (
	anyMethodID = len(methodNames)
	firstCustom = anyMethodID + 1
)

func methodIndex(m string) int {
	if m == "GET" { // most requests: one compare, not a search among nine
		return 0
	}
	switch m {
	case "HEAD":
		return 1
	case "POST":
		return 2
	case "PUT":
		return 3
	case "PATCH":
		return 4
	case "DELETE":
		return 5
	case "CONNECT":
		return 6
	case "OPTIONS":
		return 7
	case "TRACE":
		return 8
	}
	return -1
}

// anyMethod marks Mount's routes.
const anyMethod = "*"

// tree returns the tree of method, creating it if asked.
func (t *trees) tree(method string, create bool) *node {
	if method == anyMethod {
		if t.any == nil && create {
			t.any = &node{}
		}
		return t.any
	}
	if i := methodIndex(method); i >= 0 {
		if t.byMethod[i] == nil && create {
			t.byMethod[i] = &node{}
		}
		return t.byMethod[i]
	}
	n := t.custom[method]
	if n == nil && create {
		if t.custom == nil {
			t.custom = map[string]*node{}
		}
		n = &node{}
		t.custom[method] = n
	}
	return n
}
