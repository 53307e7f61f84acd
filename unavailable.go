package vane

import (
	"net/http"
	"strconv"
	"time"

	"github.com/vane-http/vane/problem"
)

// OutcomeUnknownType is the problem type of OutcomeUnknown's 503.
const OutcomeUnknownType = "https://github.com/vane-http/vane/blob/main/docs/idempotency.md#outcome-unknown"

// Unavailable returns a 503 Service Unavailable problem whose Retry-After
// header tells the client how long to wait before it retries: retryAfter
// in whole seconds, rounded up, at least 1. A handler returns it when a
// dependency it cannot do without (a database that is down, unreachable
// or timing out) fails in a way that a retry may cure; clients and load
// balancers retry a 503. The detail msg is shown to the client, as for
// every problem made by Error.
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
	secs := int64((retryAfter + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	return Error(http.StatusServiceUnavailable, msg, details...).WithHeader("Retry-After", strconv.FormatInt(secs, 10))
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
