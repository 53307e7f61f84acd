package vane

import (
	"errors"
	"net/http"
	"strconv"
	"time"

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

// OutcomeUnknownType is the problem type of OutcomeUnknown's 503.
const OutcomeUnknownType = "https://github.com/vane-http/vane/blob/main/docs/idempotency.md#outcome-unknown"

// Unavailable returns a 503 Service Unavailable problem whose Retry-After
// header tells the client how long to wait before it retries: retryAfter
// in whole seconds, rounded up, at least 1; zero (or a negative
// duration) means problem.DefaultRetryAfter, since every 503 vane writes
// says when to retry. A handler returns it when a dependency it cannot
// do without (a database that is down, unreachable or timing out) fails
// in a way that a retry may cure; clients and load balancers retry a
// 503. The detail msg is shown to the client, as for every problem made
// by Error.
//
// A 503 says the request was not served; it does not say whether the
// request changed anything. msg may say so when the handler knows: a
// failure before the write began changed nothing. When the handler cannot
// know (the database was sent a COMMIT and its answer was lost), it
// returns OutcomeUnknown instead.
//
//	if isConnectionError(err) {
//		return nil, vane.Unavailable(2*time.Second, "the database is unavailable")
//	}
func Unavailable(retryAfter time.Duration, msg string, details ...error) *problem.Details {
	p := Error(http.StatusServiceUnavailable, msg, details...)
	if retryAfter <= 0 {
		return p // problem.Write adds problem.DefaultRetryAfter
	}
	secs := int64((retryAfter + time.Second - 1) / time.Second)
	return p.WithHeader("Retry-After", strconv.FormatInt(secs, 10))
}

// OutcomeUnknown returns a 503 problem, with Retry-After as Unavailable's,
// for a request whose outcome the server does not know: its write was
// sent to the database, and the answer never came (the connection broke
// after a COMMIT was sent), so the write may have been made or not. Its
// type is OutcomeUnknownType and its title "Outcome Unknown", so that a
// client can tell it from a 503 that changed nothing: it retries with the
// same Idempotency-Key to get the outcome (see Idempotent), or reads the
// resource, and never takes the write as not made. The detail msg is shown
// to the client.
//
//	if errors.Is(err, errCommitReplyLost) {
//		return nil, vane.OutcomeUnknown(2*time.Second, "the database's answer to the write was lost")
//	}
func OutcomeUnknown(retryAfter time.Duration, msg string, details ...error) *problem.Details {
	p := Unavailable(retryAfter, msg, details...)
	p.Type, p.Title = OutcomeUnknownType, "Outcome Unknown"
	return p
}
