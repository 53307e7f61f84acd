package router

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// refPattern is a pattern as the reference matcher sees it: its segments.
type refPattern struct {
	pattern string
	segs    []string // literal text, "{name}" or "{name...}"
}

// refMatch is the obviously-correct reference: split both on '/', compare
// segment by segment, and among the patterns that match keep the one whose
// segment kinds are greatest from the left (literal > {name} > {name...}).
func refMatch(patterns []refPattern, path string) (string, []string) {
	if !strings.HasPrefix(path, "/") {
		return "", nil
	}
	psegs := strings.Split(path[1:], "/")
	best := -1
	var bestRank []int
	var bestVals []string
	for i, p := range patterns {
		rank, vals, ok := refMatchOne(p.segs, psegs)
		if ok && (best < 0 || greater(rank, bestRank)) {
			best, bestRank, bestVals = i, rank, vals
		}
	}
	if best < 0 {
		return "", nil
	}
	return patterns[best].pattern, bestVals
}

// refMatchOne matches one pattern's segments against a path's: 2 per
// literal, 1 per {name} (never empty), 0 for {name...} (the rest, joined).
func refMatchOne(segs, psegs []string) (rank []int, vals []string, ok bool) {
	for j, s := range segs {
		if j >= len(psegs) {
			return nil, nil, false
		}
		switch {
		case strings.HasSuffix(s, "...}"):
			return append(rank, 0), append(vals, strings.Join(psegs[j:], "/")), true
		case strings.HasPrefix(s, "{"):
			if psegs[j] == "" {
				return nil, nil, false
			}
			rank, vals = append(rank, 1), append(vals, psegs[j])
		case s != psegs[j]:
			return nil, nil, false
		default:
			rank = append(rank, 2)
		}
	}
	return rank, vals, len(segs) == len(psegs)
}

// greater compares ranks from the left; at a tie on the common part, the
// longer one (more segments matched before a catch-all) is greater.
func greater(a, b []int) bool {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return len(a) > len(b)
}

// shape is a pattern with its parameter names erased: two patterns of the
// same shape conflict.
func shape(segs []string) string {
	out := make([]string, len(segs))
	for i, s := range segs {
		switch {
		case strings.HasSuffix(s, "...}"):
			out[i] = "{...}"
		case strings.HasPrefix(s, "{"):
			out[i] = "{}"
		default:
			out[i] = s
		}
	}
	return strings.Join(out, "/")
}

// FuzzRouter registers the patterns of a ';'-separated list and routes one
// path: registration must fail exactly for malformed and conflicting
// patterns, routing must never panic, and the route and parameter values
// must agree with refMatch.
func FuzzRouter(f *testing.F) {
	f.Add("/users/new;/users/{id};/users/{id}/posts/{post...}", "/users/new/posts/x/y")
	f.Add("/src/{file...};/src/{dir}/index;/src/static/x", "/src/static/index")
	f.Add("/a/{x}/c;/a/b/{y...};/{z}", "/a/b/c")
	f.Add("/;/{a};/{a}/", "/x/")
	f.Add("/f/{p...};/f/", "/f/")
	f.Add("/a/b;/ab;/a{x}", "/ab")
	f.Add("/é/{x};/é/ü", "/é/ü")
	f.Add("/x/{a}/{b}/{c};/x/{a}/y/{c...}", "/x/1/y/3/4")
	f.Fuzz(func(t *testing.T, list, path string) {
		r := New(RedirectTrailingSlash(false), RedirectCleanPath(false), AutoOptions(false))
		var pats []refPattern
		shapes := map[string]string{}
		for _, p := range strings.Split(list, ";") {
			_, _, perr := parsePattern(p)
			var segs []string
			if perr == nil {
				segs = strings.Split(p[1:], "/")
			}
			prev, dup := shapes[shape(segs)]
			got := panicText(func() { r.Get(p, echoHandler(p)) })
			switch {
			case perr != nil:
				if got != perr.Error() {
					t.Fatalf("pattern %q: panic %q, want %q", p, got, perr)
				}
			case dup:
				if !strings.Contains(got, prev) {
					t.Fatalf("pattern %q has the shape of %q: panic %q", p, prev, got)
				}
			default:
				if got != "" {
					t.Fatalf("pattern %q: unexpected panic %q", p, got)
				}
				shapes[shape(segs)] = p
				pats = append(pats, refPattern{p, segs})
			}
		}
		if strings.ContainsAny(path, "?#") || !strings.HasPrefix(path, "/") {
			return
		}
		req := httptest.NewRequest("GET", "/", nil)
		req.URL = &url.URL{Path: path}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		wantPat, wantVals := refMatch(pats, path)
		if wantPat == "" {
			if w.Code != http.StatusNotFound {
				t.Fatalf("GET %q = %d %q, want 404", path, w.Code, w.Body.String())
			}
			return
		}
		names, _ := ParamNames(wantPat)
		want := wantPat
		for i, n := range names {
			want += fmt.Sprintf(" %s=%s", n, wantVals[i])
		}
		if w.Code != 200 || w.Body.String() != want {
			t.Fatalf("GET %q = %d %q, want %q", path, w.Code, w.Body.String(), want)
		}
	})
}

func panicText(f func()) (s string) {
	defer func() {
		if v := recover(); v != nil {
			s = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}

// FuzzCleanPath checks the cleanliness test and the clean-path redirect
// against path.Clean on arbitrary paths.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"/", "/a//b", "/./", "/a/..", "/.well-known/x", "/a/b/", "//", "/...", "/a/./b/../c/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if !strings.HasPrefix(p, "/") {
			return
		}
		if isClean(p) != (cleanPath(p) == p) {
			t.Fatalf("isClean(%q) = %v, but cleanPath gives %q", p, isClean(p), cleanPath(p))
		}
	})
}

// FuzzEscapedPath sends arbitrary request targets, escapes included, through
// a router with parameters, catch-alls and redirects: never a panic, never a
// 5xx, and a parameter value never holds an unescaped '/' unless it is a
// catch-all's.
func FuzzEscapedPath(f *testing.F) {
	for _, s := range []string{"/files/a%2Fb", "/u/%41/x", "/f/%2e%2e/%2F", "/u/a%252F", "//%2F/", "/u/%zz", "/f/é%C3%A9"} {
		f.Add(s)
	}
	r := New()
	r.Get("/u/{id}/x", echoHandler("/u/{id}/x"))
	r.Get("/u/{id}", echoHandler("/u/{id}"))
	r.Get("/files/{name}", echoHandler("/files/{name}"))
	r.Get("/f/{rest...}", echoHandler("/f/{rest...}"))
	r.Post("/u/{id}", echoHandler("/u/{id}"))
	f.Add("/f/%2E%2E/u/7")
	f.Add("/u/.%2e/x")
	f.Add("/%2e%2e/%2e%2e/etc/passwd")
	f.Fuzz(func(t *testing.T, target string) {
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return
		}
		req := httptest.NewRequest("GET", "/", nil)
		req.URL = u
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("GET %q = %d", target, w.Code)
		}
		// Redirects end: following them never comes back to a target
		// already visited (an escaped dot segment redirected to itself).
		seen := map[string]bool{u.RequestURI(): true}
		for hop := 0; w.Code == http.StatusMovedPermanently && hop < 4; hop++ {
			loc := w.Header().Get("Location")
			if seen[loc] {
				t.Fatalf("GET %q: redirect loop at %q", target, loc)
			}
			seen[loc] = true
			next, err := url.ParseRequestURI(loc)
			if err != nil {
				t.Fatalf("GET %q: Location %q: %v", target, loc, err)
			}
			req = httptest.NewRequest("GET", "/", nil)
			req.URL = next
			w = httptest.NewRecorder()
			r.ServeHTTP(w, req)
		}
		if w.Code != 200 || len(seen) > 1 {
			return
		}
		pattern, rest, _ := strings.Cut(w.Body.String(), " ")
		segs := strings.Split(routingPath(u.EscapedPath()), "/")
		if !strings.HasPrefix(pattern, "/f/") && len(segs) != strings.Count(pattern, "/")+1 {
			t.Fatalf("GET %q matched %q: a parameter swallowed a path separator (%q)", target, pattern, rest)
		}
		// The value is the segment (the rest, for the catch-all) at the
		// parameter's place, unescaped.
		raw := segs[2]
		if strings.HasPrefix(pattern, "/f/") {
			raw = strings.Join(segs[2:], "/")
		}
		want := raw
		if v, err := url.PathUnescape(raw); err == nil {
			want = v
		}
		if _, got, _ := strings.Cut(rest, "="); got != want {
			t.Fatalf("GET %q matched %q: value %q, want %q", target, pattern, got, want)
		}
	})
}

// FuzzServeMux routes one path through vane and through net/http.ServeMux
// with the same patterns (those both accept): where ServeMux serves a
// route, vane serves the same one with the same values, and where ServeMux
// redirects to the root of a more specific subtree, vane redirects there
// too (ServeMux answers 307, vane 301 for GET as for its other redirects).
// A pattern ending in '/' is exact in vane, and a subtree in ServeMux: it
// is registered on ServeMux with {$}, its exact form there.
func FuzzServeMux(f *testing.F) {
	f.Add("/ab/{z}/{rest...};/{z}/{rest...}", "/ab/q")
	f.Add("/users/new;/users/{id};/users/{id}/posts/{post...}", "/users/new/posts/x/y")
	f.Add("/f/{p...};/f/", "/f")
	f.Add("/a/{x}/;/a/{x}/{y}", "/a/b")
	f.Add("/x/{a}/{b...};/x/{a}/y/{c...};/{r...}", "/x/1/y")
	f.Fuzz(func(t *testing.T, list, path string) {
		r := New()
		mux := http.NewServeMux()
		for _, p := range strings.Split(list, ";") {
			mp := p
			if strings.HasSuffix(p, "/") {
				mp += "{$}"
			}
			if strings.Contains(p, "{$}") || panicText(func() { mux.HandleFunc("GET "+mp, muxEcho(p)) }) != "" {
				continue
			}
			if msg := panicText(func() { r.Get(p, echoHandler(p)) }); msg != "" {
				// ServeMux accepts some patterns vane refuses (empty and
				// dot segments, parameters vane reads as conflicting).
				return
			}
		}
		if strings.ContainsAny(path, "?#%") || !strings.HasPrefix(path, "/") || !isClean(path) {
			return
		}
		do := func(h http.Handler) *httptest.ResponseRecorder {
			req := httptest.NewRequest("GET", "/", nil)
			req.URL = &url.URL{Path: path}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			return w
		}
		mw, vw := do(mux), do(r)
		switch {
		case mw.Code == 200:
			if vw.Code != 200 || vw.Body.String() != mw.Body.String() {
				t.Fatalf("GET %q: ServeMux %d %q, vane %d %q", path, mw.Code, mw.Body.String(), vw.Code, vw.Body.String())
			}
		case mw.Code/100 == 3 && mw.Header().Get("Location") == path+"/":
			if vw.Code != http.StatusMovedPermanently || vw.Header().Get("Location") != path+"/" {
				t.Fatalf("GET %q: ServeMux redirects to %q, vane %d %q", path, path+"/", vw.Code, vw.Header().Get("Location"))
			}
		}
	})
}

// muxEcho is echoHandler for a ServeMux route: the pattern and its values.
func muxEcho(pattern string) http.HandlerFunc {
	names, _ := ParamNames(pattern)
	return func(w http.ResponseWriter, req *http.Request) {
		b := pattern
		for _, n := range names {
			b += " " + n + "=" + req.PathValue(n)
		}
		io.WriteString(w, b)
	}
}
