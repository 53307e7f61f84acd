package router

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// The designs docs/design/router-params.md weighs, measured side by side on the
// GitHub table with handlers that read every parameter:
//
//   - arena: what the router does (Param reads req.Pattern and the path);
//
//   - scan: Param without the compiled header, parsing req.Pattern on
//     every call;
//
//   - alloc: values copied into a new slice and a new context for every
//     request with parameters, the request copied with WithContext.
//
//     go test -run '^$' -bench ParamDesign -benchmem -count 10 ./router
func BenchmarkParamDesign(b *testing.B) {
	routes := loadTable(b, "github")
	reqs := tableRequests(routes)
	b.Run("arena", func(b *testing.B) {
		benchRequests(b, tableRouter(b, routes), reqs...)
	})
	b.Run("scan", func(b *testing.B) {
		r := New()
		for _, rt := range routes {
			names := rt.names
			r.Handle(rt.method, rt.pattern, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				for _, n := range names {
					if scanParam(req.Pattern, req.URL.Path, n) == "" {
						panic("empty parameter " + n)
					}
				}
			}))
		}
		benchRequests(b, r, reqs...)
	})
	b.Run("alloc", func(b *testing.B) {
		r := New()
		for _, rt := range routes {
			names := rt.names
			r.Handle(rt.method, rt.pattern, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				c, _ := req.Context().(*valuesContext)
				for _, n := range names {
					if c.get(n) == "" {
						panic("empty parameter " + n)
					}
				}
			}))
		}
		benchRequests(b, newAllocDispatch(r, routes), reqs...)
	})
}

// TestParamDesignsAgree checks that the designs measured read the same
// values.
func TestParamDesignsAgree(t *testing.T) {
	routes := loadTable(t, "github")
	r := New()
	for i, rt := range routes {
		r.Handle(rt.method, rt.pattern, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			c, _ := req.Context().(*valuesContext)
			for _, n := range routes[i].names {
				a, s, v := Param(req, n), scanParam(req.Pattern, req.URL.Path, n), c.get(n)
				if a != ":"+n || s != a || v != a {
					t.Errorf("%s %s: %s = %q (arena), %q (scan), %q (alloc)", routes[i].method, routes[i].path, n, a, s, v)
				}
			}
		}))
	}
	for _, req := range tableRequests(routes) {
		newAllocDispatch(r, routes).ServeHTTP(newDiscard(), req)
	}
}

// scanParam finds name's value by walking pattern and path side by side.
func scanParam(pattern, path, name string) string {
	pi, xi := 0, 0
	for {
		j := strings.IndexByte(pattern[pi:], '{')
		if j < 0 || xi+j > len(path) {
			return ""
		}
		pi, xi = pi+j, xi+j
		k := strings.IndexByte(pattern[pi:], '}')
		n := pattern[pi+1 : pi+k]
		end := strings.IndexByte(path[xi:], '/')
		if end < 0 {
			end = len(path) - xi
		}
		if n == name {
			return path[xi : xi+end]
		}
		if strings.TrimSuffix(n, "...") == name {
			return path[xi:]
		}
		pi, xi = pi+k+1, xi+end
	}
}

// allocDispatch routes as dispatch does, then hands the handler a copy of
// the request whose context holds the values.
type allocDispatch struct {
	m     *mux
	names map[string][]string // by pattern
}

func newAllocDispatch(r *Router, routes []tableRoute) allocDispatch {
	d := allocDispatch{r.mux, map[string][]string{}}
	for _, rt := range routes {
		d.names[rt.pattern] = rt.names
	}
	return d
}

type valuesContext struct {
	context.Context
	names  []string
	values []string
}

func (c *valuesContext) get(name string) string {
	if c == nil {
		return ""
	}
	for i, n := range c.names {
		if n == name {
			return c.values[i]
		}
	}
	return ""
}

func (d allocDispatch) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var buf [stackParams]span
	p := req.URL.Path
	f := d.m.compiled()
	rt := f.lookup(req.Method, p, buf[:])
	if rt == nil {
		d.m.miss(w, req, p)
		return
	}
	req.Pattern = rt.pattern
	if rt.nparams == 0 {
		rt.handler(w, req)
		return
	}
	vals := make([]string, rt.nparams)
	for i := range vals {
		vals[i] = p[buf[i].start:buf[i].end]
	}
	rt.handler(w, req.WithContext(&valuesContext{req.Context(), d.names[req.Pattern], vals}))
}
