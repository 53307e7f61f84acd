// Package interop holds the tests that show vane with the libraries its
// users add for what vane does not write itself: CORS
// (github.com/rs/cors), compression (github.com/klauspost/compress/gzhttp)
// and OpenTelemetry tracing and metrics
// (go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp).
// docs/design/middleware.md shows the same code.
package interop
