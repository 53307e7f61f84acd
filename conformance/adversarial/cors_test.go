package adversarial

import (
	"net/http"
	"strings"
	"testing"
)

// corsCases: a browser page of the allowed origin must be able to use what
// the document promises, and one of another origin nothing.
func corsCases(t *testing.T, s *target) {
	t.Run("preflights allow the headers the operations read", func(t *testing.T) {
		// Issue 31 row 15: preflights for If-Unmodified-Since,
		// Last-Event-ID and Content-Encoding were refused.
		for _, c := range []struct{ method, path, header string }{
			{"PUT", "/pets/1", "If-Unmodified-Since"},
			{"PUT", "/pets/1", "If-Match"},
			{"DELETE", "/pets/1", "If-None-Match"},
			{"GET", "/pets/events", "Last-Event-ID"},
			{"POST", "/pets", "Content-Encoding"},
			{"POST", "/pets", "Idempotency-Key"},
			{"PATCH", "/pets/1", "Content-Type"},
			{"POST", "/pets", "Authorization"},
		} {
			res := s.do(t, "OPTIONS", c.path, nil, "Origin: "+origin,
				"Access-Control-Request-Method: "+c.method, "Access-Control-Request-Headers: "+strings.ToLower(c.header))
			if res.status >= 300 || res.header.Get("Access-Control-Allow-Origin") != origin {
				t.Errorf("preflight of %s %s with %s: %d, Allow-Origin %q", c.method, c.path, c.header, res.status, res.header.Get("Access-Control-Allow-Origin"))
				continue
			}
			if !listHas(res.header, "Access-Control-Allow-Headers", c.header) {
				t.Errorf("preflight of %s %s: %s is not allowed (Access-Control-Allow-Headers %q)", c.method, c.path, c.header, res.header.Values("Access-Control-Allow-Headers"))
			}
		}
	})

	t.Run("answers expose the headers the document declares", func(t *testing.T) {
		// Row 15: Link, Retry-After, ETag and WWW-Authenticate were not
		// exposed, so a page could not read a next link or a version.
		res := s.do(t, "GET", "/pets?limit=1", nil, "Origin: "+origin)
		for _, h := range []string{"ETag", "Link", "Retry-After", "WWW-Authenticate", "Location", "Last-Modified"} {
			if !listHas(res.header, "Access-Control-Expose-Headers", h) {
				t.Errorf("GET /pets from the origin: %s is not exposed (%q)", h, res.header.Values("Access-Control-Expose-Headers"))
			}
		}
	})

	t.Run("another origin gets nothing", func(t *testing.T) {
		res := s.do(t, "GET", "/pets?limit=1", nil, "Origin: https://evil.example")
		if res.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("another origin allowed: %q", res.header.Get("Access-Control-Allow-Origin"))
		}
		res = s.do(t, "OPTIONS", "/pets/1", nil, "Origin: null", "Access-Control-Request-Method: DELETE")
		if res.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("origin null allowed: %q", res.header.Get("Access-Control-Allow-Origin"))
		}
	})
}

// listHas reports whether a comma-separated header list holds name, in any
// case, or the wildcard, which covers every name but Authorization (Fetch
// standard, CORS protocol).
func listHas(h http.Header, key, name string) bool {
	for _, v := range h.Values(key) {
		for item := range strings.SplitSeq(v, ",") {
			if item = strings.TrimSpace(item); item == "*" && !strings.EqualFold(name, "Authorization") || strings.EqualFold(item, name) {
				return true
			}
		}
	}
	return false
}
