package interop

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/middleware"
)

type GetItem struct {
	ID int64 `path:"id" minimum:"1"`
}

// tracedRoutes registers a plain route and a typed operation on r; the
// typed handler reports whether its context carries the request's span.
func tracedRoutes(r *vane.Router, sawSpan *bool) {
	r.HandleFunc(http.MethodGet, "/pets/{id}", func(w http.ResponseWriter, req *http.Request) { w.Write([]byte("pet")) })
	vane.Get(r, "/items/{id}", func(ctx context.Context, in *GetItem) (*Item, error) {
		*sawSpan = trace.SpanContextFromContext(ctx).IsValid()
		return &Item{ID: in.ID}, nil
	})
}

// otelhttp names each span by the route vane matched, whether it wraps the
// router or is the router's first middleware, with vane's middleware
// (which pass a derived request on) between it and the routes.
func TestOtelhttpNamesSpansByRoute(t *testing.T) {
	for _, placement := range []string{"wrapping the router", "router middleware"} {
		t.Run(placement, func(t *testing.T) {
			spans := tracetest.NewInMemoryExporter()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
			defer tp.Shutdown(context.Background())

			r := vane.New()
			var h http.Handler = r
			if placement == "router middleware" {
				r.Use(otelhttp.NewMiddleware("petstore", otelhttp.WithTracerProvider(tp)))
			} else {
				h = otelhttp.NewHandler(r, "petstore", otelhttp.WithTracerProvider(tp))
			}
			r.Use(middleware.RequestID, middleware.RealIP(middleware.RealIPConfig{}))
			var sawSpan bool
			tracedRoutes(r, &sawSpan)

			for _, path := range []string{"/pets/7", "/items/3", "/items/0", "/nowhere"} {
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
			}
			var got []string
			for _, s := range spans.GetSpans() {
				got = append(got, s.Name)
			}
			want := []string{
				"GET /pets/{id}",
				"GET /items/{id}",
				"GET /items/{id}", // a 422 is still the route's
				"GET",             // no route matched
			}
			if !slices.Equal(got, want) {
				t.Errorf("span names %q, want %q", got, want)
			}
			if !sawSpan {
				t.Error("the typed handler's context does not carry the span")
			}
		})
	}
}

// otelhttp's request-duration metric carries the route as http.route, so
// that a dashboard groups requests by route, not by path.
func TestOtelhttpMetricsByRoute(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	r := vane.New()
	var sawSpan bool
	tracedRoutes(r, &sawSpan)
	h := otelhttp.NewHandler(r, "petstore", otelhttp.WithMeterProvider(mp))
	for _, path := range []string{"/pets/1", "/pets/2", "/items/3"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	counts := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "http.server.request.duration" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				route, _ := dp.Attributes.Value(attribute.Key("http.route"))
				counts[route.AsString()] += dp.Count
			}
		}
	}
	if counts["/pets/{id}"] != 2 || counts["/items/{id}"] != 1 || len(counts) != 2 {
		t.Errorf("request counts by route: %v", counts)
	}
}
