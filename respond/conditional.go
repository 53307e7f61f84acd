package respond

import (
	"net/http"
	"strings"
	"time"
)

// notModified reports whether a GET or HEAD request's conditions make the
// response a 304 Not Modified, given the ETag and Last-Modified the
// response would carry (RFC 9110 section 13.2.2): If-None-Match, when
// present, decides alone, with the weak comparison; otherwise
// If-Modified-Since is compared with Last-Modified, to the second.
func notModified(req *http.Request, etag, lastModified string) bool {
	if req == nil || (req.Method != http.MethodGet && req.Method != http.MethodHead) {
		return false
	}
	if inm := req.Header["If-None-Match"]; len(inm) > 0 {
		return etag != "" && matchETag(inm, etag, true)
	}
	ims := req.Header.Get("If-Modified-Since")
	if ims == "" || lastModified == "" {
		return false
	}
	since, err := http.ParseTime(ims)
	if err != nil {
		return false
	}
	modified, err := http.ParseTime(lastModified)
	return err == nil && !modified.After(since)
}

// matchETag reports whether a list of entity tags from If-Match or
// If-None-Match fields matches etag: "*" matches any current
// representation; weak compares opaque tags whatever their W/ prefix,
// strong (If-Match) only strong tags. The list is read as RFC 9110
// section 8.8.3 writes it, so a comma inside a quoted tag ("a,b") is part
// of the tag; reading stops at the first element that is not an entity
// tag. It allocates nothing.
func matchETag(fields []string, etag string, weak bool) bool {
	cw, cv, ok := splitETag(etag)
	if !ok {
		cw, cv = false, etag // not an entity tag: compared as it is
	}
	for _, s := range fields {
		for {
			for len(s) > 0 && (s[0] == ',' || s[0] == ' ' || s[0] == '\t') {
				s = s[1:]
			}
			if s == "" {
				break
			}
			if s[0] == '*' {
				return true
			}
			w := false
			if len(s) >= 2 && s[0] == 'W' && s[1] == '/' {
				w, s = true, s[2:]
			}
			if s == "" || s[0] != '"' {
				break
			}
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				break
			}
			tag := s[1 : 1+end]
			s = s[2+end:]
			if tag == cv && (weak || (!w && !cw)) {
				return true
			}
		}
	}
	return false
}

// splitETag splits an entity tag (`"v1"`, `W/"v1"`) into its weakness
// and opaque text.
func splitETag(t string) (weak bool, opaque string, ok bool) {
	if len(t) >= 2 && t[0] == 'W' && t[1] == '/' {
		weak, t = true, t[2:]
	}
	if len(t) < 2 || t[0] != '"' || t[len(t)-1] != '"' {
		return false, "", false
	}
	return weak, t[1 : len(t)-1], true
}

// Version is what a precondition is evaluated against: the current
// representation's entity tag (quoted, as in an ETag header: `"v3"` or
// `W/"v3"`) and last modification time, either of which may be zero.
// Exists is false when there is no current representation (for
// If-None-Match: * on a create, and If-Match, which then fails).
type Version struct {
	ETag         string
	LastModified time.Time
	Exists       bool
}

// Preconditions evaluates a state-changing request's If-Match,
// If-Unmodified-Since and If-None-Match header fields h against the
// current version (RFC 9110 section 13.2.2) and reports whether the
// request may proceed; false means 412 Precondition Failed. A request with
// none of them proceeds.
func Preconditions(h http.Header, v Version) bool {
	return PreconditionsOf(h["If-Match"], h["If-None-Match"], h.Get("If-Unmodified-Since"), v)
}

// PreconditionsOf is Preconditions for the field values themselves: the
// lines of If-Match and If-None-Match, and If-Unmodified-Since.
func PreconditionsOf(im, inm []string, ius string, v Version) bool {
	if len(im) > 0 {
		if !v.Exists || !matchETag(im, v.ETag, false) {
			return false
		}
	} else if ius != "" && !v.LastModified.IsZero() {
		if t, err := http.ParseTime(ius); err == nil && v.LastModified.Truncate(time.Second).After(t) {
			return false
		}
	}
	if len(inm) > 0 && v.Exists && matchETag(inm, v.ETag, true) {
		return false
	}
	return true
}

func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
