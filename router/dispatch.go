package router

import (
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// stackParams is how many parameter values a lookup records on the stack;
// a router with routes of more parameters matches into pooled scratch space.
const stackParams = 8

// dispatch routes req and serves it (everything ServeHTTP does but the
// router-wide middleware).
func (m *mux) dispatch(w http.ResponseWriter, req *http.Request) {
	p := req.URL.Path
	if req.URL.RawPath != "" {
		m.dispatchEscaped(w, req)
		return
	}
	// Only a target that is not origin-form, or whose query holds a '#',
	// needs a closer look (checkTarget); a '#' in the path makes net/http
	// keep the path as sent in RawPath, so dispatchEscaped looks there.
	// Two tests on the way of a request without a query.
	if t := req.RequestURI; t != "" && t[0] != '/' {
		if m.refuseTarget(w, req) {
			return
		}
	} else if q := req.URL.RawQuery; q != "" && strings.IndexByte(q, '#') >= 0 {
		writeProblem(w, http.StatusBadRequest, problemFragment)
		return
	}
	f := m.flat.Load()
	if f == nil {
		f = m.compiled()
	}
	if m.maxParams > stackParams {
		m.dispatchScratch(w, req, f, p)
		return
	}
	var buf [stackParams]span
	// lookup, written out (methodRoute, then lookupAfter only where it has
	// something to try): one call fewer and one set of register spills a
	// request, about 6% of a Google+ or GitHub table pass.
	var rt *route
	i := methodIndex(req.Method)
	if i >= 0 {
		if f.mayHaveStatic(uint8(i), p) {
			rt = f.findStatic(uint8(i), p)
		}
		if rt == nil && f.roots[i] != 0 {
			rt = f.match(f.roots[i]-1, p, 0, 0, buf[:])
		}
	}
	if rt == nil && (i < 0 || i == 1 || f.methods&(1<<anyMethodID) != 0) { // a custom method, HEAD, or Mount has routes
		rt = f.lookupAfter(i, req.Method, p, buf[:])
	}
	switch {
	case rt == nil:
		m.unmatched(w, req, p, nil)
	case rt.nparams == 0:
		req.Pattern = f.pattern(rt)
		rt.handler(w, req)
	case m.redirectClean && (rt.catchAll || dotted(p, buf[:rt.nparams])) && !cleanValues(rt, p, buf[:]):
		// Patterns have no empty, "." or ".." segments, so only what
		// parameters matched can make a matched path unclean.
		m.unmatched(w, req, p, rt)
	case rt.slashProbe && m.subtreeRedirect(w, req, p, rt, buf[:]):
	default:
		// serve, written out: the call is most of what it would add.
		req.Pattern = f.pattern(rt)
		if m.stdValues {
			setPathValues(req, rt, p, buf[:], false)
		}
		rt.handler(w, req)
	}
}

// dispatchScratch is dispatch for routers with routes of more than
// stackParams parameters: it matches into pooled scratch space, which no
// handler sees.
func (m *mux) dispatchScratch(w http.ResponseWriter, req *http.Request, f *flatTrees, p string) {
	s := m.getScratch()
	defer scratchPool.Put(s)
	rt := f.lookup(req.Method, p, s.spans)
	switch {
	case rt == nil:
		m.unmatched(w, req, p, nil)
	case rt.nparams == 0:
		req.Pattern = f.pattern(rt)
		rt.handler(w, req)
	case m.redirectClean && !cleanValues(rt, p, s.spans):
		m.unmatched(w, req, p, rt)
	case rt.slashProbe && m.subtreeRedirect(w, req, p, rt, s.spans):
	default:
		m.serve(w, req, f, rt, p, s.spans, false)
	}
}

// scratch is matching state that no handler sees: parameter spans for
// routers with many parameters, and a buffer for paths to probe.
type scratch struct {
	spans []span
	buf   []byte
}

// scratchPool holds scratch space for every router.
var scratchPool sync.Pool

func (m *mux) getScratch() *scratch {
	s, _ := scratchPool.Get().(*scratch)
	if s == nil {
		s = &scratch{}
	}
	if len(s.spans) < m.maxParams {
		s.spans = make([]span, m.maxParams)
	}
	return s
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

// subtreeRedirect redirects, as ServeMux does, a request that rt matched
// through a non-empty catch-all value when the path with a trailing slash
// added would match a route exactly (one without a catch-all, or one whose
// catch-all matches nothing): the root of a more specific subtree. It
// reports whether it answered.
func (m *mux) subtreeRedirect(w http.ResponseWriter, req *http.Request, p string, rt *route, vals []span) bool {
	if !m.redirectSlash || p == "" || p[len(p)-1] == '/' || vals[rt.nparams-1].start == len(p) {
		return false
	}
	s := m.getScratch()
	defer scratchPool.Put(s)
	s.buf = append(append(s.buf[:0], p...), '/')
	alt := unsafe.String(&s.buf[0], len(s.buf))
	other := m.compiled().lookup(req.Method, alt, s.spans)
	if other == nil || other.catchAll && s.spans[other.nparams-1].start != len(alt) {
		return false
	}
	m.redirect(w, req, req.URL.EscapedPath()+"/")
	return true
}

// dotted reports whether a value at vals in p begins with a dot, the only
// way a value of a {name} parameter can be an unclean segment. Inlined; it
// needs the values to be non-empty, so not a catch-all's: then every
// start is inside p (match recorded it), and is read without a bounds
// check.
func dotted(p string, vals []span) bool {
	b := unsafe.Pointer(unsafe.StringData(p))
	for _, s := range vals {
		if *(*byte)(unsafe.Add(b, s.start)) == '.' {
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
// inside its segment; Param unescapes each value it is asked for.
func (m *mux) dispatchEscaped(w http.ResponseWriter, req *http.Request) {
	if m.refuseTarget(w, req) {
		return
	}
	// Dot segments count as they were sent, escaped or not; an escaped
	// slash (%2F) is part of its segment, not a separator to clean.
	if m.redirectClean && !isClean(unescapeDots(req.URL.EscapedPath())) && req.Method != http.MethodConnect {
		m.redirectCleaned(w, req)
		return
	}
	// RawPath is only a hint: EscapedPath ignores it unless it is a valid
	// encoding of Path.
	p := routingPath(req.URL.EscapedPath())
	s := m.getScratch()
	defer scratchPool.Put(s)
	f := m.compiled()
	rt := f.lookup(req.Method, p, s.spans)
	switch {
	case rt == nil:
		m.miss(w, req, p)
	case rt.slashProbe && m.subtreeRedirect(w, req, p, rt, s.spans):
	default:
		m.serve(w, req, f, rt, p, s.spans, true)
	}
}

// serve runs the route's handler. The handler gets req itself, with
// req.Pattern set to the route's pattern, from which Param reads the
// values; with StdPathValues, the values at vals in the path p (escaped if
// escaped) are also stored with req.SetPathValue. (dispatch does the
// same for the common case itself.)
func (m *mux) serve(w http.ResponseWriter, req *http.Request, f *flatTrees, rt *route, p string, vals []span, escaped bool) {
	req.Pattern = f.pattern(rt)
	if m.stdValues {
		setPathValues(req, rt, p, vals, escaped)
	}
	rt.handler(w, req)
}

// setPathValues stores the values of the route that matched req with
// req.SetPathValue (StdPathValues).
func setPathValues(req *http.Request, rt *route, p string, vals []span, escaped bool) {
	h, _ := headerOf(req.Pattern)
	for i := range int(rt.nparams) {
		name := h.name(i, req.Pattern)
		v := p[vals[i].start:vals[i].end]
		if escaped && strings.IndexByte(v, '%') >= 0 {
			if u, err := url.PathUnescape(v); err == nil {
				v = u
			}
		}
		req.SetPathValue(name, v)
	}
}

// miss answers a request that matched no route: OPTIONS, a trailing-slash
// redirect, 405 or 404, in that order. p is the path as routed.
func (m *mux) miss(w http.ResponseWriter, req *http.Request, p string) {
	if !m.compiled().first.mayMatch(p) {
		m.notFoundAnswer(w, req)
		return
	}
	if req.Method == http.MethodOptions && m.autoOptions {
		if allow := m.allowed(p); allow != "" {
			h := w.Header()
			h.Set("Allow", allow)
			h["X-Content-Type-Options"] = nosniff
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
	m.notFoundAnswer(w, req)
}

// notFoundAnswer answers 404: the NotFoundHandler, else a problem.
func (m *mux) notFoundAnswer(w http.ResponseWriter, req *http.Request) {
	if m.notFound != nil {
		m.notFound.ServeHTTP(w, req)
		return
	}
	writeProblem(w, http.StatusNotFound, problemNotFound)
}

// matchesWithSlashToggled reports whether p with its trailing slash removed,
// or one added, matches a route of method. It does not allocate.
func (m *mux) matchesWithSlashToggled(method, p string) bool {
	s := m.getScratch()
	defer scratchPool.Put(s)
	alt := p[:len(p)-1]
	if p[len(p)-1] != '/' {
		s.buf = append(append(s.buf[:0], p...), '/')
		alt = unsafe.String(&s.buf[0], len(s.buf))
	}
	return m.compiled().lookup(method, alt, s.spans) != nil
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
		for i := range found {
			found[i] = f.methods&(1<<i) != 0
			some = some || found[i]
		}
		for name := range f.custom {
			custom = append(custom, name)
		}
	} else {
		for i := range found {
			if f.methods&(1<<i) != 0 && f.methodRoute(i, p, vals) != nil {
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
	h := w.Header()
	h.Set("Location", target)
	h["X-Content-Type-Options"] = nosniff
	w.WriteHeader(code)
}

// redirectCleaned redirects to the cleaned form of req's path. The dots
// of dot segments sent escaped (%2E, RFC 3986 section 2.3: the same as
// ".") are unescaped first, so that /a/%2e%2e/b is cleaned to /b rather
// than redirected to itself.
func (m *mux) redirectCleaned(w http.ResponseWriter, req *http.Request) {
	m.redirect(w, req, cleanPath(unescapeDots(req.URL.EscapedPath())))
}

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

// refuseTarget answers 400 to a request whose target (req.RequestURI, as
// the client sent it) RFC 9112 section 3.2 does not allow, and reports
// whether it did (checkTarget).
func (m *mux) refuseTarget(w http.ResponseWriter, req *http.Request) bool {
	body := checkTarget(req.Method, req.RequestURI)
	if body == nil {
		return false
	}
	writeProblem(w, http.StatusBadRequest, body)
	return true
}

// checkTarget returns the problem body for a request target that RFC 9112
// section 3.2 does not allow for method, or nil for one it does:
//
//   - the asterisk form "*" is for OPTIONS only (section 3.2.4);
//   - a target never holds a fragment: '#' is in none of its forms;
//   - the absolute form is an http or https URI with a host and without
//     userinfo (section 3.2.2, RFC 9110 sections 4.2.1 and 4.2.4); a
//     target with another scheme, or none, is not one this server serves;
//   - CONNECT's target (the authority form, section 3.2.3) is left as it
//     is, as is an empty target (a request made in process, not read
//     from a connection).
//
// The origin form ("/path?query") needs only the fragment check.
func checkTarget(method, t string) []byte {
	switch {
	case t == "" || method == http.MethodConnect:
		return nil
	case t == "*":
		if method != http.MethodOptions {
			return problemAsteriskForm
		}
		return nil
	case strings.IndexByte(t, '#') >= 0:
		return problemFragment
	case t[0] == '/':
		return nil
	}
	rest, ok := cutScheme(t)
	if !ok {
		return problemScheme
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		authority = rest[:i]
	}
	if authority == "" || strings.IndexByte(authority, '@') >= 0 {
		return problemAuthority
	}
	return nil
}

// cutScheme returns what follows "http://" or "https://" (in any case) at
// the start of t.
func cutScheme(t string) (rest string, ok bool) {
	for _, prefix := range [...]string{"http://", "https://"} {
		if len(t) >= len(prefix) && strings.EqualFold(t[:len(prefix)], prefix) {
			return t[len(prefix):], true
		}
	}
	return "", false
}

// The router's own error responses, written without allocating. Typed
// operations write richer problems through package problem.
var (
	problemNotFound         = []byte(`{"type":"about:blank","title":"Not Found","status":404,"detail":"No route matches the request path."}`)
	problemMethodNotAllowed = []byte(`{"type":"about:blank","title":"Method Not Allowed","status":405,"detail":"The request path has no route for this method; the Allow header lists the methods it has."}`)

	// Request targets RFC 9112 section 3.2 does not allow (checkTarget).
	problemAsteriskForm = []byte(`{"type":"about:blank","title":"Bad Request","status":400,"detail":"The request target * (asterisk form) is for OPTIONS only."}`)
	problemFragment     = []byte(`{"type":"about:blank","title":"Bad Request","status":400,"detail":"The request target holds a fragment (#); a fragment is never sent."}`)
	problemScheme       = []byte(`{"type":"about:blank","title":"Bad Request","status":400,"detail":"The request target is neither a path nor an http or https URI."}`)
	problemAuthority    = []byte(`{"type":"about:blank","title":"Bad Request","status":400,"detail":"The request target's URI has no host, or has userinfo (user@host), which an http or https URI in a request does not carry."}`)
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
