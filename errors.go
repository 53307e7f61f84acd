package vane

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// StatusError is an error that chooses the HTTP status of the response.
// A typed operation's handler that returns one gets that status, and, for
// a status below 500 or an error made by [Error], its message shown to the
// client in a problem+json body. Any other error is a 500 whose message is
// logged, not sent.
type StatusError interface {
	error
	StatusCode() int
}

// Error returns a problem (a StatusError) with status and msg as its
// detail; a status outside 400–599 is 500, as for any StatusError (a
// problem is never a success, and never a redirect without a Location). Each of details that is a problem.FieldError is listed as one;
// any other error adds its message as a field error without a location.
// Its Type, extension members and response headers are the caller's to
// set:
//
//	return nil, vane.Error(http.StatusConflict, "the name is taken",
//		problem.FieldError{Location: "body.name", Message: "already exists", Value: in.Body.Name})
//	return nil, vane.Unauthorized("a valid bearer token is required").
//		WithHeader("WWW-Authenticate", `Bearer realm="pets"`)
//	p := vane.Forbidden("your balance is too low").With("balance", 30)
//	p.Type = "https://example.com/probs/out-of-credit"
//	return nil, p
func Error(status int, msg string, details ...error) *problem.Details {
	if status < 400 || status > 599 {
		status = http.StatusInternalServerError // as for any StatusError
	}
	p := problem.New(status, msg)
	for _, d := range details {
		var fe problem.FieldError
		switch {
		case d == nil:
			continue
		case errors.As(d, &fe):
			p.Errors = append(p.Errors, fe)
		default:
			p.Errors = append(p.Errors, problem.FieldError{Message: d.Error()})
		}
	}
	return p
}

// BadRequest is Error(400, msg, details...).
func BadRequest(msg string, details ...error) *problem.Details {
	return Error(http.StatusBadRequest, msg, details...)
}

// Unauthorized is Error(401, msg, details...).
func Unauthorized(msg string, details ...error) *problem.Details {
	return Error(http.StatusUnauthorized, msg, details...)
}

// Forbidden is Error(403, msg, details...).
func Forbidden(msg string, details ...error) *problem.Details {
	return Error(http.StatusForbidden, msg, details...)
}

// NotFound is Error(404, msg, details...).
func NotFound(msg string, details ...error) *problem.Details {
	return Error(http.StatusNotFound, msg, details...)
}

// Conflict is Error(409, msg, details...).
func Conflict(msg string, details ...error) *problem.Details {
	return Error(http.StatusConflict, msg, details...)
}

// PreconditionFailed is Error(412, msg, details...).
func PreconditionFailed(msg string, details ...error) *problem.Details {
	return Error(http.StatusPreconditionFailed, msg, details...)
}

// UnprocessableEntity is Error(422, msg, details...).
func UnprocessableEntity(msg string, details ...error) *problem.Details {
	return Error(http.StatusUnprocessableEntity, msg, details...)
}

// TooManyRequests is Error(429, msg, details...).
func TooManyRequests(msg string, details ...error) *problem.Details {
	return Error(http.StatusTooManyRequests, msg, details...)
}

// ServiceUnavailable is Error(503, msg, details...). vane answers it with
// Retry-After: problem.DefaultRetryAfter, as every 503 it writes without one;
// Unavailable says how long to wait, and OutcomeUnknown that a write may
// have been made.
func ServiceUnavailable(msg string, details ...error) *problem.Details {
	return Error(http.StatusServiceUnavailable, msg, details...)
}

// problemOf turns a handler's error into the problem answered: the problem
// itself when it is one, a problem with its status and message when it is
// a StatusError (the message only below 500), otherwise a 500 that keeps
// the error to the log.
func problemOf(req *http.Request, d *operation.Description, err error) *problem.Details {
	var p *problem.Details
	if errors.As(err, &p) {
		if p.StatusCode() >= 500 {
			logHandlerError(req, d, err)
		}
		return p
	}
	var se StatusError
	if errors.As(err, &se) {
		status := se.StatusCode()
		if status < 400 || status > 599 {
			status = http.StatusInternalServerError
		}
		if status >= 500 {
			logHandlerError(req, d, err)
			return problem.New(status, http.StatusText(status))
		}
		return problem.New(status, se.Error())
	}
	logHandlerError(req, d, err)
	return problem.New(http.StatusInternalServerError, "the server failed to handle the request")
}

// ErrorHook sets a function that sees every problem a typed operation of
// the router answers with (a 400 or 422 for bad input, 413, 415, a
// handler's error) before it is written, and returns the problem to write:
// the same one, changed (its Type, Detail, messages translated, headers
// added), or another. It runs on the request's goroutine; p is the
// operation's own copy: the hook may change it, whatever the handler
// returned (a shared, package-level problem value stays as it is).
func ErrorHook(fn func(req *http.Request, p *problem.Details) *problem.Details) Option {
	return Option{api: func(a *api) { a.errorHook = fn }}
}

// ProblemType documents an error response an operation sends beyond the
// plain problem (Op.Problems): a problem type of one's own, its extension
// members, the headers that come with it. The operation's response for
// Status is then documented with the problem schema narrowed to this
// type (its type URI as a const, and the extension members as
// properties), and with the headers; several ProblemTypes of one status
// are documented as alternatives (anyOf). Documenting a type does not
// change what is sent: the handler returns the problem (see Error and
// problem.Details.WithType, With, WithHeader).
type ProblemType struct {
	Status      int    // the response status, 400 to 599
	Type        string // the type URI; empty: about:blank, the plain problem
	Title       string // the type's title, documented as its const when set
	Description string // the response's description; empty: the status text

	// Extensions is a value (or nil pointer) of a struct type whose JSON
	// properties are the type's extension members, documented with the
	// rules of package schema: struct{ Balance int `json:"balance"` }{}.
	// Nil: none.
	Extensions any

	// Headers are the response headers sent with it (by name, as they
	// are to be spelled in the document), documented as
	// strings: {"WWW-Authenticate": "the scheme to log in with"}.
	Headers map[string]string
}

// documentProblems documents the Op's problem types on the responses
// list (in place, adding responses for statuses it lacks).
func documentProblems(list []operation.Response, types []ProblemType, reg *schema.Registry) ([]operation.Response, error) {
	if len(types) == 0 {
		return list, nil
	}
	probSchema, err := reg.Schema(reflect.TypeFor[problem.Details]())
	if err != nil {
		return nil, err
	}
	for _, pt := range types {
		if pt.Status < 400 || pt.Status > 599 {
			return nil, fmt.Errorf("problem type %q: status %d is not an error status", pt.Type, pt.Status)
		}
		s := &schema.Schema{AllOf: []*schema.Schema{{Ref: probSchema.Ref}}}
		if pt.Type != "" || pt.Title != "" {
			narrow := &schema.Schema{Properties: map[string]*schema.Schema{}}
			if pt.Type != "" {
				narrow.Properties["type"] = &schema.Schema{Const: pt.Type}
				narrow.Required = []string{"type"}
			}
			if pt.Title != "" {
				narrow.Properties["title"] = &schema.Schema{Const: pt.Title}
			}
			s.AllOf = append(s.AllOf, narrow)
		}
		if pt.Extensions != nil {
			t := reflect.TypeOf(pt.Extensions)
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			if t.Kind() != reflect.Struct {
				return nil, fmt.Errorf("problem type %q: Extensions is a %v, not a struct", pt.Type, t)
			}
			for _, f := range schema.Fields(t) {
				if problemMembers[f.Name] {
					return nil, fmt.Errorf("problem type %q: extension member %q has the name of a standard member", pt.Type, f.Name)
				}
			}
			es, err := reg.Schema(t)
			if err != nil {
				return nil, fmt.Errorf("problem type %q: %w", pt.Type, err)
			}
			s.AllOf = append(s.AllOf, es)
		}
		if len(s.AllOf) == 1 {
			s = &schema.Schema{Ref: probSchema.Ref} // the plain problem
		}
		var headers []operation.Header
		for _, name := range slices.Sorted(maps.Keys(pt.Headers)) {
			headers = append(headers, operation.Header{Name: name, Description: pt.Headers[name], Schema: &schema.Schema{Type: schema.TypeString}})
		}
		i := slices.IndexFunc(list, func(r operation.Response) bool { return r.Status == pt.Status })
		if i < 0 {
			list = append(list, operation.Response{Status: pt.Status, Description: http.StatusText(pt.Status)})
			i = len(list) - 1
		}
		r := &list[i]
		switch {
		case pt.Description == "" || strings.Contains(r.Description, pt.Description):
		case r.Description == "" || r.Description == http.StatusText(r.Status):
			r.Description = pt.Description
		default:
			r.Description += " Or: " + pt.Description
		}
		for _, h := range headers {
			if !slices.ContainsFunc(r.Headers, func(o operation.Header) bool { return strings.EqualFold(o.Name, h.Name) }) {
				r.Headers = append(r.Headers, h)
			}
		}
		c := slices.IndexFunc(r.Content, func(c operation.Content) bool { return c.MediaType == problem.ContentType })
		switch {
		case c < 0:
			r.Content = append(r.Content, operation.Content{MediaType: problem.ContentType, Schema: s})
		case r.Content[c].Schema != nil && r.Content[c].Schema.Ref == probSchema.Ref:
			// The plain problem, documented by default: this type replaces it.
			r.Content = slices.Clone(r.Content)
			r.Content[c].Schema = s
		default:
			// Another type documented for this status: either.
			prev := r.Content[c].Schema
			r.Content = slices.Clone(r.Content)
			if len(prev.AnyOf) > 0 && prev.Ref == "" && len(prev.AllOf) == 0 {
				r.Content[c].Schema = &schema.Schema{AnyOf: append(slices.Clone(prev.AnyOf), s)}
			} else {
				r.Content[c].Schema = &schema.Schema{AnyOf: []*schema.Schema{prev, s}}
			}
		}
	}
	sort.SliceStable(list[1:], func(i, j int) bool { return list[1+i].Status < list[1+j].Status })
	return list, nil
}

// problemMembers are the members of a problem that an extension cannot
// take the name of.
var problemMembers = map[string]bool{"type": true, "title": true, "status": true, "detail": true, "instance": true, "errors": true}

// WriteError answers req with err as the router's typed operations answer
// a handler's error: a *problem.Details as it is (with its Header), a
// StatusError by its status (its message shown below 500), anything else
// a 500 whose cause is logged, not sent; through the router's ErrorHook.
// It lets middleware in front of typed operations (an authentication
// check, a rate limit) answer as they do, so that a hook that logs,
// translates or decorates problems sees these too:
//
//	if user == "" {
//	    r.WriteError(w, req, vane.Unauthorized("log in first").
//	        WithHeader("WWW-Authenticate", `Bearer realm="api"`))
//	    return
//	}
//
// A nil err is a 500.
func (r *Router) WriteError(w http.ResponseWriter, req *http.Request, err error) {
	if err == nil {
		err = errors.New("vane: WriteError called with a nil error")
	}
	writeProblem(r.api.errorHook, w, req, problemOf(req, &operation.Description{Method: req.Method, Pattern: req.URL.Path}, err))
}
