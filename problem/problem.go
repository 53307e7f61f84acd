// Package problem implements RFC 9457 problem details for HTTP APIs: the
// application/problem+json body vane writes for every error.
//
//	{
//	  "type": "about:blank",
//	  "title": "Unprocessable Entity",
//	  "status": 422,
//	  "detail": "validation failed",
//	  "errors": [
//	    {"location": "body.items[2].name", "message": "expected length <= 80", "value": "…"}
//	  ]
//	}
//
// A location names where the bad value came from: the source (path, query,
// header, cookie, body) followed by the parameter name or the JSON path.
package problem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// ContentType is the media type of a problem body.
const ContentType = "application/problem+json"

// Details is an RFC 9457 problem. Type defaults to "about:blank" and Title
// to the status text when written.
type Details struct {
	Type     string       `json:"type,omitempty" doc:"A URI reference that identifies the problem type." default:"about:blank" format:"uri-reference"`
	Title    string       `json:"title,omitempty" doc:"A short, human-readable summary of the problem type." example:"Unprocessable Entity"`
	Status   int          `json:"status,omitempty" doc:"The HTTP status code." example:"422"`
	Detail   string       `json:"detail,omitempty" doc:"A human-readable explanation specific to this occurrence." example:"validation failed"`
	Instance string       `json:"instance,omitempty" doc:"A URI reference that identifies this occurrence." format:"uri-reference"`
	Errors   []FieldError `json:"errors,omitempty" doc:"Every input value that failed, with where it came from."`

	// Extensions are further members of the problem object (RFC 9457
	// section 3.2), such as {"balance": 30}, written beside the others.
	// Members named as the fields above are ignored.
	Extensions map[string]any `json:"-"`

	// Header holds response headers sent with the problem, such as
	// WWW-Authenticate on a 401 or Retry-After on a 429 or 503.
	Header http.Header `json:"-"`
}

// OpenSchema marks the problem object as open: its schema never says
// additionalProperties: false, as extension members may appear.
func (*Details) OpenSchema() {}

// With returns a copy of p with the extension member name set to value;
// p itself is not changed, so a problem shared by many requests (a
// package-level value) stays as it was:
//
//	var errNoCredit = problem.New(403, "no credit")
//	return errNoCredit.With("balance", 30)
func (p *Details) With(name string, value any) *Details {
	q := p.Clone()
	if q.Extensions == nil {
		q.Extensions = map[string]any{}
	}
	q.Extensions[name] = value
	return q
}

// WithHeader returns a copy of p with a response header added, sent with
// the problem; p itself is not changed:
//
//	problem.New(401, "a valid bearer token is required").
//		WithHeader("WWW-Authenticate", `Bearer realm="pets"`)
func (p *Details) WithHeader(key, value string) *Details {
	q := p.Clone()
	if q.Header == nil {
		q.Header = http.Header{}
	}
	q.Header.Add(key, value)
	return q
}

// Clone returns a copy of p that shares nothing it can change with p: its
// field errors, extension members and headers are copied (the extension
// values themselves are shared).
func (p *Details) Clone() *Details {
	q := *p
	q.Errors = append([]FieldError(nil), p.Errors...)
	if p.Extensions != nil {
		q.Extensions = make(map[string]any, len(p.Extensions))
		for k, v := range p.Extensions {
			q.Extensions[k] = v
		}
	}
	q.Header = p.Header.Clone()
	return &q
}

// reserved are the members Details has fields for.
var reserved = map[string]bool{"type": true, "title": true, "status": true, "detail": true, "instance": true, "errors": true}

// plain is Details without its methods, for marshal.
type plain Details

// marshal encodes the problem's members, then its extension members in the
// order of their names, without HTML escaping (so that messages read
// "expected length <= 3" rather than "\u003c= 3"). Details has no
// MarshalJSON method, so that its schema is derived from its fields.
func marshal(p *Details) ([]byte, error) {
	b, err := encode((*plain)(p))
	if err != nil || len(p.Extensions) == 0 {
		return b, err
	}
	names := make([]string, 0, len(p.Extensions))
	for k := range p.Extensions {
		if !reserved[k] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	out := b[:len(b)-1] // without the closing brace
	for _, k := range names {
		kb, _ := encode(k)
		vb, err := encode(p.Extensions[k])
		if err != nil {
			return nil, fmt.Errorf("problem: extension %q: %w", k, err)
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, kb...), ':'), vb...)
	}
	return append(out, '}'), nil
}

// encode is json.Marshal without HTML escaping.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// FieldError is one failed input value.
type FieldError struct {
	Location string `json:"location" doc:"Where the value came from: path.id, query.tag[1], header.X-Id, body.items[2].name." example:"body.name"`
	Message  string `json:"message" doc:"What is wrong with it." example:"expected length >= 1"`
	Value    any    `json:"value,omitempty" doc:"The value received."`
}

// SchemaName names the type in OpenAPI components.
func (FieldError) SchemaName() string { return "ProblemFieldError" }

func (e FieldError) Error() string {
	if e.Location == "" {
		return e.Message
	}
	return e.Location + ": " + e.Message
}

// SchemaName names the type in OpenAPI components.
func (*Details) SchemaName() string { return "Problem" }

// New returns a problem with status, its status text as title, and detail.
func New(status int, detail string, errs ...FieldError) *Details {
	return &Details{Status: status, Title: http.StatusText(status), Detail: detail, Errors: errs}
}

// Error makes a problem usable as a Go error: its detail, or title, and the
// field errors.
func (p *Details) Error() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(p.Status))
	b.WriteString(" ")
	if p.Detail != "" {
		b.WriteString(p.Detail)
	} else {
		b.WriteString(p.Title)
	}
	for i, e := range p.Errors {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// StatusCode returns the problem's status (500 if unset).
func (p *Details) StatusCode() int {
	if p.Status == 0 {
		return http.StatusInternalServerError
	}
	return p.Status
}

// Write sends p as application/problem+json with its status (a status
// outside 400–599, or none, is sent as 500) and
// X-Content-Type-Options: nosniff (so that no browser takes the body for
// another type), with Type and Title filled in when empty (in a copy: p
// is not changed, so a shared problem value is safe to write from many
// requests). A 503 always carries Retry-After: p's own (WithHeader), or
// one already set on w, else DefaultRetryAfter, so that no client or
// load balancer retries a 503 at once and without end.
func Write(w http.ResponseWriter, p *Details) {
	q := *p
	p = &q
	if p.Status < 400 || p.Status > 599 {
		// Not an error status: a problem is never a success or a
		// redirect without a Location.
		p.Status, p.Title = http.StatusInternalServerError, ""
	}
	if p.Type == "" {
		p.Type = "about:blank"
	}
	if p.Title == "" {
		p.Title = http.StatusText(p.Status)
	}
	body, err := marshal(p)
	if err != nil {
		// A value that cannot be marshalled: drop the values, keep the rest.
		plain := *p
		plain.Extensions = nil
		plain.Errors = make([]FieldError, len(p.Errors))
		for i, e := range p.Errors {
			plain.Errors[i] = FieldError{Location: e.Location, Message: e.Message}
		}
		body, _ = marshal(&plain)
	}
	h := w.Header()
	for k, vs := range p.Header {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	if p.Status == http.StatusServiceUnavailable && h["Retry-After"] == nil {
		h["Retry-After"] = defaultRetryAfter
	}
	h["Content-Type"] = contentType
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	h["X-Content-Type-Options"] = nosniff
	w.WriteHeader(p.Status)
	w.Write(body) //nolint:errcheck // the client went away; nothing to do
}

var nosniff = []string{"nosniff"}

// DefaultRetryAfter is the Retry-After, in seconds, of a 503 problem
// that says none of its own (see Write).
const DefaultRetryAfter = 1

var defaultRetryAfter = []string{strconv.Itoa(DefaultRetryAfter)}

// Fixed is a problem response encoded once, when it is made, so that
// writing it allocates nothing: the fixed answers of middleware and
// servers (a timeout, a full server, a panic). It is safe for concurrent
// use.
type Fixed struct {
	status int
	body   []byte
	length []string
	header http.Header // the problem's own headers
}

// NewFixed encodes p, with Type and Title filled in as Write fills them.
func NewFixed(p *Details) *Fixed {
	rec := &bodyRecorder{h: http.Header{}}
	Write(rec, p)
	return &Fixed{status: rec.status, body: rec.body, length: []string{strconv.Itoa(len(rec.body))}, header: p.Header.Clone()}
}

// Write sends the problem as Write does: its status, Content-Type
// application/problem+json, Content-Length and X-Content-Type-Options:
// nosniff, after any header the caller set (Retry-After, Cache-Control),
// and a 503's Retry-After when neither the problem nor the caller set one.
func (f *Fixed) Write(w http.ResponseWriter) {
	h := w.Header()
	for k, vs := range f.header {
		h[k] = vs
	}
	if f.status == http.StatusServiceUnavailable && h["Retry-After"] == nil {
		h["Retry-After"] = defaultRetryAfter
	}
	h["Content-Type"] = contentType
	h["Content-Length"] = f.length
	h["X-Content-Type-Options"] = nosniff
	w.WriteHeader(f.status)
	w.Write(f.body) //nolint:errcheck // the client went away; nothing to do
}

// Body returns the encoded problem; the caller must not modify it.
func (f *Fixed) Body() []byte { return f.body }

var contentType = []string{ContentType}

// bodyRecorder keeps what Write sends, for NewFixed.
type bodyRecorder struct {
	h      http.Header
	status int
	body   []byte
}

func (r *bodyRecorder) Header() http.Header    { return r.h }
func (r *bodyRecorder) WriteHeader(status int) { r.status = status }
func (r *bodyRecorder) Write(b []byte) (int, error) {
	r.body = append(r.body, b...)
	return len(b), nil
}

// Location builds locations such as body.items[2].name. It appends to a
// byte slice so that a validator can build one only when a value fails.
type Location []byte

// Field appends ".name" (or "name" at the start); map keys use it too.
func (l Location) Field(name string) Location {
	if len(l) > 0 {
		l = append(l, '.')
	}
	return append(l, name...)
}

// Index appends "[i]".
func (l Location) Index(i int) Location {
	l = append(l, '[')
	l = strconv.AppendInt(l, int64(i), 10)
	return append(l, ']')
}

func (l Location) String() string { return string(l) }

// Parse decodes a problem body as Write sends it: the standard members
// into their fields and the others into Extensions, as encoding/json
// decodes them into an any. The standard members are matched as
// encoding/json matches field names (exactly, else ignoring case), and a
// member so matched is not also an extension.
func Parse(data []byte) (*Details, error) {
	var p Details
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	var all map[string]any
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	for k, v := range all {
		switch strings.ToLower(k) {
		case "type", "title", "status", "detail", "instance", "errors":
			continue
		}
		if p.Extensions == nil {
			p.Extensions = map[string]any{}
		}
		p.Extensions[k] = v
	}
	return &p, nil
}
