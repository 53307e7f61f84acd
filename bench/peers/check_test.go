package peers

import (
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
		if c.Name != "GitHubAll" && c.Name != "Param" {
			continue
		}
		if err := c.Check(wrong); err == nil {
			t.Errorf("%s: a router that always runs route 0 passed the check", c.Name)
		}
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
