package middleware

import "net/http"

// serveDerived serves r2, a request derived from r (r.WithContext), with
// next, then copies the route pattern the router set on r2 back to r, so
// that middleware outside this one (Logger, otelhttp) see the matched
// route as they would if r had been passed on unchanged. The copy is
// deferred so that it happens when next panics too.
func serveDerived(next http.Handler, w http.ResponseWriter, r, r2 *http.Request) {
	defer copyPattern(r, r2)
	next.ServeHTTP(w, r2)
}

// copyPattern sets r.Pattern from r2 unless r already has one (the router
// ran before this middleware). Both requests belong to the goroutine
// serving r at the time of the call.
func copyPattern(r, r2 *http.Request) {
	if r.Pattern == "" {
		r.Pattern = r2.Pattern
	}
}
