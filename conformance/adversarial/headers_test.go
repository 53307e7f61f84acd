package adversarial

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// headers: every request header the service reads, with values it does not
// expect, and the headers every answer must carry.
func headers(t *testing.T, s *target) {
	t.Run("If-Unmodified-Since is never weaker than If-Match", func(t *testing.T) {
		// Issue 31 row 2 (RFC 9110 §13.1.4): A reads, B writes in the same
		// second, A's write guarded by the Last-Modified it read must fail.
		for _, method := range []string{"PUT", "PATCH", "DELETE"} {
			id, _ := s.create(t, `{"name":"`+s.name("Ius")+`","species":"cat"}`)
			read := s.do(t, "GET", path(id), nil)
			lm := read.header.Get("Last-Modified")
			if lm == "" {
				t.Fatalf("GET %s has no Last-Modified: %s", path(id), read)
			}
			// B's write, at once: most often in the same second as the
			// create; when not, later than it, and A must fail all the same.
			b := s.do(t, "PUT", path(id), []byte(`{"name":"`+s.name("B")+`","species":"dog"}`),
				"Content-Type: application/json", s.auth())
			wantStatus(t, "B's PUT", b, 200)
			var body []byte
			hs := []string{s.auth(), "If-Unmodified-Since: " + lm}
			switch method {
			case "PUT":
				body, hs = []byte(`{"name":"A","species":"bird"}`), append(hs, "Content-Type: application/json")
			case "PATCH":
				body, hs = []byte(`{"name":"A"}`), append(hs, "Content-Type: application/merge-patch+json")
			}
			res := s.do(t, method, path(id), body, hs...)
			wantStatus(t, method+" with the If-Unmodified-Since of a version overwritten since", res, 412)
		}
	})

	t.Run("one connection, header names changing from request to request", func(t *testing.T) {
		// A server that keeps a request's header map with its connection
		// (the fast engine refills it in place when the names repeat)
		// must not let one request's header answer for the next: a block
		// repeated, then changed in one byte, names in another case, the
		// same names with other values, a name dropped, names added, on
		// one kept-alive connection.
		id, etag := s.create(t, `{"name":"`+s.name("Names")+`","species":"cat"}`)
		get := func(lines ...string) string {
			return "GET " + path(id) + " HTTP/1.1\r\nHost: " + s.host + "\r\n" + strings.Join(append(lines, ""), "\r\n") + "\r\n"
		}
		// other is etag with its last character changed: a header block
		// of the same length that differs in one byte, after a block sent
		// twice (the fast engine keeps the lines of a block repeated byte
		// for byte).
		other := etag[:len(etag)-2] + string(etag[len(etag)-2]^1) + `"`
		steps := []struct {
			req  string
			want int
		}{
			{get("If-None-Match: " + etag), 304},
			{get("If-None-Match: " + etag), 304},
			{get("If-None-Match: " + other), 200},
			{get("If-None-Match: " + other), 200},
			{get("If-None-Match: " + etag), 304},
			{get("if-none-match: " + etag), 304},
			{get("If-None-Match: \"other\""), 200},
			{get("Accept: application/json", "If-None-Match: "+etag, "X-A: 1"), 304},
			{get("Accept: application/json", "If-None-Match: \"other\"", "X-A: 1"), 200},
			{get("Accept: application/json", "X-A: 1"), 200},
			{get("Accept: application/json", "IF-NONE-MATCH: "+etag), 304},
			{get("Connection: close"), 200},
		}
		var text string
		for _, st := range steps {
			text += st.req
		}
		res := s.raw(t, text)
		if len(res) != len(steps) {
			t.Fatalf("%d answers to %d requests: %v", len(res), len(steps), res)
		}
		for i, st := range steps {
			if res[i].status != st.want {
				t.Errorf("request %d (%q): %d, want %d", i+1, firstLine(strings.SplitN(st.req, "\r\n", 3)[2]), res[i].status, st.want)
			}
		}
	})

	t.Run("one connection, the same header block over different bodies", func(t *testing.T) {
		// The fast engine keeps the lines of a header block repeated byte
		// for byte; the body is not part of the block. Three writes whose
		// header blocks are equal, Content-Length included, and whose
		// bodies differ in one name each: every answer is its own body's.
		a := s.name("Same")
		names := []string{a + "a", a + "b", a + "c"}
		var text string
		for _, n := range names {
			body := `{"name":"` + n + `","species":"cat"}`
			text += "POST /pets HTTP/1.1\r\nHost: " + s.host + "\r\nContent-Type: application/json\r\n" + s.auth() +
				"\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
		}
		// A last request closes the connection, so that reading ends there.
		text += "GET /pets/0 HTTP/1.1\r\nHost: " + s.host + "\r\nConnection: close\r\n\r\n"
		res := s.raw(t, text)
		if len(res) != len(names)+1 {
			t.Fatalf("%d answers to %d requests: %v", len(res), len(names)+1, res)
		}
		for i, r := range res[:len(names)] {
			var p pet
			if r.status != 201 {
				t.Fatalf("request %d: %s", i+1, r)
			}
			r.json(t, &p)
			if p.Name != names[i] {
				t.Errorf("request %d created %q, want %q", i+1, p.Name, names[i])
			}
		}
	})

	t.Run("If-Modified-Since does not hide a change", func(t *testing.T) {
		// Row 2: a 304 for a pet changed in the second its date names.
		id, _ := s.create(t, `{"name":"`+s.name("Ims")+`","species":"cat"}`)
		lm := s.do(t, "GET", path(id), nil).header.Get("Last-Modified")
		s.do(t, "PUT", path(id), []byte(`{"name":"`+s.name("Ims")+`","species":"dog"}`), "Content-Type: application/json", s.auth())
		res := s.do(t, "GET", path(id), nil, "If-Modified-Since: "+lm)
		wantStatus(t, "GET with the If-Modified-Since of an older version", res, 200)
	})

	t.Run("malformed preconditions never reach a write", func(t *testing.T) {
		id, etag := s.create(t, `{"name":"`+s.name("Pre")+`","species":"cat"}`)
		long := strings.Repeat(`"x", `, 50000) + etag
		for what, h := range map[string]string{
			"an entity tag without quotes":            "If-Match: " + strings.Trim(etag, `"`),
			"garbage":                                 "If-Match: ,,,;;;",
			"a weak tag (If-Match compares strongly)": "If-Match: W/" + etag,
			"a date that is not an HTTP date":         "If-Unmodified-Since: yesterday",
		} {
			res := s.do(t, "PUT", path(id), []byte(`{"name":"X","species":"dog"}`), "Content-Type: application/json", s.auth(), h)
			if what == "a date that is not an HTTP date" {
				// RFC 9110 §13.1.4: an invalid date is ignored; the write
				// goes through.
				wantStatus(t, what, res, 200)
				continue
			}
			wantProblem(t, what, res, 400, 412)
		}
		// A list of 50,000 tags with the right one last: it matches, and
		// costs what it sent.
		res := s.do(t, "PUT", path(id), []byte(`{"name":"Y","species":"dog"}`), "Content-Type: application/json", s.auth(),
			"If-Match: "+long)
		if res.status >= 500 {
			t.Errorf("If-Match of 50,000 tags: %s", res)
		}
	})

	t.Run("If-None-Match: * on POST", func(t *testing.T) {
		// Row 14 (RFC 9110 §13.1.2): the target of POST /pets, the
		// collection, exists, so "only if none exists" fails.
		res := s.do(t, "POST", "/pets", []byte(`{"name":"`+s.name("Inm")+`","species":"cat"}`),
			"Content-Type: application/json", s.auth(), "If-None-Match: *")
		wantStatus(t, "POST with If-None-Match: *", res, 412)
	})

	t.Run("Accept is honoured on every route", func(t *testing.T) {
		// Row 14: the photo and event routes ignored Accept.
		id, _ := s.create(t, `{"name":"`+s.name("Acc")+`","species":"cat"}`)
		s.uploadPhoto(t, id, "image/png", pngBytes)
		for _, p := range []string{path(id), path(id) + "/photo", "/pets"} {
			res := s.do(t, "GET", p, nil, "Accept: application/xml")
			wantProblem(t, "GET "+p+" with Accept: application/xml", res, 406)
		}
		res, stop := s.openStream(t, "Accept: application/xml")
		stop()
		if res.StatusCode != 406 {
			t.Errorf("GET /pets/events with Accept: application/xml: %d, want 406", res.StatusCode)
		}
		// A list of a thousand media ranges costs what it sent.
		many := strings.TrimSuffix(strings.Repeat("text/x-a;q=0.1, ", 1000), ", ")
		res2 := s.do(t, "GET", path(id), nil, "Accept: "+many)
		wantStatus(t, "Accept of a thousand ranges", res2, 406)
		// A weight out of RFC 9110's grammar leaves its range out: it
		// neither accepts at full weight nor hides the ranges beside it.
		for _, p := range []string{path(id), path(id) + "/photo"} {
			wantProblem(t, "GET "+p+" with only weights out of the grammar", s.do(t, "GET", p, nil, "Accept: application/json;q=2, image/png;q=high"), 406)
			wantStatus(t, "GET "+p+" with */* beside them", s.do(t, "GET", p, nil, "Accept: application/json;q=2, image/png;q=high, */*;q=0.1"), 200)
		}
		// Accept split across field lines is one list (RFC 9110 section
		// 5.3), negotiated once before the handler and not again when the
		// answer is written: a JSON range in the second line chooses
		// JSON; lines that accept nothing are a 406 before anything
		// changes, a write included.
		res3 := s.do(t, "GET", path(id), nil, "Accept: text/html", "Accept: application/json;q=0.5")
		wantStatus(t, "Accept in two lines, JSON in the second", res3, 200)
		if ct := res3.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Accept in two lines: Content-Type %q, want application/json", ct)
		}
		before := s.do(t, "GET", path(id), nil)
		refused := s.do(t, "PUT", path(id), []byte(`{"name":"`+s.name("Refused")+`","species":"dog"}`),
			"Content-Type: application/json", s.auth(), "Accept: text/html", "Accept: application/xml")
		wantProblem(t, "PUT whose Accept lines accept nothing", refused, 406)
		after := s.do(t, "GET", path(id), nil)
		if before.header.Get("Etag") != after.header.Get("Etag") || string(before.body) != string(after.body) {
			t.Errorf("a PUT refused 406 changed the pet: %s then %s", before, after)
		}
		head := s.do(t, "HEAD", path(id), nil, "Accept: application/xml")
		if head.status != 406 || len(head.body) != 0 {
			t.Errorf("HEAD with Accept: application/xml: %d with %d body bytes, want 406 and none", head.status, len(head.body))
		}
	})

	t.Run("every answer says nosniff", func(t *testing.T) {
		// Row 15: JSON answers lacked X-Content-Type-Options.
		id, _ := s.create(t, `{"name":"`+s.name("Sniff")+`","species":"cat"}`)
		s.uploadPhoto(t, id, "image/png", pngBytes)
		for _, p := range []string{"/pets", path(id), path(id) + "/photo", "/pets/999999999", "/nowhere", "/openapi.json", "/docs"} {
			res := s.do(t, "GET", p, nil)
			if got := res.header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("GET %s (%d): X-Content-Type-Options %q", p, res.status, got)
			}
		}
	})

	t.Run("the bearer scheme is case-insensitive, and nothing else passes", func(t *testing.T) {
		// RFC 9110 §11.1: the scheme name is case-insensitive.
		body := []byte(`{"name":"` + s.name("Auth") + `","species":"cat"}`)
		res := s.do(t, "POST", "/pets", body, "Content-Type: application/json", "Authorization: bearer "+s.token)
		wantStatus(t, "lower-case bearer", res, 201)
		for what, h := range map[string]string{
			"no token":                 "Authorization: Bearer",
			"a prefix of the token":    "Authorization: Bearer " + s.token[:len(s.token)-1],
			"the token with a suffix":  "Authorization: Bearer " + s.token + "x",
			"another scheme":           "Authorization: Basic " + s.token,
			"the token as a parameter": "Authorization: Bearer token=" + s.token,
		} {
			res := s.do(t, "POST", "/pets", body, "Content-Type: application/json", h)
			wantProblem(t, what, res, 401)
			if res.header.Get("WWW-Authenticate") == "" {
				t.Errorf("%s: a 401 without WWW-Authenticate", what)
			}
		}
	})

	t.Run("Last-Event-ID out of its grammar", func(t *testing.T) {
		for _, v := range []string{"-1", "abc", "99999999999999999999999", "1 2", strings.Repeat("9", 5000)} {
			res := s.do(t, "GET", "/pets/events", nil, "Last-Event-ID: "+v)
			wantProblem(t, "Last-Event-ID "+v[:min(len(v), 20)], res, 400, 422)
		}
	})

	t.Run("a JSON body must say it is JSON, in UTF-8", func(t *testing.T) {
		body := []byte(`{"name":"` + s.name("Ct") + `","species":"cat"}`)
		for _, ct := range []string{"", "text/plain", "application/json; charset=latin1", "application/x-www-form-urlencoded", "application/jsonx"} {
			hs := []string{s.auth()}
			if ct != "" {
				hs = append(hs, "Content-Type: "+ct)
			}
			res := s.do(t, "POST", "/pets", body, hs...)
			wantProblem(t, "Content-Type "+ct, res, 415)
		}
	})

	t.Run("a request ID is not a way to write the log or a header", func(t *testing.T) {
		// X-Request-Id is echoed: one that is not a plain token is replaced.
		for _, v := range []string{strings.Repeat("r", 10000), `"><script>`, "a b"} {
			res := s.do(t, "GET", "/pets?limit=1", nil, "X-Request-Id: "+v)
			if got := res.header.Get("X-Request-Id"); got == v {
				t.Errorf("X-Request-Id %q echoed as sent", v[:min(len(v), 20)])
			}
		}
	})

	t.Run("dates in answers are HTTP dates in GMT", func(t *testing.T) {
		id, _ := s.create(t, `{"name":"`+s.name("Date")+`","species":"cat"}`)
		res := s.do(t, "GET", path(id), nil)
		if _, err := time.Parse(http.TimeFormat, res.header.Get("Last-Modified")); err != nil {
			t.Errorf("Last-Modified %q: %v", res.header.Get("Last-Modified"), err)
		}
	})
}
