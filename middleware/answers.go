package middleware

import (
	"net/http"
	"slices"
)

// Answer is a response that a middleware sends of its own accord, instead
// of the handler behind it: for the OpenAPI document of the operations
// behind it. A vane router reads the answers of the middleware it is
// given (Use, vane.Middleware) with Answers and documents them on every
// typed operation registered behind it.
type Answer struct {
	Status      int               // an error status: 400 to 599
	Description string            // when it is sent
	Headers     map[string]string // headers sent with it, by name, and what they say
}

// An Answerer is a handler, made by a middleware around the next one,
// that says what the middleware answers of its own accord. Timeout and
// Throttle return one; Answering makes one of any handler.
type Answerer interface {
	http.Handler
	Answers() []Answer
}

// Answers returns the answers that the middleware mw declares: it calls
// mw once, on a handler that is never served, and returns the Answers of
// the handler mw makes when that is an Answerer, or nil. The answers come
// with the handler, not with the function mw is: a constructor of one's
// own that returns Timeout's middleware, or a middleware that calls
// Timeout's on next and returns what it makes, declares Timeout's 503 as
// Timeout does. A middleware that wraps an Answerer in a handler of its
// own declares nothing, unless that handler is an Answerer too.
func Answers(mw func(http.Handler) http.Handler) []Answer {
	if mw == nil {
		return nil
	}
	if a, ok := mw(unserved).(Answerer); ok {
		return a.Answers()
	}
	return nil
}

// unserved is the handler Answers gives a middleware to wrap.
var unserved = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	http.Error(w, "middleware.Answers' handler is not for serving", http.StatusInternalServerError)
})

// Answering returns h, which a middleware of one's own makes around the
// next handler, as an Answerer of answers, so that a vane router
// documents what the middleware sends of its own accord:
//
//	func RequireToken(next http.Handler) http.Handler {
//		return middleware.Answering(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
//			…
//		}), middleware.Answer{Status: 401, Description: "No valid token."})
//	}
//
// Serving through it costs one call more than serving h. In an
// application, giving vane.Problems where the middleware is added says
// the same without it.
func Answering(h http.Handler, answers ...Answer) Answerer {
	return &answering{Handler: h, answers: slices.Clone(answers)}
}

type answering struct {
	http.Handler
	answers []Answer
}

func (a *answering) Answers() []Answer { return slices.Clone(a.answers) }

// retryAfterAnswer documents the Retry-After header of a 503.
var retryAfterAnswer = map[string]string{"Retry-After": "Seconds to wait before retrying."}

// The answers of this package's middleware that answer of their own
// accord.
var (
	timeoutAnswers = []Answer{{Status: http.StatusServiceUnavailable,
		Description: "Service Unavailable: the operation did not answer within the server's time limit; retry after the Retry-After header's seconds.",
		Headers:     retryAfterAnswer}}
	throttleAnswers = []Answer{{Status: http.StatusServiceUnavailable,
		Description: "Service Unavailable: the server is busy; retry after the Retry-After header's seconds.",
		Headers:     retryAfterAnswer}}
)
