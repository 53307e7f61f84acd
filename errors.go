package vane

import (
	"errors"
	"net/http"

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

// Error returns a problem (a StatusError) with status and msg as its
// detail. Each of details that is a problem.FieldError is listed as one;
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

// ServiceUnavailable is Error(503, msg, details...).
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
// operation's own copy only if the hook copies it, so change a shared
// problem value (a package-level one a handler returns) only in a copy.
func ErrorHook(fn func(req *http.Request, p *problem.Details) *problem.Details) Option {
	return Option{api: func(a *api) { a.errorHook = fn }}
}
