package router

import (
	"fmt"
	"net/http"
)

// A layer is one middleware, in the standard form (Use) or over
// http.HandlerFunc (UseFunc): exactly one of std and fn is set.
type layer struct {
	std func(http.Handler) http.Handler
	fn  func(http.HandlerFunc) http.HandlerFunc
}

// stdLayers returns mw as layers.
func stdLayers(mw []func(http.Handler) http.Handler) []layer {
	ls := make([]layer, len(mw))
	for i, m := range mw {
		ls[i] = layer{std: m}
	}
	return ls
}

// chain wraps h in ls, the first outermost. It panics if a layer returns
// nil.
func chain(ls []layer, h http.Handler) http.Handler {
	for i := len(ls) - 1; i >= 0; i-- {
		if l := ls[i]; l.fn != nil {
			h = l.fn(asFunc(h))
		} else {
			h = l.std(h)
		}
		if f, ok := h.(http.HandlerFunc); h == nil || ok && f == nil {
			panic(fmt.Sprintf("vane: middleware %d of %d returned a nil handler", i, len(ls)))
		}
	}
	return h
}

// asFunc returns h as a func: h itself when it is an http.HandlerFunc,
// else its ServeHTTP method.
func asFunc(h http.Handler) http.HandlerFunc {
	if f, ok := h.(http.HandlerFunc); ok {
		return f
	}
	return h.ServeHTTP
}
