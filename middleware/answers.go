package middleware

import (
	"net/http"
	"reflect"
	"sync"
	"time"
)

// Answer is a response that a middleware sends of its own accord, instead
// of the handler behind it: for the OpenAPI document of the operations
// behind it. A vane router reads the answers of the middleware it is
// given (Use, Group) with Answers and documents them on every typed
// operation registered behind it.
type Answer struct {
	Status      int               // an error status: 400 to 599
	Description string            // when it is sent
	Headers     map[string]string // headers sent with it, by name, and what they say
}

// answers maps the code of a middleware (as reflect's Pointer gives it,
// shared by every value one constructor returns) to its answers.
var answers sync.Map

// Declare records that the middleware that mw's constructor returns
// answers with the given responses of its own, so that a vane router
// documents them behind it. Every value that the constructor of mw
// returns shares its code, so declaring one value declares them all;
// call it once, from an init function, and mark the constructor
// //go:noinline (an inlined constructor gets a copy of the code):
//
//	func init() { middleware.Declare(RequireToken(nil), middleware.Answer{Status: 401, …}) }
//
// A middleware that is a plain function (not made by a constructor) is
// declared as it is.
func Declare(mw func(http.Handler) http.Handler, a ...Answer) {
	if mw != nil {
		answers.Store(reflect.ValueOf(mw).Pointer(), a)
	}
}

// Answers returns what mw declared with Declare, or nil.
func Answers(mw func(http.Handler) http.Handler) []Answer {
	if mw == nil {
		return nil
	}
	a, _ := answers.Load(reflect.ValueOf(mw).Pointer())
	list, _ := a.([]Answer)
	return list
}

// This package's middleware that answer of their own accord.
func init() {
	Declare(Timeout(time.Second), Answer{Status: http.StatusServiceUnavailable,
		Description: "Service Unavailable: the operation did not answer within the server's time limit; retry after the Retry-After header's seconds.",
		Headers:     map[string]string{"Retry-After": "Seconds to wait before retrying."}})
	Declare(Throttle(1, 0, 0), Answer{Status: http.StatusServiceUnavailable,
		Description: "Service Unavailable: the server is busy; retry after the Retry-After header's seconds.",
		Headers:     map[string]string{"Retry-After": "Seconds to wait before retrying."}})
}
