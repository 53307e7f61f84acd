package routes

import "testing"

// The tables are the ones the shared README describes.
func TestTables(t *testing.T) {
	want := map[string]int{"static": 157, "github": 203, "gplus": 13, "parse": 26}
	for _, name := range Names {
		t.Run(name, func(t *testing.T) {
			tbl, err := Load(name)
			if err != nil {
				t.Fatal(err)
			}
			if len(tbl.Routes) != want[name] {
				t.Errorf("%d routes, want %d", len(tbl.Routes), want[name])
			}
			// Every route, requested with its own pattern, finds itself.
			for i, r := range tbl.Routes {
				if m := tbl.Lookup(r.Method, r.Pattern); m.Route != i {
					t.Errorf("%s %s finds route %d, want %d", r.Method, r.Pattern, m.Route, i)
				}
			}
		})
	}
}

func TestConvert(t *testing.T) {
	r := Route{Method: "GET", Pattern: "/repos/:owner/:repo/contents/*path"}
	if got := r.Braces(); got != "/repos/{owner}/{repo}/contents/{path...}" {
		t.Errorf("Braces = %s", got)
	}
	if got := r.Params(); len(got) != 3 || got[2] != "path" {
		t.Errorf("Params = %v", got)
	}
	if _, err := Parse("bad", []byte("GET nopath\n")); err == nil {
		t.Error("a line without a path parsed")
	}
}

func TestCases(t *testing.T) {
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			tbl := MustLoad(c.Table)
			if len(c.Requests) == 0 {
				t.Fatal("no requests")
			}
			for _, r := range c.Requests {
				if m := tbl.Lookup(r.Method, r.Path); m.Route < 0 {
					t.Errorf("%s %s matches no route", r.Method, r.Path)
				}
			}
		})
	}
}
