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
	"net/http"
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
// requests). Headers already set on w, other than those three and
// Content-Length, are kept.
func Write(w http.ResponseWriter, p *Details) {
	status, body := encode(p)
	send(w, status, body, []string{strconv.Itoa(len(body))})
}

// encode returns p's status and body, with the defaults filled in.
func encode(p *Details) (int, []byte) {
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
		// A value that cannot be marshalled: drop the values, keep the rest.
		plain := *p
		plain.Errors = make([]FieldError, len(p.Errors))
		for i, e := range p.Errors {
			plain.Errors[i] = FieldError{Location: e.Location, Message: e.Message}
		}
		body, _ = marshal(&plain)
	}
	return p.Status, body
}

func send(w http.ResponseWriter, status int, body []byte, length []string) {
	h := w.Header()
	h["Content-Type"] = contentType
	h["Content-Length"] = length
	h["X-Content-Type-Options"] = nosniff
	w.WriteHeader(status)
	w.Write(body) //nolint:errcheck // the client went away; nothing to do
}

// Encoded is a problem encoded once, for a response that is always the
// same and may be written often (a busy server's 503, a panic's 500):
// writing it allocates nothing. Make one with Encode.
type Encoded struct {
	status int
	body   []byte
	length []string
}

// Encode encodes p once, as Write would send it.
func Encode(p *Details) *Encoded {
	status, body := encode(p)
	return &Encoded{status: status, body: body, length: []string{strconv.Itoa(len(body))}}
}

// Status returns the status the problem is sent with.
func (e *Encoded) Status() int { return e.status }

// Write sends the problem, with the headers of Write. The header values
// are shared between responses: do not modify them afterwards.
func (e *Encoded) Write(w http.ResponseWriter) { send(w, e.status, e.body, e.length) }

var contentType = []string{ContentType}

var nosniff = []string{"nosniff"}

// marshal encodes without HTML escaping, so that messages read
// "expected length <= 3" rather than "\u003c= 3".
func marshal(p *Details) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
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
