package vane

import (
	"net/http"
	"strconv"
	"time"

	"github.com/vane-http/vane/problem"
)

// Unavailable returns a 503 Service Unavailable problem whose Retry-After
// header tells the client how long to wait before it retries: retryAfter
// in whole seconds, rounded up, at least 1. A handler returns it when a
// dependency it cannot do without (a database that is down, unreachable
// or timing out) fails in a way that a retry may cure; clients and load
// balancers retry a 503, and nothing was changed. The detail msg is shown
// to the client, as for every problem made by Error.
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
