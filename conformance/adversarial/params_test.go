package adversarial

import (
	"net/url"
	"strings"
	"testing"
)

// params: path and query parameters in every spelling, and the strings the
// service stores.
func params(t *testing.T, s *target) {
	t.Run("an integer path parameter has one spelling", func(t *testing.T) {
		// Issue 31 row 12: /pets/01 and /pets/+1 were other URLs of pet 1.
		id, _ := s.create(t, `{"name":"`+s.name("Int")+`","species":"cat"}`)
		p := path(id)
		for _, alias := range []string{
			"/pets/0" + p[len("/pets/"):],
			"/pets/+" + p[len("/pets/"):],
			"/pets/%2B" + p[len("/pets/"):],
			"/pets/" + p[len("/pets/"):] + ".0",
			"/pets/ " + p[len("/pets/"):],
			"/pets/0x1",
			"/pets/1e0",
			"/pets/-0",
		} {
			res := s.do(t, "GET", alias, nil)
			wantProblem(t, "GET "+alias, res, 400, 404, 422)
		}
		res := s.do(t, "GET", "/pets/9223372036854775808", nil)
		wantProblem(t, "an ID past int64", res, 400, 422)
		res = s.do(t, "GET", "/pets/0", nil)
		wantProblem(t, "ID 0, below the minimum", res, 422)
	})

	t.Run("query integers out of range or spelling", func(t *testing.T) {
		for _, q := range []string{"limit=0", "limit=-1", "limit=101", "limit=1e2", "limit=0x10", "limit=", "limit=1&limit=2",
			"offset=-1", "offset=99999999999999999999", "total=yes"} {
			res := s.do(t, "GET", "/pets?"+q, nil)
			wantProblem(t, "GET /pets?"+q, res, 400, 422)
		}
	})

	t.Run("enums and list sizes", func(t *testing.T) {
		for _, q := range []string{"species=Dog", "species=dog%00", "status=", "tag=a&tag=b&tag=c&tag=d&tag=e&tag=f"} {
			res := s.do(t, "GET", "/pets?"+q, nil)
			wantProblem(t, "GET /pets?"+q, res, 400, 422)
		}
	})

	t.Run("a search is a substring, not a pattern", func(t *testing.T) {
		// LIKE's % and _ and FTS5's operators are searched for as
		// characters: q=% finds names with a %, not every pet.
		unique := s.name("Pct")
		s.create(t, `{"name":"`+unique+`","species":"cat"}`)
		for _, q := range []string{"%", "_", "%%", `"`, "*", "NEAR(a b)", "a OR b", "^x", "-x"} {
			res := s.do(t, "GET", "/pets?limit=100&q="+url.QueryEscape(q), nil)
			if res.status != 200 {
				t.Errorf("q=%s: %s", q, res)
				continue
			}
			var page struct{ Items []pet }
			res.json(t, &page)
			for _, p := range page.Items {
				if !strings.Contains(strings.ToLower(p.Name), strings.ToLower(q)) {
					t.Errorf("q=%s found %q, which does not contain it", q, p.Name)
					break
				}
			}
		}
	})

	t.Run("one search, one meaning, whatever its length", func(t *testing.T) {
		// Row 9: three characters or more went through FTS5, which folds
		// final sigma; shorter ones through LIKE, which did not.
		name := "ΣΊΣΥΦΟΣ" + s.name("")
		id, _ := s.create(t, `{"name":"`+name+`","species":"cat"}`)
		for _, q := range []string{"ος", "φος", "ΟΣ", "σ", "ς", "σίσυφος"} {
			res := s.do(t, "GET", "/pets?limit=100&q="+url.QueryEscape(q), nil)
			var page struct{ Items []pet }
			res.json(t, &page)
			found := false
			for _, p := range page.Items {
				found = found || p.ID == id
			}
			if !found {
				t.Errorf("q=%s does not find %s", q, name)
			}
		}
	})

	t.Run("stored strings refuse what the search refuses", func(t *testing.T) {
		// Row 14: names accepted NUL, CR/LF, a right-to-left override and
		// only white space, which q refuses.
		for what, name := range map[string]string{
			"NUL":                    `a\u0000b`,
			"CR LF":                  `a\r\nb`,
			"a tab":                  `a\tb`,
			"right-to-left override": "a\u202eb",
			"left-to-right isolate":  "a\u2066b",
			"only white space":       "   ",
			"DEL":                    `a\u007fb`,
		} {
			res := s.do(t, "POST", "/pets", []byte(`{"name":"`+name+`","species":"cat"}`), "Content-Type: application/json", s.auth())
			wantProblem(t, "a name with "+what, res, 422)
		}
		res := s.do(t, "POST", "/pets", []byte(`{"name":"ok","species":"cat","tags":["a\u202eb"]}`), "Content-Type: application/json", s.auth())
		wantProblem(t, "a tag with a bidi override", res, 422)
	})
}
