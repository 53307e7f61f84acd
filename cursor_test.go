package vane

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
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
			next, err := pager.Next(in.Cursor, "names by name", after)
			if err != nil {
				return nil, err
			}
			out.Link = Links{next}
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
	pages := follow(t, r, "/names", 5, nil)
	if want := `{"names":["ada","bo"]} {"names":["cy","di"]} {"names":["ed"]}`; strings.Join(pages, " ") != want {
		t.Errorf("pages %v", pages)
	}
	good, _ := pager.Cursor("names by name", position{Name: "bo", ID: 1})
	other, _ := pager.Cursor("names by id", position{Name: "bo", ID: 1})
	foreign, _ := NewPager([]byte("another key of 16+ bytes")).Cursor("names by name", position{Name: "bo", ID: 1})
	tampered := []byte(good.String())
	tampered[3] ^= 1
	for name, c := range map[string]string{
		"changed": string(tampered), "cut short": good.String()[:len(good.String())-3],
		"another scope": other.String(), "another key": foreign.String(),
		"not base64": "1.!!.??", "another version": "1" + good.String()[1:], "long": strings.Repeat("a", MaxCursorLength+1),
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

// follow serves target, then each page's next link, at most max pages,
// and returns the pages' bodies; check, when not nil, sees each page's
// links (page counts from 1).
func follow(t *testing.T, h http.Handler, target string, max int, check func(page int, links Links)) []string {
	t.Helper()
	var pages []string
	for range max {
		w := serve(h, "GET", target, "")
		if w.Code != 200 {
			t.Fatalf("%s: %d %s", target, w.Code, w.Body)
		}
		pages = append(pages, strings.TrimSpace(w.Body.String()))
		var links Links
		if err := links.UnmarshalText([]byte(w.Header().Get("Link"))); err != nil {
			t.Fatal(err)
		}
		if check != nil {
			check(len(pages), links)
		}
		if len(links) == 0 || links[0].Rel != "next" {
			break
		}
		target = links[0].URL
	}
	return pages
}

// Only a cursor the pager made reads, and only in its scope: a token the
// fuzzer makes up, or a cursor it changed, cannot pass the AEAD's tag
// (the fuzzer cannot forge one), and reading never panics. Every cursor
// the test makes holds one position, so a token that reads and holds
// another is a forgery that passed.
func FuzzCursor(f *testing.F) {
	pager := NewPager([]byte("a key of sixteen bytes"))
	want := position{Name: "x", ID: 3}
	good, _ := pager.Cursor("s", want)
	f.Add(good.String(), -1, byte(0))
	f.Add(good.String(), 5, byte(1))
	f.Add("2.e30", -1, byte(0))
	f.Add("1.e30.AAAA", -1, byte(0))
	f.Add("", -1, byte(0))
	f.Fuzz(func(t *testing.T, token string, at int, flip byte) {
		// changed: token was a cursor that reads, and one byte of it is
		// changed now.
		changed := false
		if at >= 0 && at < len(token) && flip != 0 {
			var p position
			_, err := pager.Read(Cursor{token: token}, "s", &p)
			changed = err == nil
			b := []byte(token)
			b[at] ^= flip
			token = string(b)
		}
		var c Cursor
		if c.UnmarshalText([]byte(token)) != nil {
			return
		}
		var p position
		ok, err := pager.Read(c, "s", &p)
		switch {
		case token == "":
			if ok || err != nil {
				t.Fatalf("no cursor: %v %v", ok, err)
			}
			return
		case err == nil && (p != want || !ok):
			t.Fatalf("%q read as %+v: a cursor the pager did not make", token, p)
		case err == nil && changed:
			t.Fatalf("%q, changed at %d, was read", token, at)
		}
		if _, err := pager.Read(c, "another scope", &p); err == nil {
			t.Fatalf("%q read in another scope", token)
		}
	})
}

// A cursor is opaque: its text holds nothing of the position, and two
// cursors of one position differ.
func TestCursorIsOpaque(t *testing.T) {
	pager := NewPager([]byte("a key of sixteen bytes"))
	pos := position{Name: "Geraldine", ID: 424242}
	a, _ := pager.Cursor("s", pos)
	b, _ := pager.Cursor("s", pos)
	if a.String() == b.String() {
		t.Error("two cursors of one position are the same")
	}
	sealed, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(a.String(), "2."))
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"Geraldine", "424242", `"n"`} {
		if bytes.Contains(sealed, []byte(leak)) || strings.Contains(a.String(), base64.RawURLEncoding.EncodeToString([]byte(leak))) {
			t.Errorf("the cursor shows %s: %s", leak, a)
		}
	}
}

// A Pager reads the cursors of every key it has, and makes them with the
// first: the way to change keys without refusing the cursors clients
// hold.
func TestCursorKeyRotation(t *testing.T) {
	oldKey, newKey := []byte("the key of last year"), []byte("the key of this year")
	before := NewPager(oldKey)
	during := NewPager(newKey, oldKey)
	after := NewPager(newKey)
	pos := position{Name: "x", ID: 1}
	old, _ := before.Cursor("s", pos)
	made, _ := during.Cursor("s", pos)
	var p position
	for name, c := range map[string]struct {
		pager *Pager
		c     Cursor
		reads bool
	}{
		"old by both":      {during, old, true},
		"new by both":      {during, made, true},
		"new by new":       {after, made, true},
		"new by old":       {before, made, false},
		"old once dropped": {after, old, false},
	} {
		if _, err := c.pager.Read(c.c, "s", &p); (err == nil) != c.reads {
			t.Errorf("%s: %v", name, err)
		}
	}
	func() {
		defer func() {
			if msg := fmt.Sprint(recover()); !strings.Contains(msg, "key 1 has 5 bytes") {
				t.Errorf("a short key: %q", msg)
			}
		}()
		NewPager(newKey, []byte("short"))
	}()
	if NewPager(nil).keys[0] == nil || len(NewPager().keys[0]) != 32 {
		t.Error("no key is not a random one")
	}
}

type pagedIn struct {
	Cursor Cursor   `query:"after"`
	Limit  int      `query:"limit" default:"2"`
	Offset int      `query:"offset"`
	Tag    []string `query:"tag"`
}

type pagedOut struct {
	Link Links `header:"Link" example:"</x?after=abc>; rel=\"next\""`
	Body []int
}

// The Pager builds the next and previous links itself: the request as the
// client sent it (its path under a group and a mount, its query), with the
// cursor's own parameter set and the parameters it is told to drop gone.
func TestPagerLinks(t *testing.T) {
	pager := NewPager([]byte("a key of sixteen bytes"))
	inner := New()
	Get(inner.Group("/v1"), "/items", func(ctx context.Context, in *pagedIn) (*pagedOut, error) {
		var from int
		if _, err := pager.Read(in.Cursor, "items", &from); err != nil {
			return nil, err
		}
		out := &pagedOut{}
		for i := from + in.Offset; i < 7 && len(out.Body) < in.Limit; i++ {
			out.Body = append(out.Body, i)
		}
		if last := from + in.Offset + len(out.Body); last < 7 {
			next, err := pager.Next(in.Cursor, "items", last, "offset")
			if err != nil {
				return nil, err
			}
			out.Link = append(out.Link, next)
		}
		if from > 0 {
			prev, err := pager.Prev(in.Cursor, "items", max(from-in.Limit, 0), "offset")
			if err != nil {
				return nil, err
			}
			out.Link = append(out.Link, prev)
		}
		return out, nil
	})
	outer := New()
	outer.Mount("/api", inner)
	pages := follow(t, outer, "/api/v1/items?tag=a&tag=b%20c&offset=1", 6, func(page int, links Links) {
		if page == 2 && (len(links) != 2 || links[1].Rel != "prev" || !strings.HasPrefix(links[1].URL, "/api/v1/items?")) {
			t.Errorf("page 2 links %+v", links)
		}
		if len(links) == 0 || links[0].Rel != "next" {
			return
		}
		u, err := url.Parse(links[0].URL)
		if err != nil {
			t.Fatal(err)
		}
		if q := u.Query(); u.Path != "/api/v1/items" || q.Has("offset") || !slices.Equal(q["tag"], []string{"a", "b c"}) || q.Get("after") == "" {
			t.Fatalf("next link %s", links[0].URL)
		}
	})
	if got := strings.Join(pages, " "); got != "[1,2] [3,4] [5,6]" {
		t.Errorf("pages %s", got)
	}
	if _, err := pager.Next(Cursor{}, "items", 3); err == nil {
		t.Error("Next made a link for a cursor no request bound")
	}
	d := inner.Operations()[0]
	if ex := d.Response(200).Headers[0].Schema.Examples; len(ex) != 1 || ex[0] != `</x?after=abc>; rel="next"` {
		t.Errorf("the example tag does not replace Links' example: %v", ex)
	}
}

// Links are written as RFC 8288 says and read back as written.
func TestLinksText(t *testing.T) {
	in := Links{{URL: "/p?a=1&b=<x>", Rel: "next"}, {URL: "/q\r\n", Rel: `odd "rel" \`}}
	text := in.String()
	if want := `</p?a=1&b=%3Cx%3E>; rel="next", </q>; rel="odd \"rel\" \\"`; text != want {
		t.Errorf("String: %s\nwant    %s", text, want)
	}
	var out Links
	if err := out.UnmarshalText([]byte(text)); err != nil || len(out) != 2 || out[0].URL != "/p?a=1&b=%3Cx%3E" || out[1].Rel != `odd "rel" \` {
		t.Errorf("read back %+v %v", out, err)
	}
	for _, bad := range []string{"/x", "<x", `<x>; rel="a`, "<x>; =a", "<x> junk", `<x>; rel="a\`, "<x>; rel=", "<x>;;"} {
		if err := out.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("%q read as %+v", bad, out)
		}
	}
	for text, want := range map[string]Links{
		"": nil,
		" , <a>,,<b>; title=x; REL=prev; rel=zz ": {{URL: "a"}, {URL: "b", Rel: "prev"}},
		"<a>;rel=next": {{URL: "a", Rel: "next"}},
	} {
		if err := out.UnmarshalText([]byte(text)); err != nil || !reflect.DeepEqual(out, want) {
			t.Errorf("%q: %+v %v", text, out, err)
		}
	}
}

// What a Link field value reads as writes back as text that reads the
// same; and links of any URL and relation survive being written and
// read, but for what String leaves out.
func FuzzLinks(f *testing.F) {
	f.Add(`</p?a=1>; rel="next", </q>; rel="prev"`, "/x?y=1", "next")
	f.Add(`<a>; x="\"<>;,", <b>`, "a>b<c", `"\`)
	f.Fuzz(func(t *testing.T, text, u, rel string) {
		var l Links
		if l.UnmarshalText([]byte(text)) == nil {
			var again Links
			if err := again.UnmarshalText([]byte(l.String())); err != nil || !reflect.DeepEqual(cleanLinks(l), again) {
				t.Fatalf("%q read as %+v, written as %q, read again as %+v (%v)", text, l, l.String(), again, err)
			}
		}
		written := Links{{URL: u, Rel: rel}}
		var back Links
		if err := back.UnmarshalText([]byte(written.String())); err != nil || len(back) != 1 {
			t.Fatalf("%+v written as %q does not read: %+v %v", written, written.String(), back, err)
		}
		if want := cleanLinks(written); !reflect.DeepEqual(back, want) {
			t.Fatalf("%+v came back as %+v", want, back)
		}
	})
}

// cleanLinks is l as String writes it: angle brackets escaped, control
// characters gone (a tab kept in a relation).
func cleanLinks(l Links) Links {
	var out Links
	for _, x := range l {
		x.URL = strings.NewReplacer("<", "%3C", ">", "%3E").Replace(dropControl(x.URL, false))
		x.Rel = dropControl(x.Rel, true)
		out = append(out, x)
	}
	return out
}

func dropControl(s string, keepTab bool) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c != 0x7f || keepTab && c == '\t' {
			b = append(b, c)
		}
	}
	return string(b)
}

// A cursor changed in any one character is refused: the last character
// of a base64 part carries unused bits, and a cursor that differs there
// only is another spelling, not the cursor the pager made.
func TestCursorOneSpelling(t *testing.T) {
	pager := NewPager([]byte("a key of sixteen bytes"))
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
	pager := NewPager([]byte("32 random bytes, shared by every replica"))
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
