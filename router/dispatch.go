package router

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// dispatch serves req: through the router-wide middleware first, unless
// it comes from the end of their chain (inChain) or there are none, then
// routing it to the route's handler, a redirect or a miss. ServeHTTP is
// one call to it, so that it inlines into a wrapping ServeHTTP (vane's
// root Router) and a request makes one call fewer.
//
// This body is the common case written out: a path without escapes that
// matter, a router whose routes have at most stackParams parameters (the
// values are recorded on the stack), a standard method, and a route that
// matched with nothing more to do than set req.Pattern and call its
// handler. Everything else goes to dispatchAny (the general body) or
// serveMatch (what follows a match). Writing it out spares the calls to
// find and serveMatch, about 40 instructions a request:
// BenchmarkStaticAll, BenchmarkParam, BenchmarkGitHubAll,
// BenchmarkGPlusAll and BenchmarkParseAll keep it (docs/design/router-tree.md,
// "One lookup, one written-out fast path").
func (m *mux) dispatch(w http.ResponseWriter, req *http.Request, inChain bool) {
	if m.chained != nil && !inChain {
		m.chained(w, req)
		return
	}
	if req.URL.RawPath != "" || m.maxParams > stackParams {
		m.dispatchAny(w, req)
		return
	}
	if t := req.RequestURI; (t != "" && t[0] != '/' || req.URL.RawQuery != "") && m.refuseOriginTarget(w, req) {
		return
	}
	p := req.URL.Path
	f := m.compiled()
	// find, for a standard method: methodRoute written out, then fallback
	// only where it has something to try. A static route, the most
	// specific match there is, has neither parameters nor a catch-all: a
	// hit is served at once.
	i := methodIndex(req.Method)
	if i >= 0 && f.mayHaveStatic(uint8(i), p) {
		if rt, _, _ := f.findStatic(uint8(i), p); rt != nil {
			req.Pattern = rt.pattern
			rt.handler(w, req)
			return
		}
	}
	var buf [stackParams]span
	var rt *route
	if i < 0 {
		rt = f.find(i, req.Method, p, buf[:], true)
	} else {
		if f.roots[i] != 0 {
			rt = f.match(f.roots[i]-1, p, 0, 0, buf[:])
		}
		if rt == nil && (i == 1 || f.methods&(1<<anyMethodID) != 0) {
			rt = f.fallback(i, p, buf[:])
		}
	}
	switch {
	case rt == nil:
		m.unmatched(w, req, p, nil)
	case !rt.slashProbe && !m.stdValues &&
		(rt.nparams == 0 || !m.redirectClean || !rt.catchAll && !dotted(p, buf[:rt.nparams])):
		req.Pattern = rt.pattern
		rt.handler(w, req)
	default:
		m.serveMatch(w, req, p, rt, buf[:], false)
	}
}

// dispatchAny is dispatch for every request: a path sent with escapes
// that matter, and routers with routes of more than stackParams
// parameters, whose values are recorded in pooled scratch space.
func (m *mux) dispatchAny(w http.ResponseWriter, req *http.Request) {
	p, escaped := req.URL.Path, req.URL.RawPath != ""
	if escaped {
		// The path was sent with escapes that matter (such as %2F). It is
		// routed on the escaped path with every escape but %2F and %25
		// decoded, so an escaped slash stays inside its segment; Param
		// unescapes each value it is asked for.
		if m.refuseTarget(w, req) {
			return
		}
		// Dot segments count as they were sent, escaped or not; an
		// escaped slash (%2F) is part of its segment, not a separator to
		// clean. RawPath is only a hint: EscapedPath ignores it unless it
		// is a valid encoding of Path.
		e := req.URL.EscapedPath()
		if m.redirectClean && !isClean(unescapeDots(e)) && req.Method != http.MethodConnect {
			m.redirectCleaned(w, req)
			return
		}
		p = routingPath(e)
	} else if m.refuseOriginTarget(w, req) {
		return
	}
	s := m.getScratch()
	defer scratchPool.Put(s)
	m.serveMatch(w, req, p, m.compiled().lookup(req.Method, p, s.spans), s.spans, escaped)
}

// refuseOriginTarget is refuseTarget for a request whose path has no
// escapes that matter. Only a target that is not origin-form, or whose
// query holds a '#', needs a closer look (checkTarget); a '#' in the path
// makes net/http keep the path as sent in RawPath, so dispatchAny looks
// there. Two tests on the way of a request without a query.
func (m *mux) refuseOriginTarget(w http.ResponseWriter, req *http.Request) bool {
	if t := req.RequestURI; t != "" && t[0] != '/' {
		return m.refuseTarget(w, req)
	}
	if q := req.URL.RawQuery; q != "" && strings.IndexByte(q, '#') >= 0 {
		writeProblem(w, http.StatusBadRequest, problemFragment)
		return true
	}
	return false
}

// serveMatch answers req once the lookup of p found rt (nil for none),
// with the parameter values at vals: the route's handler, a clean-path or
// subtree redirect, or a miss. escaped reports whether p is the escaped
// path (dispatchAny), which was checked for cleanness whole.
func (m *mux) serveMatch(w http.ResponseWriter, req *http.Request, p string, rt *route, vals []span, escaped bool) {
	switch {
	case rt == nil:
		m.unmatched(w, req, p, nil)
	case !escaped && rt.nparams > 0 && m.redirectClean && !cleanValues(rt, p, vals):
		// Patterns have no empty, "." or ".." segments, so only what
		// parameters matched can make a matched path unclean.
		m.unmatched(w, req, p, rt)
	case rt.slashProbe && m.subtreeRedirect(w, req, p, rt, vals):
	default:
		// The handler gets req itself, with req.Pattern set to the
		// route's pattern, from which Param reads the values; with
		// StdPathValues, they are also stored with req.SetPathValue.
		req.Pattern = rt.pattern
		if m.stdValues && rt.nparams > 0 {
			setPathValues(req, rt, p, vals, escaped)
		}
		rt.handler(w, req)
	}
}

// stackParams is how many parameter values dispatch records on the stack;
// a router with routes of more parameters matches into pooled scratch
// space.
const stackParams = 8

// scratch is matching state that no handler sees: parameter spans for
// routers with many parameters, and for the lookups that probe another
// path.
type scratch struct {
	spans []span
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
	if !m.compiled().first.mayMatch(p) {
		m.notFoundAnswer(w, req)
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
	if !m.subtreeRoot(req.Method, p, rt, vals) {
		return false
	}
	m.redirect(w, req, req.URL.EscapedPath()+"/")
	return true
}

// subtreeRoot reports whether subtreeRedirect redirects a request for
// method and p that rt matched with vals.
func (m *mux) subtreeRoot(method, p string, rt *route, vals []span) bool {
	if !m.redirectSlash || p == "" || p[len(p)-1] == '/' || vals[rt.nparams-1].start == len(p) {
		return false
	}
	s := m.getScratch()
	defer scratchPool.Put(s)
	alt := p + "/" // on the stack for a path of up to 31 bytes
	other := m.compiled().lookup(method, alt, s.spans)
	return other != nil && !(other.catchAll && s.spans[other.nparams-1].start != len(alt))
}

// dotted reports whether a value at vals in p begins with a dot, the only
// way a value of a {name} parameter can be an unclean segment. It is
// inlined into dispatch, which calls cleanValues only for a catch-all or
// where it is true.
func dotted(p string, vals []span) bool {
	for _, s := range vals {
		if uint(s.start) < uint(len(p)) && p[s.start] == '.' {
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
	if dotted(p, vals[:rt.nparams]) {
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

// miss answers a request that matched no route but whose first segment
// begins some route's (firstSegments): OPTIONS, a trailing-slash
// redirect, 405 or 404, in that order. p is the path as routed.
func (m *mux) miss(w http.ResponseWriter, req *http.Request, p string) {
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
// or one added, matches a route of method. It does not allocate for a
// path of up to 31 bytes (the path with the slash added is then on the
// stack).
func (m *mux) matchesWithSlashToggled(method, p string) bool {
	s := m.getScratch()
	defer scratchPool.Put(s)
	alt := p[:len(p)-1]
	if p[len(p)-1] != '/' {
		alt = p + "/"
	}
	return m.compiled().lookup(method, alt, s.spans) != nil
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
			if f.methods&(1<<i) != 0 && f.find(i, "", p, vals, false) != nil {
				found[i], some = true, true
			}
		}
		for name := range f.custom {
			if f.find(-1, name, p, vals, false) != nil {
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
