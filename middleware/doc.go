// Package middleware holds vane's standard middleware. Each is a plain
// func(http.Handler) http.Handler in its own file, usable with vane's
// router, net/http.ServeMux or any other router, and the package imports
// nothing outside the standard library and vane.
//
//   - [RequestID]: an ID for every request, from X-Request-Id when it is
//     well-formed or generated, echoed in the response and kept in the
//     context ([RequestIDFrom]).
//   - [RealIP]: the client's address behind trusted proxies ([ClientIP]);
//     forwarding headers are believed only from proxies you name.
//   - [Logger]: one log/slog record per request: method, route, path,
//     status, bytes, duration, request ID and client.
//   - [Timeout]: a deadline on the handler; 503 with a problem body and
//     Retry-After when it passes, and the request's context cancelled.
//   - [Throttle]: a bound on the requests that run at once.
//   - [Recoverer]: a panic becomes a 500 problem response and a log record
//     (vane.Server installs it on every server).
//
// A service usually installs them in this order, outermost first, on the
// root router (before routing), with Timeout after routing on a group so
// that it does not apply to health checks and the log sees the route of a
// request that timed out:
//
//	r := vane.New()
//	r.Use(middleware.RequestID, middleware.RealIP(cfg), middleware.Logger(logger))
//	api := r.Group("", vane.Middleware(middleware.Timeout(10*time.Second)))
//
// The route a [Logger] logs is the request's Pattern, which the router sets
// on the request it is given. Middleware that pass a derived request on
// (r.WithContext) hide it from those outside them, unless they copy it
// back when the handler returns, as RequestID, RealIP and Timeout do.
// otelhttp reads the Pattern the same way.
//
// docs/design/middleware.md says which middleware vane provides and why, and shows
// CORS (github.com/rs/cors) and compression
// (github.com/klauspost/compress/gzhttp) with vane.
package middleware
