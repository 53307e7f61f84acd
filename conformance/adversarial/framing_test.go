package adversarial

import (
	"strings"
	"testing"
)

// framing: request lines and message framing (RFC 9112). A header line
// folded over two (obs-fold) is not refused: RFC 9112 §5.2 lets a server
// replace the fold with spaces, which net/http does.
func framing(t *testing.T, s *target) {
	t.Run("asterisk-form is for OPTIONS only", func(t *testing.T) {
		// RFC 9112 §3.2.4: "*" is the target of a server-wide OPTIONS and
		// of nothing else. Issue 31 row 12: a GET * got a 405 whose Allow
		// listed GET.
		res := s.rawOne(t, "GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		wantStatus(t, "GET *", res, 400)
		if allow := res.header.Get("Allow"); strings.Contains(allow, "GET") {
			t.Errorf("GET *: Allow %q offers GET for a target no GET can have", allow)
		}
		res = s.rawOne(t, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		wantStatus(t, "OPTIONS *", res, 200, 204)
	})

	t.Run("a fragment is not part of a request target", func(t *testing.T) {
		// RFC 9112 §3.2: origin-form is absolute-path [ "?" query ]; a
		// client never sends a fragment. Row 12: /pets/1#x was routed.
		for _, target := range []string{"/pets/1#x", "/pets#", "/pets?limit=1#frag"} {
			res := s.rawOne(t, "GET "+target+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
			wantStatus(t, "GET "+target, res, 400)
		}
	})

	t.Run("absolute-form only for http and https", func(t *testing.T) {
		// RFC 9112 §3.2.2; row 12: ftp:// targets were served.
		for _, target := range []string{"ftp://x/pets/1", "file:///etc/passwd", "javascript:alert(1)"} {
			res := s.rawOne(t, "GET "+target+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
			wantStatus(t, "GET "+target, res, 400)
		}
		id, _ := s.create(t, `{"name":"`+s.name("Abs")+`","species":"cat"}`)
		res := s.rawOne(t, "GET http://"+s.host+path(id)+" HTTP/1.1\r\nHost: "+s.host+"\r\nConnection: close\r\n\r\n")
		wantStatus(t, "GET in absolute-form with http", res, 200)
	})

	t.Run("malformed framing is refused and the connection closed", func(t *testing.T) {
		cases := map[string]string{
			"a chunk size that is not hex":             "POST /pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
			"two Host fields (RFC 9112 §3.2)":          "GET /pets HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
			"a space before the colon (RFC 9112 §5.1)": "GET /pets HTTP/1.1\r\nHost: x\r\nAccept : */*\r\n\r\n",
			"no Host in HTTP/1.1 (RFC 9112 §3.2)":      "GET /pets HTTP/1.1\r\n\r\n",
			"a control character in the target":        "GET /pe\x01ts HTTP/1.1\r\nHost: x\r\n\r\n",
			"an unknown transfer coding":               "POST /pets HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
		}
		for what, text := range cases {
			res := s.raw(t, text)
			if len(res) != 1 || res[0].status < 400 || res[0].status >= 500 && res[0].status != 501 {
				t.Errorf("%s: %v; want one 4xx (or 501 for an unknown coding), then the connection closed", what, res)
			}
		}
	})

	t.Run("a header section over the limit is 431", func(t *testing.T) {
		// vane.Server's default header limit is 1 MiB (http.Server's
		// MaxHeaderBytes); net/http answers 431 past it.
		big := strings.Repeat("a", 1<<20+4096)
		res := s.raw(t, "GET /pets HTTP/1.1\r\nHost: x\r\nX-Big: "+big+"\r\n\r\n")
		if len(res) != 1 || res[0].status != 431 {
			t.Errorf("a 1 MiB header: %v; want 431", res)
		}
	})

	t.Run("pipelined requests after a refused one are not served", func(t *testing.T) {
		// A request the server refuses for its framing closes the
		// connection: bytes after it are never read as a request of their
		// own (the shape of request smuggling).
		res := s.raw(t, "GET /pets HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\nGET /pets/1 HTTP/1.1\r\nHost: x\r\n\r\n")
		if len(res) != 1 {
			t.Errorf("%d answers to a refused request and one after it: %v; want only the refusal", len(res), res)
		}
	})
}
