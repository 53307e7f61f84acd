package interop

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/vane-http/vane"
)

// The README's metrics section: otelhttp measures every request, labelled
// by route, and a Prometheus exporter serves the measures at /metrics.
func TestPrometheusMetricsByRoute(t *testing.T) {
	registry := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(registry))
	if err != nil {
		t.Fatal(err)
	}
	meters := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))

	r := vane.New()
	r.Use(otelhttp.NewMiddleware("petstore", otelhttp.WithMeterProvider(meters)))
	r.HandleFunc(http.MethodGet, "/pets/{id}", func(w http.ResponseWriter, req *http.Request) { w.Write([]byte("pet")) })
	r.Handle("GET", "/metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))

	for _, path := range []string{"/pets/1", "/pets/2", "/pets/3"} {
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(w.Body)
	count := regexp.MustCompile(`(?m)^http_server_request_duration_seconds_count\{[^}]*http_route="/pets/\{id\}"[^}]*\} 3$`)
	if w.Code != 200 || !count.Match(body) {
		t.Errorf("/metrics: %d; no count of 3 for route /pets/{id} in:\n%s", w.Code, body)
	}
}
