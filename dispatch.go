package vane

import (
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"unsafe"
)

// stackParams is how many parameter values a lookup keeps on the stack; a
// router with routes of more parameters matches into a pooled context.
const stackParams = 8

// dispatch routes req and serves it (everything ServeHTTP does but the
// router-wide middleware).
func (m *mux) dispatch(w http.ResponseWriter, req *http.Request) {
	p := req.URL.Path
	if req.URL.RawPath != "" {
		m.dispatchEscaped(w, req)
		return
	}
	f := m.flat.Load()
	if f == nil {
		f = m.compiled()
	}
	if m.maxParams > stackParams {
		m.dispatchPooled(w, req, f, p)
		return
	}
	var buf [stackParams]span
	rt := f.lookup(req.Method, p, buf[:])
	switch {
	case rt == nil:
		m.unmatched(w, req, p, nil)
	case rt.nparams == 0:
		req.Pattern = rt.pattern
		rt.handler.ServeHTTP(w, req)
	case m.redirectClean && (rt.catchAll || dotted(p, buf[:rt.nparams])) && !cleanValues(rt, p, buf[:]):
		// Patterns have no empty, "." or ".." segments, so only what
		// parameters matched can make a matched path unclean.
		m.unmatched(w, req, p, rt)
	default:
		m.serve(w, req, rt, p, buf[:], nil, false)
	}
}

// dispatchPooled is dispatch for routers with routes of more than
// stackParams parameters: it matches straight into a pooled context.
func (m *mux) dispatchPooled(w http.ResponseWriter, req *http.Request, f *flatTrees, p string) {
	c := m.pool.Get().(*routeContext)
	c.ensure(m.maxParams)
	rt := f.lookup(req.Method, p, c.spans)
	if rt == nil || rt.nparams == 0 || m.redirectClean && !cleanValues(rt, p, c.spans) {
		m.pool.Put(c)
		if rt == nil || rt.nparams != 0 {
			m.unmatched(w, req, p, rt)
			return
		}
		req.Pattern = rt.pattern
		rt.handler.ServeHTTP(w, req)
		return
	}
	m.serve(w, req, rt, p, c.spans, c, false)
}

// unmatched answers a request that matched no route (rt nil), or a route
// through parameter values that need cleaning: a clean-path redirect where
// one is due, else miss.
func (m *mux) unmatched(w http.ResponseWriter, req *http.Request, p string, rt *route) {
	if m.redirectClean && (rt != nil || !isClean(p)) && req.Method != http.MethodConnect {
		m.redirectCleaned(w, req)
		return
	}
	m.miss(w, req, p)
}

// dotted reports whether a value at vals in p begins with a dot, the only
// way a value of a {name} parameter can be an unclean segment. Inlined; it
// needs the values to be non-empty, so not a catch-all's.
func dotted(p string, vals []span) bool {
	for _, s := range vals {
		if p[s.start] == '.' {
			return true
		}
	}
	return false
}

// cleanValues reports whether the parameter values rt matched in p, at
// vals, are free of "." and ".." segments and, for a catch-all, empty
// segments. Values rarely begin with a dot: only those are looked at
// closely.
func cleanValues(rt *route, p string, vals []span) bool {
	dot := false
	for _, s := range vals[:rt.nparams] {
		dot = dot || s.start < s.end && p[s.start] == '.'
	}
	if dot {
		for _, s := range vals[:rt.nparams] {
			if v := p[s.start:s.end]; v == "." || v == ".." {
				return false
			}
		}
	}
	if rt.catchAll {
		s := vals[rt.nparams-1]
		return cleanSegments(p[s.start:s.end])
	}
	return true
}

// dispatchEscaped routes a request whose path was sent with escapes that
// matter (URL.RawPath is set, e.g. for %2F). It routes on the escaped path
// with every escape but %2F and %25 decoded, so an escaped slash stays
// inside its segment, and unescapes each parameter value once.
func (m *mux) dispatchEscaped(w http.ResponseWriter, req *http.Request) {
	if m.redirectClean && !isClean(req.URL.Path) && req.Method != http.MethodConnect {
		m.redirectCleaned(w, req)
		return
	}
	// RawPath is only a hint: EscapedPath ignores it unless it is a valid
	// encoding of Path.
	p := routingPath(req.URL.EscapedPath())
	vals := make([]span, m.maxParams)
	rt := m.compiled().lookup(req.Method, p, vals)
	if rt == nil {
		m.miss(w, req, p)
		return
	}
	m.serve(w, req, rt, p, vals, nil, true)
}

// serve runs the route's handler with its parameters, at vals in the path
// p, unescaped first if escaped, reachable from req through c (taken from
// the pool if nil) as req's context. It puts c back in the pool afterwards
// unless the handler retained it.
func (m *mux) serve(w http.ResponseWriter, req *http.Request, rt *route, p string, vals []span, c *routeContext, escaped bool) {
	n := int(rt.nparams)
	if n == 0 {
		if c != nil {
			m.pool.Put(c)
		}
		req.Pattern = rt.pattern
		rt.handler.ServeHTTP(w, req)
		return
	}
	if c == nil {
		c = m.pool.Get().(*routeContext)
		if len(c.values) < n {
			c.ensure(m.maxParams)
		}
	}
	for i, s := range vals[:n] {
		c.values[i] = p[s.start:s.end]
	}
	if escaped {
		unescapeValues(c.values[:n])
	}
	req.Pattern = rt.pattern
	c.route, c.names = rt, *rt.names
	if m.stdValues {
		for i, name := range *rt.names {
			req.SetPathValue(name, c.values[i])
		}
	}
	c.Context = req.Context()
	if ctxSwappable {
		f := ctxField(req)
		orig := *f
		*f = c
		rt.handler.ServeHTTP(w, req)
		if c.retained {
			return // req keeps c, which is never reused
		}
		*f = orig
	} else {
		rt.handler.ServeHTTP(w, req.WithContext(c))
		if c.retained {
			return
		}
	}
	// The values stay until the next use overwrites them: with no names,
	// nothing reads them.
	c.route, c.names = &releasedRoute, nil
	c.Context = releasedContext{}
	m.pool.Put(c)
}

// unescapeValues unescapes every value that has an escape and is a valid
// escaped path segment.
func unescapeValues(values []string) {
	for i, v := range values {
		if strings.IndexByte(v, '%') >= 0 {
			if u, err := url.PathUnescape(v); err == nil {
				values[i] = u
			}
		}
	}
}

// releasedRoute is the route of a routeContext back in the pool.
var releasedRoute = route{pattern: "(released)"}

// miss answers a request that matched no route: OPTIONS, a trailing-slash
// redirect, 405 or 404, in that order. p is the path as routed.
func (m *mux) miss(w http.ResponseWriter, req *http.Request, p string) {
	if req.Method == http.MethodOptions && m.autoOptions {
		if allow := m.allowed(p); allow != "" {
			w.Header().Set("Allow", allow)
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	if m.redirectSlash && len(p) > 1 && p[0] == '/' && m.matchesWithSlashToggled(req.Method, p) {
		m.redirect(w, req, toggleSlash(req.URL.EscapedPath()))
		return
	}
	if allow := m.allowed(p); allow != "" {
		w.Header().Set("Allow", allow)
		if m.notAllow != nil {
			m.notAllow.ServeHTTP(w, req)
			return
		}
		writeProblem(w, http.StatusMethodNotAllowed, problemMethodNotAllowed)
		return
	}
	if m.notFound != nil {
		m.notFound.ServeHTTP(w, req)
		return
	}
	writeProblem(w, http.StatusNotFound, problemNotFound)
}

// matchesWithSlashToggled reports whether p with its trailing slash removed,
// or one added, matches a route of method. It does not allocate.
func (m *mux) matchesWithSlashToggled(method, p string) bool {
	c := m.pool.Get().(*routeContext)
	defer m.pool.Put(c)
	c.ensure(m.maxParams)
	alt := p[:len(p)-1]
	if p[len(p)-1] != '/' {
		c.scratch = append(append(c.scratch[:0], p...), '/')
		alt = unsafe.String(&c.scratch[0], len(c.scratch))
	}
	return m.compiled().lookup(method, alt, c.spans) != nil
}

func toggleSlash(p string) string {
	if strings.HasSuffix(p, "/") {
		return p[:len(p)-1]
	}
	return p + "/"
}

// allowed returns the Allow header for path p: the methods with a route
// matching it (HEAD where GET has one, and OPTIONS), or "" if none.
func (m *mux) allowed(p string) string {
	var found [len(methodNames)]bool
	var custom []string
	var buf [stackParams]span
	vals := buf[:]
	if m.maxParams > len(buf) {
		vals = make([]span, m.maxParams)
	}
	some := false
	f := m.compiled()
	if p == "*" { // OPTIONS *: every method the router has
		for i, root := range f.roots {
			found[i] = root != 0
			some = some || root != 0
		}
		for name := range f.custom {
			custom = append(custom, name)
		}
	} else {
		for i, root := range f.roots {
			if root != 0 && f.match(root-1, p, 0, 0, vals) != nil {
				found[i], some = true, true
			}
		}
		for name, root := range f.custom {
			if f.match(root-1, p, 0, 0, vals) != nil {
				custom = append(custom, name)
			}
		}
	}
	if !some && len(custom) == 0 {
		return ""
	}
	found[1] = found[1] || found[0] // HEAD is served by GET
	found[7] = found[7] || m.autoOptions
	var b strings.Builder
	for i, ok := range found {
		if ok {
			if b.Len() > 0 {
				b.WriteString(", ")
			}
			b.WriteString(methodNames[i])
		}
	}
	slices.Sort(custom)
	for _, name := range custom {
		b.WriteString(", ")
		b.WriteString(name)
	}
	return b.String()
}

// redirect sends the client to target (an escaped path), keeping the query:
// 301 for GET and HEAD, 308 (which keeps the method and body) otherwise.
func (m *mux) redirect(w http.ResponseWriter, req *http.Request, target string) {
	if q := req.URL.RawQuery; q != "" {
		target += "?" + q
	}
	code := http.StatusPermanentRedirect
	if req.Method == http.MethodGet || req.Method == http.MethodHead {
		code = http.StatusMovedPermanently
	}
	w.Header().Set("Location", target)
	w.WriteHeader(code)
}

// redirectCleaned redirects to the cleaned form of req's path.
func (m *mux) redirectCleaned(w http.ResponseWriter, req *http.Request) {
	m.redirect(w, req, cleanPath(req.URL.EscapedPath()))
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
	for i := 0; ; i += 7 {
		if i+8 > n {
			i = n - 8 // the last word, overlapping the one before
		}
		x := load64(unsafe.Add(p, i))
		sl := bytesEqual(x, '/')
		if sl&((sl|bytesEqual(x, '.'))>>8) != 0 {
			return cleanSegmentsSlow(s)
		}
		if i+8 == n {
			return true
		}
	}
}

// bytesEqual returns x with the high bit of each byte set where that byte
// of x is c, and every other bit clear (exactly: no false positives).
func bytesEqual(x uint64, c byte) uint64 {
	t := x ^ lowBits*uint64(c)
	return ^((t&lowSevenBits + lowSevenBits) | t) & highBits
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

// The router's own error responses, written without allocating. Typed
// operations write richer problems through package problem.
var (
	problemNotFound         = []byte(`{"type":"about:blank","title":"Not Found","status":404,"detail":"No route matches the request path."}`)
	problemMethodNotAllowed = []byte(`{"type":"about:blank","title":"Method Not Allowed","status":405,"detail":"The request path has no route for this method; the Allow header lists the methods it has."}`)
)

var problemContentType = []string{"application/problem+json"}

func writeProblem(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = problemContentType
	h["X-Content-Type-Options"] = nosniff
	w.WriteHeader(status)
	w.Write(body)
}

var nosniff = []string{"nosniff"}
