package fast

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/netip"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/internal/syncbuf"
	"github.com/vane-http/vane/middleware"
)

// vane's own middleware on both engines: the same answers and the same
// log records, with the routes behind them served natively on the fast
// engine (TestMiddlewareRoutesAreNative).

type whoOut struct {
	RequestID string `json:"request_id"`
	Client    string `json:"client"`
}

type sleepIn struct {
	MS int `query:"ms"`
}

func middlewareRouter(logger *slog.Logger, entered, gate chan struct{}) *vane.Router {
	trusted, _ := middleware.ParseTrustedProxies("127.0.0.0/8")
	r := vane.New()
	r.Use(middleware.RequestID, middleware.RealIP(middleware.RealIPConfig{TrustedProxies: trusted}), middleware.Logger(logger))
	vane.Get(r, "/who/{name}", func(ctx context.Context, in *struct {
		Name string `path:"name"`
	}) (*whoOut, error) {
		return &whoOut{RequestID: middleware.RequestIDFrom(ctx), Client: middleware.ClientIPFrom(ctx).String()}, nil
	})
	vane.Get(r, "/boom", func(ctx context.Context, in *struct{}) (*whoOut, error) { panic("boom") })
	slow := r.Group("/s", vane.Middleware(middleware.Timeout(200*time.Millisecond)))
	vane.Get(slow, "/slow", func(ctx context.Context, in *sleepIn) (*whoOut, error) {
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &whoOut{RequestID: "late"}, nil
	})
	one := r.Group("/t", vane.Middleware(middleware.Throttle(1, 0, 0)))
	vane.Get(one, "/one", func(ctx context.Context, in *struct{}) (*whoOut, error) {
		entered <- struct{}{}
		<-gate
		return &whoOut{}, nil
	})
	return r
}

func TestMiddlewareRoutesAreNative(t *testing.T) {
	for _, rt := range Routes(middlewareRouter(nil, nil, nil)) {
		if !rt.Native {
			t.Errorf("%s %s: %s", rt.Method, rt.Pattern, rt.Reason)
		}
	}
}

// record is a Logger record, without its duration.
type record map[string]any

func records(t *testing.T, b *syncbuf.Buffer) []record {
	var out []record
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if r["msg"] != "request" && r["msg"] != "panic serving request" {
			continue
		}
		delete(r, "time")
		delete(r, "duration")
		if s, ok := r["stack"].(string); ok {
			r["stack"] = strings.Contains(s, "goroutine") // a stack, whatever its frames
		}
		out = append(out, r)
	}
	return out
}

func TestMiddlewareOnBothEngines(t *testing.T) {
	type result struct {
		answers []answer
		records []record
	}
	results := map[string]result{}
	for _, eng := range engines {
		var logs syncbuf.Buffer
		entered, gate := make(chan struct{}), make(chan struct{})
		logger := slog.New(slog.NewJSONHandler(&logs, nil))
		addr := serveOn(t, eng, middlewareRouter(logger, entered, gate), func(s *vane.Server) { s.Logger = logger })
		var res result
		for _, raw := range []string{
			req("GET", "/who/me", "", "X-Request-Id: abc-123", "X-Forwarded-For: 203.0.113.9, 127.0.0.1"),
			req("GET", "/who/me", "", "X-Request-Id: "+strings.Repeat("x", 200)), // not kept: a new one
			req("GET", "/boom", "", "X-Request-Id: boom-1"),
			req("GET", "/s/slow?ms=10", "", "X-Request-Id: fast-enough"),
			req("GET", "/s/slow?ms=5000", "", "X-Request-Id: too-slow"),
		} {
			res.answers = append(res.answers, exchange(t, addr, raw, 1)...)
		}
		// Throttle(1, 0, 0): while one request holds the slot, another
		// is a 503.
		var wg sync.WaitGroup
		wg.Add(1)
		var held []answer
		go func() { defer wg.Done(); held = exchange(t, addr, req("GET", "/t/one", "", "X-Request-Id: holder"), 1) }()
		select {
		case <-entered:
		case <-time.After(patience):
			t.Fatal("the holder did not arrive")
		}
		busy := exchange(t, addr, req("GET", "/t/one", "", "X-Request-Id: refused"), 1)
		close(gate)
		wg.Wait()
		res.answers = append(res.answers, busy...)
		res.answers = append(res.answers, held...)
		// Timeout's late handler logs nothing more; the records are
		// complete once every answer is in.
		res.records = records(t, &logs)
		results[eng] = res
	}
	a, b := results["net/http"], results["fast"]
	if len(a.answers) != len(b.answers) {
		t.Fatalf("answers: %d and %d", len(a.answers), len(b.answers))
	}
	for i := range a.answers {
		x, y := a.answers[i].comparable(), b.answers[i].comparable()
		if i == 1 { // a request ID of 26 random characters, each its own
			for _, h := range []http.Header{x.header, y.header} {
				if id := h.Get("X-Request-Id"); len(id) != 26 {
					t.Errorf("a new request ID: %q", id)
				}
				h.Del("X-Request-Id")
			}
			x.body, y.body = "", ""
		}
		if !reflect.DeepEqual(x, y) {
			t.Errorf("answer %d:\nnet/http %v\nfast     %v", i, x, y)
		}
	}
	norm := func(rs []record) []record {
		var out []record
		for _, r := range rs {
			if id, _ := r["request_id"].(string); len(id) == 26 {
				r["request_id"] = "new"
			}
			out = append(out, r)
		}
		return out
	}
	ra, rb := norm(a.records), norm(b.records)
	sortRecords(ra)
	sortRecords(rb)
	if !reflect.DeepEqual(ra, rb) {
		t.Errorf("records differ:\nnet/http %v\nfast     %v", ra, rb)
	}
	if len(ra) < 7 {
		t.Errorf("only %d records: %v", len(ra), ra)
	}
	// What the records say.
	var sawPanic, sawTimeout, sawClient bool
	for _, r := range rb {
		sawPanic = sawPanic || r["panic"] == true && r["status"] == float64(500)
		sawTimeout = sawTimeout || r["request_id"] == "too-slow" && r["status"] == float64(503)
		sawClient = sawClient || r["request_id"] == "abc-123" && r["client"] == "203.0.113.9"
	}
	if !sawPanic || !sawTimeout || !sawClient {
		t.Errorf("records: panic %v, timeout %v, client %v: %v", sawPanic, sawTimeout, sawClient, rb)
	}
	if ip, _ := netip.ParseAddr("203.0.113.9"); !strings.Contains(b.answers[0].body, ip.String()) {
		t.Errorf("the handler's ClientIPFrom: %s", b.answers[0].body)
	}
}

// sortRecords orders records by their JSON: the two engines log the
// records of concurrent requests in either order.
func sortRecords(rs []record) {
	key := func(r record) string {
		b, _ := json.Marshal(r)
		return string(b)
	}
	sort.Slice(rs, func(i, j int) bool { return key(rs[i]) < key(rs[j]) })
}
