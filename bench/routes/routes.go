// Package routes loads the real-API route tables kept in testdata/routes and
// answers, for any request path, which route of a table must serve it and
// with which parameter values. That reference answer is what the correctness
// check holds every router to before anything is timed.
package routes

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/vane-http/vane/bench"
)

// Route is one line of a table: a method and a pattern in the tables' own
// syntax, ":name" for one segment and "*name" for the rest of the path.
type Route struct {
	Method  string
	Pattern string
}

// Segment is one part of a pattern.
type Segment struct {
	Text string // literal text, or the parameter's name
	Kind Kind
}

// Kind tells a literal segment from a parameter.
type Kind int

const (
	Static   Kind = iota // literal text
	Param                // one segment
	CatchAll             // the rest of the path
)

// Segments splits the pattern at "/".
func (r Route) Segments() []Segment {
	parts := strings.Split(strings.TrimPrefix(r.Pattern, "/"), "/")
	segs := make([]Segment, len(parts))
	for i, p := range parts {
		switch {
		case strings.HasPrefix(p, ":"):
			segs[i] = Segment{p[1:], Param}
		case strings.HasPrefix(p, "*"):
			segs[i] = Segment{p[1:], CatchAll}
		default:
			segs[i] = Segment{p, Static}
		}
	}
	return segs
}

// Params lists the route's parameter names in order.
func (r Route) Params() []string {
	var names []string
	for _, s := range r.Segments() {
		if s.Kind != Static {
			names = append(names, s.Text)
		}
	}
	return names
}

// Convert rewrites the pattern for a router's syntax: param and catchAll
// receive a parameter's name and return the segment text to use.
func (r Route) Convert(param, catchAll func(name string) string) string {
	var b strings.Builder
	for _, s := range r.Segments() {
		b.WriteByte('/')
		switch s.Kind {
		case Static:
			b.WriteString(s.Text)
		case Param:
			b.WriteString(param(s.Text))
		case CatchAll:
			b.WriteString(catchAll(s.Text))
		}
	}
	return b.String()
}

// Braces is the syntax of vane, net/http.ServeMux and OpenAPI: {name}, {name...}.
func (r Route) Braces() string {
	return r.Convert(func(n string) string { return "{" + n + "}" },
		func(n string) string { return "{" + n + "...}" })
}

// Colon is the syntax of httprouter, gin, echo and bunrouter: :name, *name.
func (r Route) Colon() string { return r.Pattern }

// Table is a named list of routes.
type Table struct {
	Name   string
	Routes []Route
}

// Names of the tables, in the order reports show them.
var Names = []string{"static", "github", "gplus", "parse"}

// Load reads the table called name (see Names).
func Load(name string) (Table, error) {
	data, err := bench.Tables.ReadFile(path.Join("testdata/routes", name+".txt"))
	if err != nil {
		return Table{}, err
	}
	return Parse(name, data)
}

// MustLoad is Load for tables known to exist.
func MustLoad(name string) Table {
	t, err := Load(name)
	if err != nil {
		panic(err)
	}
	return t
}

// Parse reads a table in the "METHOD /path" line format.
func Parse(name string, data []byte) (Table, error) {
	t := Table{Name: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		method, pattern, ok := strings.Cut(line, " ")
		if !ok || !strings.HasPrefix(pattern, "/") {
			return t, fmt.Errorf("%s:%d: want \"METHOD /path\", got %q", name, n, line)
		}
		t.Routes = append(t.Routes, Route{Method: method, Pattern: strings.TrimSpace(pattern)})
	}
	return t, sc.Err()
}

// Match is the reference answer for one request.
type Match struct {
	Route  int               // index in the table; -1 when nothing matches
	Params map[string]string // parameter values by name
}

// Lookup finds the route that must serve method and path: among the routes
// that match, the one whose first differing segment is the most specific
// (static over parameter over catch-all), the order every router compared
// here promises.
func (t Table) Lookup(method, reqPath string) Match {
	parts := strings.Split(strings.TrimPrefix(reqPath, "/"), "/")
	best, bestRank := -1, []Kind(nil)
	for i, r := range t.Routes {
		if r.Method != method {
			continue
		}
		rank, ok := matchRank(r.Segments(), parts)
		if !ok {
			continue
		}
		if best < 0 || less(rank, bestRank) {
			best, bestRank = i, rank
		}
	}
	m := Match{Route: best}
	if best < 0 {
		return m
	}
	m.Params = map[string]string{}
	for i, s := range t.Routes[best].Segments() {
		switch s.Kind {
		case Param:
			m.Params[s.Text] = parts[i]
		case CatchAll:
			m.Params[s.Text] = strings.Join(parts[i:], "/")
		}
	}
	return m
}

func matchRank(segs []Segment, parts []string) ([]Kind, bool) {
	rank := make([]Kind, 0, len(segs))
	for i, s := range segs {
		if s.Kind == CatchAll {
			if i >= len(parts) {
				return nil, false
			}
			return append(rank, CatchAll), true
		}
		if i >= len(parts) {
			return nil, false
		}
		switch s.Kind {
		case Static:
			if parts[i] != s.Text {
				return nil, false
			}
		case Param:
			if parts[i] == "" {
				return nil, false
			}
		}
		rank = append(rank, s.Kind)
	}
	return rank, len(segs) == len(parts)
}

func less(a, b []Kind) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) > len(b)
}

// Request is one request a benchmark makes.
type Request struct {
	Method, Path string
}

// Case is a single-table benchmark: a table and the requests of one operation.
type Case struct {
	Name     string // e.g. "GitHubParam"
	Table    string
	Requests []Request
}

// Cases are the route-table benchmarks of go-http-routing-benchmark, in
// report order.
func Cases() []Case {
	all := func(name string) []Request {
		var rs []Request
		for _, r := range MustLoad(name).Routes {
			rs = append(rs, Request{r.Method, r.Pattern})
		}
		return rs
	}
	one := func(p string) []Request { return []Request{{"GET", p}} }
	return []Case{
		{"StaticAll", "static", all("static")},
		{"GitHubStatic", "github", one("/user/repos")},
		{"GitHubParam", "github", one("/repos/julienschmidt/httprouter/stargazers")},
		{"GitHubAll", "github", all("github")},
		{"GPlusStatic", "gplus", one("/people")},
		{"GPlusParam", "gplus", one("/people/118051310819094153327")},
		{"GPlus2Params", "gplus", one("/people/118051310819094153327/activities/123456789")},
		{"GPlusAll", "gplus", all("gplus")},
		{"ParseStatic", "parse", one("/1/users")},
		{"ParseParam", "parse", one("/1/classes/go")},
		{"Parse2Params", "parse", one("/1/classes/go/123456789")},
		{"ParseAll", "parse", all("parse")},
	}
}
