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
	"strconv"
	"strings"
)

// ContentType is the media type of a problem body.
const ContentType = "application/problem+json"

// Details is an RFC 9457 problem. Type defaults to "about:blank" and Title
// to the status text when written.
//
// A problem type of one's own is a Type URI (RFC 9457 section 4) with the
// members it defines in Extensions: they are marshalled at the top level of
// the object, beside the standard members, in key order (by Write and
// Marshal). An extension whose name is one of the standard members (type,
// title, status, detail, instance, errors) cannot be sent: Marshal fails
// for it and Write answers without the extensions. Headers are sent with the
// response, not in the body: WWW-Authenticate on a 401, Retry-After on a
// 429 or 503.
type Details struct {
	Type     string       `json:"type,omitempty" doc:"A URI reference that identifies the problem type." default:"about:blank" format:"uri-reference"`
	Title    string       `json:"title,omitempty" doc:"A short, human-readable summary of the problem type." example:"Unprocessable Entity"`
	Status   int          `json:"status,omitempty" doc:"The HTTP status code." example:"422"`
	Detail   string       `json:"detail,omitempty" doc:"A human-readable explanation specific to this occurrence." example:"validation failed"`
	Instance string       `json:"instance,omitempty" doc:"A URI reference that identifies this occurrence." format:"uri-reference"`
	Errors   []FieldError `json:"errors,omitempty" doc:"Every input value that failed, with where it came from."`

	// Extensions are the members of the problem's type beyond the
	// standard ones, marshalled at the top level: {"balance": 30}.
	Extensions map[string]any `json:"-"`

	// Headers are response headers sent with the problem. Write sets
	// each (replacing a value the writer already holds) except
	// Content-Type, Content-Length and X-Content-Type-Options, which are
	// the problem body's own.
	Headers http.Header `json:"-"`
}

// With returns a copy of p with the extension member name set to value
// (p itself is not changed, so a shared problem can serve as a template).
//
//	return nil, problem.New(403, "not enough credit").
//		WithType("https://example.com/probs/out-of-credit").
//		With("balance", 30)
func (p *Details) With(name string, value any) *Details {
	q := *p
	q.Extensions = make(map[string]any, len(p.Extensions)+1)
	for k, v := range p.Extensions {
		q.Extensions[k] = v
	}
	q.Extensions[name] = value
	return &q
}

// WithType returns a copy of p with its Type (a URI reference naming the
// problem type) and, when title is given, its Title set.
func (p *Details) WithType(uri string, title ...string) *Details {
	q := *p
	q.Type = uri
	if len(title) > 0 {
		q.Title = title[0]
	}
	return &q
}

// WithHeader returns a copy of p that is sent with the response header
// name set to value, added to those p has (the header's other values are
// kept):
//
//	vane.ErrorUnauthorized("log in first").WithHeader("WWW-Authenticate", `Bearer realm="api"`)
func (p *Details) WithHeader(name, value string) *Details {
	q := *p
	q.Headers = p.Headers.Clone()
	if q.Headers == nil {
		q.Headers = http.Header{}
	}
	q.Headers.Add(name, value)
	return &q
}

// ResponseHeaders returns the headers sent with the problem (see
// Details.Headers); it lets vane's error handling treat a problem as any
// error that carries headers.
func (p *Details) ResponseHeaders() http.Header { return p.Headers }

// standard are the members of RFC 9457 and vane's errors, which an
// extension cannot replace.
var standard = map[string]bool{"type": true, "title": true, "status": true, "detail": true, "instance": true, "errors": true}

// Marshal encodes p as Write sends it: the standard members, then the
// extensions at the top level in key order, without HTML escaping (so
// that messages read "expected length <= 3" rather than "\u003c= 3"). It
// fails for an extension that has a standard member's name. (encoding/json
// alone leaves the extensions out: Details has no MarshalJSON method, so
// that its schema stays the documented object.)
func Marshal(p *Details) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	out := bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
	if len(p.Extensions) == 0 {
		return out, nil
	}
	for k := range p.Extensions {
		if standard[k] {
			return nil, fmt.Errorf("problem: extension member %q has the name of a standard member", k)
		}
	}
	ext, err := marshalMap(p.Extensions)
	if err != nil {
		return nil, err
	}
	// Both are objects: join "{…}" and "{…}", the second one's members
	// after the first's.
	if len(out) == 2 { // {}
		return ext, nil
	}
	joined := make([]byte, 0, len(out)+len(ext))
	joined = append(joined, out[:len(out)-1]...)
	joined = append(joined, ',')
	return append(joined, ext[1:]...), nil
}

// marshalMap encodes m without HTML escaping; encoding/json sorts the keys.
func marshalMap(m map[string]any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
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

// Write sends p as application/problem+json with its status and
// X-Content-Type-Options: nosniff (so that no browser takes the body for
// another type), with Type and Title filled in when empty (in a copy: p
// is not changed, so a shared problem value is safe to write from many
// requests).
func Write(w http.ResponseWriter, p *Details) {
	q := *p
	p = &q
	if p.Status == 0 {
		p.Status = http.StatusInternalServerError
	}
	if p.Type == "" {
		p.Type = "about:blank"
	}
	if p.Title == "" {
		p.Title = http.StatusText(p.Status)
	}
	body, err := marshal(p)
	if err != nil {
		// A value that cannot be marshalled: drop the values and the
		// extensions, keep the rest.
		plain := *p
		plain.Extensions = nil
		plain.Errors = make([]FieldError, len(p.Errors))
		for i, e := range p.Errors {
			plain.Errors[i] = FieldError{Location: e.Location, Message: e.Message}
		}
		body, _ = marshal(&plain)
	}
	h := w.Header()
	for k, v := range p.Headers {
		switch k = http.CanonicalHeaderKey(k); k {
		case "Content-Type", "Content-Length", "X-Content-Type-Options":
		default:
			h[k] = v
		}
	}
	h["Content-Type"] = []string{ContentType}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	h["X-Content-Type-Options"] = nosniff
	w.WriteHeader(p.Status)
	w.Write(body) //nolint:errcheck // the client went away; nothing to do
}

var nosniff = []string{"nosniff"}

func marshal(p *Details) ([]byte, error) { return Marshal(p) }

// Parse decodes a problem body as Marshal writes it: members that are not
// standard go to Extensions, as encoding/json decodes them into an any.
// The standard members are matched as encoding/json matches field names
// (exactly, else ignoring case), and a member so matched is not also an
// extension.
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
		if !standard[strings.ToLower(k)] { // encoding/json took it for a standard member
			if p.Extensions == nil {
				p.Extensions = map[string]any{}
			}
			p.Extensions[k] = v
		}
	}
	return &p, nil
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
