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

// Error returns a problem with status, its status text as title, and msg
// as its detail; as an error it is a StatusError. Each of details that is
// a problem.FieldError is listed as one; any other error adds its message
// as a field error without a location. The problem's own type, extension
// members and response headers are set with its methods:
//
//	return nil, vane.Error(http.StatusConflict, "the name is taken",
//		problem.FieldError{Location: "body.name", Message: "already exists", Value: in.Body.Name})
//	return nil, vane.ErrorUnauthorized("log in first").WithHeader("WWW-Authenticate", `Bearer realm="pets"`)
//	return nil, vane.ErrorTooManyRequests("slow down").WithHeader("Retry-After", "30")
func Error(status int, msg string, details ...error) *problem.Details {
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

// ErrorBadRequest is Error(400, msg, details...).
func ErrorBadRequest(msg string, details ...error) *problem.Details {
	return Error(http.StatusBadRequest, msg, details...)
}

// ErrorUnauthorized is Error(401, msg, details...).
func ErrorUnauthorized(msg string, details ...error) *problem.Details {
	return Error(http.StatusUnauthorized, msg, details...)
}

// ErrorForbidden is Error(403, msg, details...).
func ErrorForbidden(msg string, details ...error) *problem.Details {
	return Error(http.StatusForbidden, msg, details...)
}

// ErrorNotFound is Error(404, msg, details...).
func ErrorNotFound(msg string, details ...error) *problem.Details {
	return Error(http.StatusNotFound, msg, details...)
}

// ErrorConflict is Error(409, msg, details...).
func ErrorConflict(msg string, details ...error) *problem.Details {
	return Error(http.StatusConflict, msg, details...)
}

// ErrorPreconditionFailed is Error(412, msg, details...).
func ErrorPreconditionFailed(msg string, details ...error) *problem.Details {
	return Error(http.StatusPreconditionFailed, msg, details...)
}

// ErrorUnprocessableEntity is Error(422, msg, details...).
func ErrorUnprocessableEntity(msg string, details ...error) *problem.Details {
	return Error(http.StatusUnprocessableEntity, msg, details...)
}

// ErrorTooManyRequests is Error(429, msg, details...).
func ErrorTooManyRequests(msg string, details ...error) *problem.Details {
	return Error(http.StatusTooManyRequests, msg, details...)
}

// ErrorServiceUnavailable is Error(503, msg, details...).
func ErrorServiceUnavailable(msg string, details ...error) *problem.Details {
	return Error(http.StatusServiceUnavailable, msg, details...)
}

// BadRequest is ErrorBadRequest.
//
// Deprecated: use ErrorBadRequest, named as the other constructors of errors.
func BadRequest(msg string, details ...error) StatusError { return ErrorBadRequest(msg, details...) }

// Unauthorized is ErrorUnauthorized.
//
// Deprecated: use ErrorUnauthorized, named as the other constructors of errors.
func Unauthorized(msg string, details ...error) StatusError {
	return ErrorUnauthorized(msg, details...)
}

// Forbidden is ErrorForbidden.
//
// Deprecated: use ErrorForbidden, named as the other constructors of errors.
func Forbidden(msg string, details ...error) StatusError { return ErrorForbidden(msg, details...) }

// NotFound is ErrorNotFound.
//
// Deprecated: use ErrorNotFound: beside Router.NotFound, which sets a handler,
// the constructors of errors are named as errors.
func NotFound(msg string, details ...error) StatusError { return ErrorNotFound(msg, details...) }

// Conflict is ErrorConflict.
//
// Deprecated: use ErrorConflict, named as the other constructors of errors.
func Conflict(msg string, details ...error) StatusError { return ErrorConflict(msg, details...) }

// PreconditionFailed is ErrorPreconditionFailed.
//
// Deprecated: use ErrorPreconditionFailed, named as the other constructors of errors.
func PreconditionFailed(msg string, details ...error) StatusError {
	return ErrorPreconditionFailed(msg, details...)
}

// UnprocessableEntity is ErrorUnprocessableEntity.
//
// Deprecated: use ErrorUnprocessableEntity, named as the other constructors of errors.
func UnprocessableEntity(msg string, details ...error) StatusError {
	return ErrorUnprocessableEntity(msg, details...)
}

// TooManyRequests is ErrorTooManyRequests.
//
// Deprecated: use ErrorTooManyRequests, named as the other constructors of errors.
func TooManyRequests(msg string, details ...error) StatusError {
	return ErrorTooManyRequests(msg, details...)
}

// ServiceUnavailable is ErrorServiceUnavailable.
//
// Deprecated: use ErrorServiceUnavailable, named as the other constructors of errors.
func ServiceUnavailable(msg string, details ...error) StatusError {
	return ErrorServiceUnavailable(msg, details...)
}

// HeadersError is an error that carries response headers: an error
// response made from it (by its status when it is a StatusError, as a 500
// otherwise) is sent with them, WWW-Authenticate on a 401 or Retry-After
// on a 429 or 503 for instance. A *problem.Details is one (its Headers).
// Content-Type, Content-Length and X-Content-Type-Options are the problem
// body's own and are not taken.
type HeadersError interface {
	error
	ResponseHeaders() http.Header
}

// OnError sets a function that sees every error response the router's
// typed operations send, just before it is written: the problems vane
// answers bad requests with (400, 408, 413, 415, 422), with err nil, and
// those made from a handler's error (or from an output that cannot be
// encoded), with err that error. p is the response's own copy: fn may
// change anything in it (status, type, title, detail, extensions, field
// errors, headers) and what it leaves is what is sent; it may also log.
// fn runs on the request's goroutine and must not keep p.
//
// Validation messages are replaced (see ValidationMessages) before fn is
// called.
func OnError(fn func(req *http.Request, p *problem.Details, err error)) Option {
	return Option{api: func(a *api) { a.errors.hook = fn }}
}

// ValidationMessages sets a function that gives the message of each field
// error of the problems vane answers bad input with (the 422 for input
// that failed binding, validation or a resolver, and a 400 that names its
// field, such as a duplicate JSON key), so that messages can be reworded or
// translated (by the request's Accept-Language, say). It is given the
// request and the field error with vane's own message, and returns the
// message to send; returning e.Message keeps it. Field errors that a
// handler returns are its own and are not passed to fn.
func ValidationMessages(fn func(req *http.Request, e problem.FieldError) string) Option {
	return Option{api: func(a *api) { a.errors.messages = fn }}
}

// WriteError answers req with err as the router's typed operations answer
// a handler's error: a *problem.Details as it is, a StatusError by its
// status (its message shown below 500), anything else a 500 whose cause is
// logged, not sent; with the headers of a HeadersError, and through the
// OnError hook. It lets middleware in front of typed operations (an
// authentication check, a rate limit) answer as they do:
//
//	if user == "" {
//	    r.WriteError(w, req, vane.ErrorUnauthorized("log in first").
//	        WithHeader("WWW-Authenticate", `Bearer realm="api"`))
//	    return
//	}
func (r *Router) WriteError(w http.ResponseWriter, req *http.Request, err error) {
	if err == nil {
		err = errors.New("vane: WriteError called with a nil error")
	}
	r.api.errors.handler(w, req, &operation.Description{Pattern: req.URL.Path, Method: req.Method}, err)
}

// errorConfig is how the typed operations of a router send their errors.
type errorConfig struct {
	hook     func(*http.Request, *problem.Details, error)
	messages func(*http.Request, problem.FieldError) string
}

// request sends a problem that vane found with the request (bind,
// validate, resolve): with its field errors' messages replaced and
// through the hook, when they are set.
func (c *errorConfig) request(w http.ResponseWriter, req *http.Request, p *problem.Details) {
	if c.messages != nil && len(p.Errors) > 0 {
		errs := make([]problem.FieldError, len(p.Errors))
		for i, e := range p.Errors {
			e.Message = c.messages(req, e)
			errs[i] = e
		}
		q := *p
		q.Errors = errs
		p = &q
	}
	c.send(w, req, p, nil)
}

// send writes p, through the hook when there is one.
func (c *errorConfig) send(w http.ResponseWriter, req *http.Request, p *problem.Details, err error) {
	if c.hook != nil {
		q := *p
		q.Errors = slices.Clone(p.Errors)
		q.Headers = p.Headers.Clone()
		q.Extensions = maps.Clone(p.Extensions)
		p = &q
		c.hook(req, p, err)
	}
	problem.Write(w, p)
}

// handler answers a handler's error: its problem when it is one, its
// status and message when it is a StatusError (the message only below
// 500), otherwise a 500 that keeps the error to the log; with the headers
// of a HeadersError.
func (c *errorConfig) handler(w http.ResponseWriter, req *http.Request, d *operation.Description, err error) {
	var p *problem.Details
	if errors.As(err, &p) {
		if p.StatusCode() >= 500 {
			logHandlerError(req, d, err)
		}
		c.send(w, req, p, err)
		return
	}
	var se StatusError
	if errors.As(err, &se) {
		status := se.StatusCode()
		if status < 400 || status > 599 {
			status = http.StatusInternalServerError
		}
		if status >= 500 {
			logHandlerError(req, d, err)
			p = problem.New(status, http.StatusText(status))
		} else {
			p = problem.New(status, se.Error())
		}
	} else {
		logHandlerError(req, d, err)
		p = problem.New(http.StatusInternalServerError, "the server failed to handle the request")
	}
	var he HeadersError
	if errors.As(err, &he) {
		p.Headers = he.ResponseHeaders()
	}
	c.send(w, req, p, err)
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
		if pt.Description != "" {
			r.Description = pt.Description
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
