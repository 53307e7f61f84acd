package main

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/vane-http/vane"
)

// firstCursor returns the cursor of the next link of GET base+query.
func firstCursor(t *testing.T, base, query string) string {
	t.Helper()
	res, err := http.Get(base + "/pets?" + query)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	link := res.Header.Get("Link")
	start, end := strings.Index(link, "<"), strings.Index(link, ">")
	if res.StatusCode != 200 || start < 0 || end < start {
		t.Fatalf("GET /pets?%s: %d, Link %q", query, res.StatusCode, link)
	}
	u, err := url.Parse(link[start+1 : end])
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("cursor")
}

// getStatus is the status of GET base+path.
func getStatus(t *testing.T, base, path string) int {
	t.Helper()
	res, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// The cursors' key is PETSTORE_CURSOR_KEY, a secret of its own: a cursor
// says nothing of the bearer token, which can then not be tested against
// a cursor offline. A cursor made by one process is read by another with
// the same key whatever their tokens, and refused by one with another key
// though its token is the same. Neither secret reaches the logs, and the
// token is printed only when the service made it.
func TestCursorKeyIsItsOwnSecret(t *testing.T) {
	const key, otherKey = "0123456789abcdef0123456789abcdef-shared", "fedcba9876543210fedcba9876543210-other"
	maker := start(t, []string{"-data", t.TempDir()}, map[string]string{"PETSTORE_TOKEN": "token-one", "PETSTORE_CURSOR_KEY": key})
	cursor := "limit=1&cursor=" + url.QueryEscape(firstCursor(t, maker.base, "limit=1"))

	sameKey := start(t, []string{"-data", t.TempDir()}, map[string]string{"PETSTORE_TOKEN": "token-two", "PETSTORE_CURSOR_KEY": key})
	if got := getStatus(t, sameKey.base, "/pets?"+cursor); got != 200 {
		t.Errorf("another token, the same cursor key: %d, want 200", got)
	}
	sameToken := start(t, []string{"-data", t.TempDir()}, map[string]string{"PETSTORE_TOKEN": "token-one", "PETSTORE_CURSOR_KEY": otherKey})
	if got := getStatus(t, sameToken.base, "/pets?"+cursor); got != 400 {
		t.Errorf("the same token, another cursor key: %d, want 400", got)
	}
	noKey := start(t, []string{"-data", t.TempDir()}, map[string]string{"PETSTORE_TOKEN": "token-one"})
	if got := getStatus(t, noKey.base, "/pets?"+cursor); got != 400 {
		t.Errorf("the same token, no cursor key: %d, want 400", got)
	}
	made := start(t, []string{"-data", t.TempDir()}, nil)
	createPet(t, made, `{"name":"Nemo","species":"fish"}`) // the printed token writes

	for name, r := range map[string]*running{"maker": maker, "same key": sameKey, "same token": sameToken, "no key": noKey, "made": made} {
		r.stop()
		logs := r.logs.String()
		for _, secret := range []string{"token-one", "token-two", key, otherKey, made.token} {
			if strings.Contains(logs, secret) {
				t.Errorf("%s: the log shows the secret %q:\n%s", name, secret, logs)
			}
		}
		warned := strings.Contains(logs, "PETSTORE_CURSOR_KEY is not set")
		if want := r == noKey || r == made; warned != want {
			t.Errorf("%s: warned that replicas need a shared cursor key: %v, want %v", name, warned, want)
		}
		if shown := r.printed["token"]; (r == made) != strings.Contains(shown, r.token) {
			t.Errorf("%s: printed token line %q (the token is %q; printed only when made)", name, shown, r.token)
		}
	}
}

// A PETSTORE_CURSOR_KEY short enough to guess is refused at start.
func TestShortCursorKeyRefused(t *testing.T) {
	err := app.Run(t.Context(), []string{"-addr", "127.0.0.1:0", "-data", t.TempDir()},
		envOf(map[string]string{"PETSTORE_CURSOR_KEY": "s3cret"}), &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "PETSTORE_CURSOR_KEY") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("serving with a 6-character cursor key: %v", err)
	}
}

// A cursor is made for one set of filters: tag=a,b (one tag, with a
// comma) and tag=a&tag=b (two tags) are different lists, and a cursor of
// one is a 400 for the other.
func TestCursorScopeIsUnambiguous(t *testing.T) {
	c := startService(t, testDBs[0])
	for range 2 {
		newPet(t, c, `{"name":"Comma","species":"cat","tags":["a,b"]}`)
		newPet(t, c, `{"name":"Pair","species":"cat","tags":["a","b"]}`)
		newPet(t, c, `{"name":"Pipe","species":"cat","tags":["x|y"],"status":"pending"}`)
		newPet(t, c, `{"name":"Ka|b","species":"cat","tags":["b|"]}`)
	}
	for _, pair := range [][2]string{
		{"tag=a,b", "tag=a&tag=b"},
		{"tag=a&tag=b", "tag=a,b"},
		{"tag=x|y", "tag=x&tag=y"},
		{"species=cat&tag=x|y", "tag=x|y&species=cat"}, // the same filters: read
		{"q=a|b", "q=a&tag=b|"},
		{"tag=a&tag=b", "tag=b&tag=a&tag=a"}, // the same set: read
	} {
		cursor := firstCursor(t, c.base, "limit=1&"+pair[0])
		r := c.get("/pets?limit=1&" + pair[1] + "&cursor=" + url.QueryEscape(cursor))
		want := 400
		if slices.Contains([]string{"tag=x|y&species=cat", "tag=b&tag=a&tag=a"}, pair[1]) {
			want = 200
		}
		if r.status != want {
			t.Errorf("a cursor of %s used with %s: %d %s, want %d", pair[0], pair[1], r.status, r.body, want)
		}
	}
}

// listScope is one-to-one: two filters have one scope exactly when they
// ask for the same pets (the same species, status and search, and the
// same set of tags).
func FuzzListScope(f *testing.F) {
	f.Add("cat", "", "a|b", "a,b", "cat", "", "a", "b")
	f.Add("", "pending", "", "x\x00y", "", "pending", "", "x\x00y")
	f.Add("dog", "", "\"q\"", "", "dog", "\"", "q", "")
	f.Add("", "", "a", "b|", "", "", "a|b", "")
	f.Add("", "", "", "a,b", "", "", "", "a\x1fb")
	f.Fuzz(func(t *testing.T, sp1, st1, q1, tags1, sp2, st2, q2, tags2 string) {
		split := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, "\x1f") // any byte may be in a tag but this one
		}
		a := &ListPets{Species: sp1, Status: st1, Q: q1, Tags: split(tags1)}
		b := &ListPets{Species: sp2, Status: st2, Q: q2, Tags: split(tags2)}
		same := sp1 == sp2 && st1 == st2 && q1 == q2 && slices.Equal(tagSet(a.Tags), tagSet(b.Tags))
		if (listScope(a) == listScope(b)) != same {
			t.Fatalf("filters %+v and %+v: scopes %q and %q", a, b, listScope(a), listScope(b))
		}
	})
}

// A cursor reads back as the position it was made of, in its scope only,
// and a cursor with any one character changed is refused: a position
// cannot be moved, nor a scope changed, without the key.
func FuzzListCursor(f *testing.F) {
	f.Add(int64(1), "cat", "a,b", 0, byte('A'))
	f.Add(int64(1<<62), "", "", 5, byte('.'))
	f.Add(int64(42), "dog", "a", 60, byte('_'))
	a := &api{pager: vane.NewPager([]byte("a key for the fuzzer's cursors, 32+ chars"))}
	f.Fuzz(func(t *testing.T, id int64, species, tags string, at int, to byte) {
		in := &ListPets{Species: species, Tags: strings.Split(tags, ",")}
		c, err := a.pager.Cursor(listScope(in), petsAfter{ID: id})
		if err != nil {
			return // a position too long for a cursor
		}
		var got petsAfter
		if ok, err := a.pager.Read(c, listScope(in), &got); !ok || err != nil || got.ID != id {
			t.Fatalf("cursor of %d read back as %d, %v, %v", id, got.ID, ok, err)
		}
		other := &ListPets{Species: species + "x", Tags: in.Tags}
		if _, err := a.pager.Read(c, listScope(other), &got); err == nil {
			t.Fatalf("a cursor of %+v was read for %+v", in, other)
		}
		token := []byte(c.String())
		at = int(uint(at) % uint(len(token)))
		if token[at] == to {
			return
		}
		token[at] = to
		var tampered vane.Cursor
		if tampered.UnmarshalText(token) != nil {
			return // refused as it is bound: not a cursor's alphabet, or too long
		}
		got = petsAfter{}
		if ok, err := a.pager.Read(tampered, listScope(in), &got); err == nil {
			t.Fatalf("cursor %q, changed at %d to %q, was read: %v %+v", c.String(), at, to, ok, got)
		}
	})
}

// Every cursor that differs from one the service made by one character,
// whatever the position and the character, is refused.
func TestCursorRefusesEveryChangedCharacter(t *testing.T) {
	a := &api{pager: vane.NewPager([]byte("a key for the test's cursors, 32+ characters"))}
	scope := listScope(&ListPets{Species: "cat", Tags: []string{"a,b"}})
	for _, id := range []int64{1, 7, 1234567, 1<<62 + 3} {
		c, err := a.pager.Cursor(scope, petsAfter{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
		for at := range len(c.String()) {
			for _, to := range []byte(alphabet) {
				token := []byte(c.String())
				if token[at] == to {
					continue
				}
				token[at] = to
				var changed vane.Cursor
				if changed.UnmarshalText(token) != nil {
					continue
				}
				var got petsAfter
				if ok, err := a.pager.Read(changed, scope, &got); err == nil {
					t.Errorf("cursor %q changed at %d to %q: read (%v, %+v)", c.String(), at, to, ok, got)
				}
			}
		}
	}
}
