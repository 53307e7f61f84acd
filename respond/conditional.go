package respond

import (
	"net/http"
	"strings"
	"time"
)

// readOutcome is what a GET or HEAD request's preconditions make of a
// 2xx answer (RFC 9110 section 13.2.2).
type readOutcome int

const (
	proceed     readOutcome = iota
	notModified             // 304 Not Modified
	unmetOnRead             // 412 Precondition Failed
)

// evaluateRead evaluates a GET or HEAD request's preconditions h against
// the ETag and Last-Modified the answer would carry, lastModified at the
// precision the resource keeps (zero: none), in RFC 9110 section
// 13.2.2's order: If-Match (strong comparison) or else
// If-Unmodified-Since, a 412 when false; then If-None-Match (weak
// comparison) or else If-Modified-Since, a 304 when false.
//
// HTTP dates have whole seconds: a resource modified at 12:00:00.300 was
// modified after "12:00:00", so it fails If-Unmodified-Since and passes
// If-Modified-Since with that date. A date is never trusted more than
// the modification time it stands for (docs/design/2026-11-27-date-preconditions.md).
func evaluateRead(h http.Header, etag string, lastModified time.Time) readOutcome {
	if im := h["If-Match"]; len(im) > 0 {
		if !matchETag(im, etag, false) {
			return unmetOnRead
		}
	} else if d, ok := dateField(h, "If-Unmodified-Since"); ok && !lastModified.IsZero() && lastModified.After(d) {
		return unmetOnRead
	}
	if inm := h["If-None-Match"]; len(inm) > 0 {
		if etag != "" && matchETag(inm, etag, true) {
			return notModified
		}
		return proceed
	}
	if d, ok := dateField(h, "If-Modified-Since"); ok && !lastModified.IsZero() && !lastModified.After(d) {
		return notModified
	}
	return proceed
}

// dateField is the date of the header field key of h, if it has exactly
// one line holding a valid HTTP date (RFC 9110 sections 13.1.3 and
// 13.1.4: a list of dates, or no date, is ignored).
func dateField(h http.Header, key string) (time.Time, bool) {
	v := h[key]
	if len(v) != 1 {
		return time.Time{}, false
	}
	t, err := http.ParseTime(v[0])
	return t, err == nil
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
//
// LastModified is compared at the precision it has: a store that keeps
// its modification times to the whole second makes If-Unmodified-Since
// unable to tell two writes in the same second apart.
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
//
// If-Unmodified-Since is a date with whole seconds, and holds only when
// v.LastModified is not after it at v's full precision: a write at
// 12:00:00.300 fails "12:00:00". It fails when the resource does not
// exist (the client's date was of a representation that has gone, as
// If-Match fails then), and is ignored when the resource has no
// modification time, or the field no valid date (RFC 9110 section
// 13.1.4). It is ignored when If-Match is present.
func PreconditionsOf(im, inm []string, ius string, v Version) bool {
	if len(im) > 0 {
		if !v.Exists || !matchETag(im, v.ETag, false) {
			return false
		}
	} else if ius != "" {
		if t, err := http.ParseTime(ius); err == nil && (!v.Exists || v.LastModified.After(t)) {
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
