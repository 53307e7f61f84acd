package peers

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/vane-http/vane/bench/routes"
)

// A router that sends every request to its first route must fail the check.
func TestCheckCatchesWrongRoute(t *testing.T) {
	wrong := Peer{Name: "wrong", Router: func(s Spec) (http.Handler, error) {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hit(0)
			for _, n := range s.Routes[0].Params() {
				seen(w, s.Write, n, "x")
			}
		}), nil
	}}
	for _, c := range Cases() {
		if c.Name != "GitHubAll" && c.Name != "Param" || c.Workload != "router" {
			continue
		}
		t.Run(c.Category+"/"+c.Name, func(t *testing.T) {
			err := c.Check(wrong)
			var lacks ErrLacks
			if err == nil || errors.As(err, &lacks) {
				t.Errorf("a router that always runs route 0 passed the check: %v", err)
			}
		})
	}
}

// Right route, wrong value: the check must compare values, not only names.
func TestCheckCatchesWrongValue(t *testing.T) {
	tbl := routes.Table{Routes: []routes.Route{{Method: "GET", Pattern: "/user/:name"}}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hit(0)
		seen(w, false, "name", strings.ToUpper(r.PathValue("name")))
	})
	m := http.NewServeMux()
	m.Handle("GET /user/{name}", h)
	if err := routingCheck(tbl, []Request{get("/user/gordon")}, 0, false)(m); err == nil {
		t.Error("a wrong parameter value passed the check")
	}
	if err := routingCheck(tbl, []Request{get("/user/gordon")}, 1, false)(m); err == nil {
		t.Error("a missing middleware passed the check")
	}
}

func TestLookupPrefersStatic(t *testing.T) {
	tbl := routes.Table{Routes: []routes.Route{
		{Method: "GET", Pattern: "/users/:id"},
		{Method: "GET", Pattern: "/users/new"},
		{Method: "GET", Pattern: "/files/*path"},
	}}
	if m := tbl.Lookup("GET", "/users/new"); m.Route != 1 {
		t.Errorf("/users/new: route %d, want 1", m.Route)
	}
	if m := tbl.Lookup("GET", "/users/7"); m.Route != 0 || m.Params["id"] != "7" {
		t.Errorf("/users/7: %+v", m)
	}
	if m := tbl.Lookup("GET", "/files/a/b.txt"); m.Route != 2 || m.Params["path"] != "a/b.txt" {
		t.Errorf("/files/a/b.txt: %+v", m)
	}
	if m := tbl.Lookup("POST", "/users/7"); m.Route != -1 {
		t.Errorf("POST: %+v", m)
	}
}

// The two route-table variants hold handlers to what they claim: a
// handler that reads its parameters fails the no-read check, and one
// that reads none fails the read check.
func TestCheckHoldsTheReadVariants(t *testing.T) {
	tbl := routes.Table{Routes: []routes.Route{{Method: "GET", Pattern: "/user/:name"}}}
	reads := http.NewServeMux()
	reads.HandleFunc("GET /user/{name}", func(w http.ResponseWriter, r *http.Request) {
		hit(0)
		seen(w, false, "name", r.PathValue("name"))
	})
	silent := http.NewServeMux()
	silent.HandleFunc("GET /user/{name}", func(w http.ResponseWriter, r *http.Request) { hit(0) })
	reqs := []Request{get("/user/gordon")}
	for _, c := range []struct {
		name  string
		h     http.Handler
		read  bool
		wrong bool
	}{
		{"reads, read variant", reads, true, false},
		{"reads nothing, no-read variant", silent, false, false},
		{"reads, no-read variant", reads, false, true},
		{"reads nothing, read variant", silent, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := routingCheckReads(tbl, reqs, 0, false, c.read)(c.h)
			if (err != nil) != c.wrong {
				t.Errorf("error %v, want one: %v", err, c.wrong)
			}
		})
	}
}

// Every table case exists in both variants, built with handlers that read
// (TablesRead) or not (TablesNoRead), and every peer with a router passes
// both: each adapter honours Spec.NoRead.
func TestTableVariants(t *testing.T) {
	count := map[string]int{}
	for _, c := range Cases() {
		count[c.Category]++
	}
	if count["TablesRead"] != len(routes.Cases()) || count["TablesNoRead"] != len(routes.Cases()) {
		t.Fatalf("cases per category: %v", count)
	}
	for _, p := range All() {
		if p.Router == nil {
			continue
		}
		for _, c := range Cases() {
			if c.Category != "TablesNoRead" || c.Name != "GitHubAll" {
				continue
			}
			t.Run(p.Name, func(t *testing.T) {
				if err := c.Check(p); err != nil {
					t.Error(err)
				}
			})
		}
	}
}
