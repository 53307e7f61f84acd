package adversarial

import (
	"net/url"
	"strings"
	"testing"

	"github.com/vane-http/vane/internal/examplerun"
)

// nextCursor returns the cursor of the next page of GET /pets?query.
func (s *target) nextCursor(t *testing.T, query string) string {
	t.Helper()
	res := s.do(t, "GET", "/pets?"+query, nil)
	if res.status != 200 {
		t.Fatalf("GET /pets?%s: %s", query, res)
	}
	var page struct {
		Next *string `json:"next"`
	}
	res.json(t, &page)
	if page.Next == nil {
		t.Fatalf("GET /pets?%s has no next page: %s", query, res)
	}
	u, err := url.Parse(*page.Next)
	if err != nil {
		t.Fatal(err)
	}
	c := u.Query().Get("cursor")
	if c == "" {
		t.Fatalf("next link %q has no cursor", *page.Next)
	}
	return c
}

// cursors: forged, borrowed and tampered cursors.
func cursors(t *testing.T, s *target) {
	tag := strings.ToLower(s.name("t"))
	for range 3 {
		s.create(t, `{"name":"`+s.name("Cur")+`","species":"cat","tags":["`+tag+`,b","`+tag+`","b"]}`)
	}

	t.Run("a cursor is bound to its filters, unambiguously", func(t *testing.T) {
		// Issue 31 row 7: the scope joined filters with unescaped | and ,
		// so a cursor for tag=a,b was accepted for tag=a&tag=b.
		one := "tag=" + url.QueryEscape(tag+",b")
		two := "tag=" + url.QueryEscape(tag) + "&tag=b"
		c := s.nextCursor(t, one+"&limit=1")
		res := s.do(t, "GET", "/pets?"+two+"&limit=1&cursor="+url.QueryEscape(c), nil)
		wantProblem(t, "a cursor of tag=a,b used for tag=a&tag=b", res, 400)
		c = s.nextCursor(t, two+"&limit=1")
		res = s.do(t, "GET", "/pets?"+one+"&limit=1&cursor="+url.QueryEscape(c), nil)
		wantProblem(t, "a cursor of tag=a&tag=b used for tag=a,b", res, 400)
		c = s.nextCursor(t, "species=cat&limit=1")
		res = s.do(t, "GET", "/pets?species=dog&limit=1&cursor="+url.QueryEscape(c), nil)
		wantProblem(t, "a cursor of species=cat used for species=dog", res, 400)
		res = s.do(t, "GET", "/pets?species=cat&limit=1&cursor="+url.QueryEscape(c), nil)
		wantStatus(t, "the cursor with its own filters", res, 200)
	})

	t.Run("a tampered cursor is refused", func(t *testing.T) {
		c := s.nextCursor(t, "limit=1")
		flip := func(i int) string {
			b := []byte(c)
			if b[i] == 'A' {
				b[i] = 'B'
			} else {
				b[i] = 'A'
			}
			return string(b)
		}
		for what, bad := range map[string]string{
			"first byte changed":  flip(0),
			"middle byte changed": flip(len(c) / 2),
			"last byte changed":   flip(len(c) - 1),
			"truncated":           c[:len(c)-4],
			"doubled":             c + c,
			"not base64":          "!!!" + c,
			"20 KB":               strings.Repeat("A", 20_000),
			"a JSON position":     `{"id":1}`,
		} {
			res := s.do(t, "GET", "/pets?limit=1&cursor="+url.QueryEscape(bad), nil)
			// 400 for a cursor that is not this service's; vane.Cursor
			// answers 422 (query.cursor) for one that is not even a cursor.
			wantProblem(t, "a cursor "+what, res, 400, 422)
		}
	})

	t.Run("a cursor says nothing about the token", func(t *testing.T) {
		// Row 1: the cursor key was SHA-256 of the token with a fixed
		// label; one anonymous GET gave an offline oracle for guesses.
		// Now the key is a secret of its own: the same key with another
		// token accepts the cursor, another key with the same token does
		// not.
		c := s.nextCursor(t, "limit=1")
		other := examplerun.Start(t, examplerun.Options{Env: append(env(), "PETSTORE_TOKEN=another-token"), Engine: s.engine})
		for range 2 {
			other.Token = "another-token"
			res := (&target{base: other.URL}).do(t, "POST", "/pets", []byte(`{"name":"x","species":"cat"}`),
				"Content-Type: application/json", "Authorization: Bearer another-token")
			wantStatus(t, "a pet on the second service", res, 201)
		}
		res := (&target{base: other.URL}).do(t, "GET", "/pets?limit=1&cursor="+url.QueryEscape(c), nil)
		wantStatus(t, "the cursor at a service with another token and the same cursor key", res, 200)
		other.Stop(t)

		third := examplerun.Start(t, examplerun.Options{Env: append(env(), "PETSTORE_CURSOR_KEY=some-other-cursor-key-0123456789abcdef"), Engine: s.engine})
		res = (&target{base: third.URL}).do(t, "GET", "/pets?limit=1&cursor="+url.QueryEscape(c), nil)
		wantProblem(t, "the cursor at a service with the same token and another cursor key", res, 400)
		third.Stop(t)
	})
}
