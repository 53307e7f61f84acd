package vane

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

type listIn struct {
	Cursor Cursor `query:"cursor"`
	Limit  int    `query:"limit" default:"2" maximum:"10"`
}

type position struct {
	Name string `json:"n"`
	ID   int64  `json:"i"`
}

type listOut struct {
	Link Links `header:"Link" doc:"The next page's link (RFC 8288), when there is one."`
	Body struct {
		Names []string `json:"names"`
	}
}

// pagedRouter pages through names in order by (name, id), by key, with
// cursors from pager.
func pagedRouter(pager *Pager, names []string) *Router {
	r := New()
	Get(r, "/names", func(ctx context.Context, in *listIn) (*listOut, error) {
		var after position
		if _, err := pager.Read(in.Cursor, "names by name", &after); err != nil {
			return nil, err
		}
		out := &listOut{}
		for i, n := range names {
			if (n > after.Name || n == after.Name && int64(i) > after.ID) && len(out.Body.Names) < in.Limit {
				out.Body.Names = append(out.Body.Names, n)
				after = position{Name: n, ID: int64(i)}
			}
		}
		if len(out.Body.Names) == in.Limit {
			c, err := pager.Cursor("names by name", after)
			if err != nil {
				return nil, err
			}
			out.Link = Links{{URL: "/names?cursor=" + url.QueryEscape(c.String()), Rel: "next"}}
		}
		return out, nil
	})
	return r
}

// Following next links pages through the list; a changed, cut, foreign
// or malformed cursor is a 4xx problem naming query.cursor, never a page.
func TestCursorPaging(t *testing.T) {
	pager := NewPager([]byte("a key the replicas share"))
	r := pagedRouter(pager, []string{"ada", "bo", "cy", "di", "ed"})
	var pages []string
	next := "/names"
	for range 5 {
		w := serve(r, "GET", next, "")
		if w.Code != 200 {
			t.Fatalf("%s: %d %s", next, w.Code, w.Body)
		}
		pages = append(pages, strings.TrimSpace(w.Body.String()))
		link := w.Header().Get("Link")
		if link == "" {
			break
		}
		next = strings.TrimPrefix(strings.Split(link, ">")[0], "<")
	}
	if want := `{"names":["ada","bo"]} {"names":["cy","di"]} {"names":["ed"]}`; strings.Join(pages, " ") != want {
		t.Errorf("pages %v", pages)
	}
	good, _ := pager.Cursor("names by name", position{Name: "bo", ID: 1})
	other, _ := pager.Cursor("names by id", position{Name: "bo", ID: 1})
	foreign, _ := NewPager([]byte("another key")).Cursor("names by name", position{Name: "bo", ID: 1})
	tampered := []byte(good.String())
	tampered[3] ^= 1
	for name, c := range map[string]string{
		"changed": string(tampered), "cut short": good.String()[:len(good.String())-3],
		"another scope": other.String(), "another key": foreign.String(),
		"not base64": "1.!!.??", "another version": "2" + good.String()[1:], "long": strings.Repeat("a", MaxCursorLength+1),
	} {
		w := serve(r, "GET", "/names?cursor="+url.QueryEscape(c), "")
		if w.Code != 400 && w.Code != 422 || !strings.Contains(w.Body.String(), `"location":"query.cursor"`) {
			t.Errorf("%s cursor: %d %s", name, w.Code, w.Body)
		}
	}
	d := r.Operations()[0]
	doc := fmt.Sprint(d.Parameters[0].Name, " ", d.Responses[0].Headers[0].Name)
	if doc != "cursor Link" {
		t.Errorf("documented %s", doc)
	}
	has400 := false
	for _, resp := range d.Responses {
		has400 = has400 || resp.Status == 400
	}
	if !has400 {
		t.Error("the 400 of a cursor that cannot be used is not documented")
	}
}

func FuzzCursor(f *testing.F) {
	pager := NewPager([]byte("k"))
	good, _ := pager.Cursor("s", position{Name: "x", ID: 3})
	f.Add(good.String())
	f.Add("1.e30.AAAA")
	f.Add("")
	f.Fuzz(func(t *testing.T, token string) {
		var c Cursor
		if c.UnmarshalText([]byte(token)) != nil {
			return
		}
		var p position
		ok, err := pager.Read(c, "s", &p)
		if err == nil && ok && token != good.String() {
			// Only a cursor this pager made reads; the fuzzer cannot forge
			// a MAC, so any other token that reads is a bug.
			t.Fatalf("a cursor it did not make was read: %q", token)
		}
	})
}

// A cursor changed in any one character is refused: the last character
// of a base64 part carries unused bits, and a cursor that differs there
// only is another spelling, not the cursor the pager made.
func TestCursorOneSpelling(t *testing.T) {
	pager := NewPager([]byte("k"))
	c, _ := pager.Cursor("s", position{Name: "x", ID: 3})
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for at := range len(c.token) {
		for _, to := range []byte(alphabet) {
			token := []byte(c.token)
			if token[at] == to {
				continue
			}
			token[at] = to
			var p position
			if ok, err := pager.Read(Cursor{token: string(token)}, "s", &p); err == nil {
				t.Errorf("%q, changed at %d to %q, was read: %v %+v", c.token, at, to, ok, p)
			}
		}
	}
}

func ExamplePager() {
	pager := NewPager([]byte("shared by every replica"))
	c, _ := pager.Cursor("pets by name", position{Name: "Rex", ID: 7})
	var after position
	ok, err := pager.Read(c, "pets by name", &after)
	fmt.Println(ok, err, after.Name, after.ID)
	_, err = pager.Read(c, "pets by id", &after)
	fmt.Println(err)
	// Output:
	// true <nil> Rex 7
	// 400 the cursor cannot be used: it was changed, or made for another order or filter; start again from the first page: query.cursor: it was changed, or made for another order or filter; start again from the first page
}
