// Package fast serves vane's routers on fasthttp (github.com/valyala/fasthttp),
// opt in, for services that want fasthttp's rate: the same vane.Server
// (its limits, timeouts, drain and shutdown) and the same registration,
// served by another engine.
//
//	srv := &vane.Server{Addr: ":8080", Handler: r}
//	err := fast.ListenAndServe(ctx, srv) // instead of srv.ListenAndServe(ctx)
//
// A typed operation whose middleware all have engine forms (vane's own:
// RequestID, RealIP, Logger, Timeout, Throttle, Recoverer) is served
// natively: its input is bound from fasthttp's request and its answer
// written into fasthttp's response, without an *http.Request. Everything
// else (plain net/http middleware and handlers, Mount, the docs pages,
// event streams, MergePatch, operations that take idempotency keys) is
// served by the router's ServeHTTP through an adapter, as on net/http.
// Routes says which is which; Strict refuses to start with any adapted.
//
// A handler may keep what it is given, as on net/http: its input's
// strings, body and path parameters, and its context, stay valid after
// it returns. The engine speaks HTTP/1.1 and 1.0, without TLS.
// docs/guide/fast-engine.md says what differs from net/http, and what
// each path costs.
package fast
