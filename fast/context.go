package fast

import (
	"context"
)

// newContext returns a request's context: base's values, cancelled by
// cancel (when the handler returns), new for each request and never
// reused, so that a handler may keep it, or context.WithoutCancel of it,
// as long as it likes.
func newContext(base context.Context) (context.Context, context.CancelFunc) {
	return context.WithCancel(base)
}
