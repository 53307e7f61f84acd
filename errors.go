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

// Error returns a StatusError with status and msg as the problem's detail.
// Each of details that is a problem.FieldError is listed as one; any other
// error adds its message as a field error without a location.
//
//	return nil, vane.Error(http.StatusConflict, "the name is taken",
//		problem.FieldError{Location: "body.name", Message: "already exists", Value: in.Body.Name})
func Error(status int, msg string, details ...error) StatusError {
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
func BadRequest(msg string, details ...error) StatusError {
	return Error(http.StatusBadRequest, msg, details...)
}

// Unauthorized is Error(401, msg, details...).
func Unauthorized(msg string, details ...error) StatusError {
	return Error(http.StatusUnauthorized, msg, details...)
}

// Forbidden is Error(403, msg, details...).
func Forbidden(msg string, details ...error) StatusError {
	return Error(http.StatusForbidden, msg, details...)
}

// NotFound is Error(404, msg, details...).
func NotFound(msg string, details ...error) StatusError {
	return Error(http.StatusNotFound, msg, details...)
}

// Conflict is Error(409, msg, details...).
func Conflict(msg string, details ...error) StatusError {
	return Error(http.StatusConflict, msg, details...)
}

// PreconditionFailed is Error(412, msg, details...).
func PreconditionFailed(msg string, details ...error) StatusError {
	return Error(http.StatusPreconditionFailed, msg, details...)
}

// UnprocessableEntity is Error(422, msg, details...).
func UnprocessableEntity(msg string, details ...error) StatusError {
	return Error(http.StatusUnprocessableEntity, msg, details...)
}

// TooManyRequests is Error(429, msg, details...).
func TooManyRequests(msg string, details ...error) StatusError {
	return Error(http.StatusTooManyRequests, msg, details...)
}

// ServiceUnavailable is Error(503, msg, details...).
func ServiceUnavailable(msg string, details ...error) StatusError {
	return Error(http.StatusServiceUnavailable, msg, details...)
}

// writeError answers a handler's error: its problem when it is one, its
// status and message when it is a StatusError (the message only below 500),
// otherwise a 500 that keeps the error to the log.
func writeError(w http.ResponseWriter, req *http.Request, d *operation.Description, err error) {
	var p *problem.Details
	if errors.As(err, &p) {
		if p.StatusCode() >= 500 {
			logHandlerError(req, d, err)
		}
		problem.Write(w, p)
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
			problem.Write(w, problem.New(status, http.StatusText(status)))
			return
		}
		problem.Write(w, problem.New(status, se.Error()))
		return
	}
	logHandlerError(req, d, err)
	problem.Write(w, problem.New(http.StatusInternalServerError, "the server failed to handle the request"))
}
