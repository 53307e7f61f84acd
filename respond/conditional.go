package respond

import (
	"context"
	"net/http"
	"time"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// Conditional requests (RFC 9110 section 13).
//
// An output with a header field named ETag or Last-Modified answers a GET
// or HEAD whose preconditions it fails, once the handler has returned it
// with status 200: If-None-Match (weak comparison, "*" matching any
// current representation) or, when the request has no If-None-Match,
// If-Modified-Since (to the second) give 304 Not Modified, with no body,
// the output's headers but Content-Type, and its cookies; If-Match
// (strong comparison) or, without it, If-Unmodified-Since give 412.
//
// A write cannot wait for the handler: an input that implements
// Preconditioner has its validators asked for after binding and
// validation, and the request answered 412 (or 304 for a GET or HEAD)
// before the handler runs, whenever it carries any of the four headers.

// Preconditioner is implemented by an input (its pointer type) whose
// operation evaluates the request's preconditions before the handler
// runs. Precondition returns the validators of the current representation
// of the resource the input names: its entity tag, as sent in ETag
// (`"v2"`, or weak `W/"v2"`), and its last modification (the zero time if
// unknown). An etag of "" and a zero time mean that the resource does not
// exist, so that If-Match: * fails and If-None-Match: * succeeds (a PUT
// that must create). An error is answered as the handler's would be (a
// vane.NotFound, say), and the handler is not called.
//
// Precondition is called only when the request carries If-Match,
// If-None-Match, If-Modified-Since or If-Unmodified-Since.
type Preconditioner interface {
	Precondition(ctx context.Context) (etag string, lastModified time.Time, err error)
}

// Evaluate returns the status the request's preconditions call for, given
// the validators of the current representation (etag "" and a zero time:
// it does not exist), in RFC 9110's order (section 13.2.2): 0 when the
// request may proceed, 412 Precondition Failed, or 304 Not Modified for a
// GET or HEAD. If-Match is compared strongly and If-None-Match weakly; a
// date that does not parse, or a date condition without a last
// modification time, is ignored; If-None-Match takes precedence over
// If-Modified-Since, which applies to GET and HEAD only.
func Evaluate(req *http.Request, etag string, lastModified time.Time) int {
	h := req.Header
	exists := etag != "" || !lastModified.IsZero()
	lastModified = lastModified.Truncate(time.Second)
	if im, ok := h["If-Match"]; ok {
		if !matchList(im, etag, exists, true) {
			return http.StatusPreconditionFailed
		}
	} else if ius, ok := h["If-Unmodified-Since"]; ok && !lastModified.IsZero() {
		if t, err := http.ParseTime(ius[0]); err == nil && lastModified.After(t) {
			return http.StatusPreconditionFailed
		}
	}
	safe := req.Method == http.MethodGet || req.Method == http.MethodHead
	if inm, ok := h["If-None-Match"]; ok {
		if matchList(inm, etag, exists, false) {
			if safe {
				return http.StatusNotModified
			}
			return http.StatusPreconditionFailed
		}
	} else if ims, ok := h["If-Modified-Since"]; ok && safe && !lastModified.IsZero() {
		if t, err := http.ParseTime(ims[0]); err == nil && !lastModified.After(t) {
			return http.StatusNotModified
		}
	}
	return 0
}

// hasConditions reports whether the request carries a precondition.
func hasConditions(h http.Header) bool {
	return h["If-Match"] != nil || h["If-None-Match"] != nil || h["If-Modified-Since"] != nil || h["If-Unmodified-Since"] != nil
}

// matchList reports whether the entity tags of the header lines match
// current: "*" when it exists, or any tag, compared strongly or weakly.
// A malformed list matches nothing.
func matchList(lines []string, current string, exists, strong bool) bool {
	cw, cv, ok := splitTag(current)
	if !ok {
		cw, cv = false, current // sent unquoted by the output: its text is the tag
	}
	for _, s := range lines {
		for {
			// Skip separators and white space.
			for len(s) > 0 && (s[0] == ',' || s[0] == ' ' || s[0] == '\t') {
				s = s[1:]
			}
			if s == "" {
				break
			}
			if s[0] == '*' {
				if exists {
					return true
				}
				s = s[1:]
				continue
			}
			weak := false
			if len(s) >= 2 && s[0] == 'W' && s[1] == '/' {
				weak, s = true, s[2:]
			}
			if s == "" || s[0] != '"' {
				return false
			}
			end := 1
			for end < len(s) && s[end] != '"' {
				end++
			}
			if end == len(s) {
				return false
			}
			tag := s[1:end]
			s = s[end+1:]
			if current == "" || tag != cv {
				continue
			}
			if !strong || (!weak && !cw) {
				return true
			}
		}
	}
	return false
}

// splitTag splits an entity tag into its weakness and opaque text.
func splitTag(t string) (weak bool, opaque string, ok bool) {
	if len(t) >= 2 && t[0] == 'W' && t[1] == '/' {
		weak, t = true, t[2:]
	}
	if len(t) < 2 || t[0] != '"' || t[len(t)-1] != '"' {
		return false, "", false
	}
	return weak, t[1 : len(t)-1], true
}

var problemPrecondition = problem.Encode(problem.New(http.StatusPreconditionFailed,
	"A precondition of the request (If-Match, If-None-Match or If-Unmodified-Since) does not hold for the current representation."))

// CheckPreconditions evaluates the request's preconditions before the
// handler, with the validators p returns (see Preconditioner). When they
// fail it answers the request, 412 with a problem or 304 with ETag and
// Last-Modified, and returns done; an error from p is returned for the
// caller to answer. A request without preconditions does not call p.
func CheckPreconditions(w http.ResponseWriter, req *http.Request, p Preconditioner) (done bool, err error) {
	if !hasConditions(req.Header) {
		return false, nil
	}
	etag, lm, err := p.Precondition(req.Context())
	if err != nil {
		return false, err
	}
	switch Evaluate(req, etag, lm) {
	case http.StatusNotModified:
		hdr := w.Header()
		if etag != "" {
			hdr.Set("ETag", etag)
		}
		if !lm.IsZero() {
			hdr.Set("Last-Modified", lm.UTC().Format(http.TimeFormat))
		}
		w.WriteHeader(http.StatusNotModified)
		return true, nil
	case http.StatusPreconditionFailed:
		problemPrecondition.Write(w)
		return true, nil
	}
	return false, nil
}

// notModified answers the output's GET or HEAD from its validators, the
// headers set already: it reports whether it wrote 304 or 412.
func (o *Writer) notModified(w http.ResponseWriter, req *http.Request, hdr http.Header) bool {
	if !hasConditions(req.Header) {
		return false
	}
	var etag string
	if v := hdr["Etag"]; len(v) > 0 {
		etag = v[0]
	}
	var lm time.Time
	if v := hdr["Last-Modified"]; len(v) > 0 {
		lm, _ = http.ParseTime(v[0])
	}
	switch Evaluate(req, etag, lm) {
	case http.StatusNotModified:
		delete(hdr, "Content-Type")
		w.WriteHeader(http.StatusNotModified)
		return true
	case http.StatusPreconditionFailed:
		for i := range o.headers {
			delete(hdr, o.headers[i].name)
		}
		problemPrecondition.Write(w)
		return true
	}
	return false
}

// ConditionalParameters returns the header parameters that describe the
// preconditions d evaluates (Preconditions, or Validators on a GET or
// HEAD): If-Match, If-None-Match and If-Unmodified-Since, and
// If-Modified-Since on a GET or HEAD; none that d already has, and none
// when it evaluates no preconditions.
func ConditionalParameters(d *operation.Description) []operation.Parameter {
	safe := d.Method == http.MethodGet || d.Method == http.MethodHead
	if !d.Preconditions && !(d.Validators && safe) {
		return nil
	}
	tags := &schema.Schema{Type: schema.TypeString}
	date := &schema.Schema{Type: schema.TypeString, Examples: []any{"Wed, 21 Oct 2015 07:28:00 GMT"}}
	all := []operation.Parameter{
		{Name: "If-Match", In: operation.InHeader, Schema: tags,
			Description: `Entity tags ("v2", comma-separated) or *: the request proceeds only if the current representation's ETag is one of them (strong comparison), else 412.`},
		{Name: "If-None-Match", In: operation.InHeader, Schema: tags,
			Description: `Entity tags or *: if the current representation's ETag is one of them (weak comparison), a GET or HEAD is answered 304 and any other method 412.`},
		{Name: "If-Unmodified-Since", In: operation.InHeader, Schema: date,
			Description: "An HTTP date: without If-Match, the request proceeds only if the representation was not modified after it, else 412."},
	}
	if safe {
		all = append(all, operation.Parameter{Name: "If-Modified-Since", In: operation.InHeader, Schema: date,
			Description: "An HTTP date: without If-None-Match, answered 304 if the representation was not modified after it."})
	}
	var list []operation.Parameter
	for _, p := range all {
		if d.Param(operation.InHeader, p.Name) == nil {
			list = append(list, p)
		}
	}
	return list
}
