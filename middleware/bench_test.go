package middleware_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/vane-http/vane/middleware"
)

// nopWriter is a ResponseWriter that keeps nothing, so that the benchmarks
// count the middleware's own allocations.
type nopWriter struct{ h http.Header }

func (w nopWriter) Header() http.Header       { return w.h }
func (nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (nopWriter) WriteHeader(int)             {}

func benchmarkMiddleware(b *testing.B, mw func(http.Handler) http.Handler, header http.Header) {
	h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	req := httptest.NewRequest("GET", "/pets/1", nil)
	req.Header = header
	w := nopWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}

func BenchmarkRequestIDKept(b *testing.B) {
	benchmarkMiddleware(b, middleware.RequestID, http.Header{"X-Request-Id": {"0f8fad5b-d9cb-469f-a165-70867728950e"}})
}

func BenchmarkRequestIDGenerated(b *testing.B) {
	benchmarkMiddleware(b, middleware.RequestID, http.Header{})
}

func BenchmarkRealIPBehindProxy(b *testing.B) {
	trusted, _ := middleware.ParseTrustedProxies("192.0.2.0/24")
	benchmarkMiddleware(b, middleware.RealIP(middleware.RealIPConfig{TrustedProxies: trusted}),
		http.Header{"X-Forwarded-For": {"203.0.113.7, 192.0.2.9"}})
}

func BenchmarkLogger(b *testing.B) {
	benchmarkMiddleware(b, middleware.Logger(slog.New(slog.DiscardHandler)), http.Header{})
}

func BenchmarkTimeout(b *testing.B) {
	benchmarkMiddleware(b, middleware.Timeout(time.Minute), http.Header{})
}

func BenchmarkThrottle(b *testing.B) {
	benchmarkMiddleware(b, middleware.Throttle(100, 0, time.Second), http.Header{})
}
