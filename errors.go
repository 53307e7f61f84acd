package vane

import (
	"errors"
	"maps"
	"net/http"
	"slices"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
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
// error of the 422 problems vane answers for input that failed binding,
// validation or a resolver, so that messages can be reworded or
// translated (by the request's Accept-Language, say). It is given the
// request and the field error with vane's own message, and returns the
// message to send; returning e.Message keeps it. Field errors that a
// handler returns are its own and are not passed to fn.
func ValidationMessages(fn func(req *http.Request, e problem.FieldError) string) Option {
	return Option{api: func(a *api) { a.errors.messages = fn }}
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
