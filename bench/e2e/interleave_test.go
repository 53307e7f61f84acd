package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane/bench/report"
)

// serveEnv, when set in the environment, makes the test binary serve the
// service on that address instead of running the tests: the servers of
// TestMeasureInterleaved.
const serveEnv = "VANE_E2E_TEST_SERVE"

func TestMain(m *testing.M) {
	if addr := os.Getenv(serveEnv); addr != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") == "" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			json.NewEncoder(w).Encode(NewItem(r.PathValue("id"), r.URL.Query().Get("verbose") == "true"))
		})
		http.ListenAndServe(addr, mux)
		return
	}
	os.Exit(m.Run())
}

// fakeWrk writes a stand-in for wrk that appends its arguments to log,
// one line a call, and reports the call's number (from 1) times 1,000
// requests a second, with as many requests, an average latency of the
// number in ms and a p99 of 100 ms less the number (so that a server's
// first slice has the largest).
func fakeWrk(t *testing.T, dir, log string) string {
	t.Helper()
	path := filepath.Join(dir, "wrk")
	script := `#!/bin/sh
echo "$*" >> ` + log + `
n=$(wc -l < ` + log + `)
m=$((100 - n))
cat <<EOF
Running 1s test @ fake
    Latency   ${n}.00ms  1.00ms   5.00ms   96.21%
     99%    ${m}.00ms
  ${n}000 requests in 1.00s, 1.00MB read
Requests/sec:  ${n}000.00
Transfer/sec:     ${n}.00MB
EOF
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// The servers of a round run at once; each is warmed up in the round's
// order, then measured in slices taken in turn, the order rotated by one
// each pass; a server's result is its slices together, and its raw file
// holds every slice.
func TestMeasureInterleaved(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	wrk := fakeWrk(t, dir, log)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	server := func(name string) Server {
		return Server{Name: name, Command: func(addr string) []string {
			return []string{"env", serveEnv + "=" + addr, self}
		}}
	}
	order := []Server{server("a"), server("b"), server("c")}
	o := Options{Duration: 3 * time.Second, Warmup: time.Second, Slices: 3, Conns: 10, Threads: 1, ServerCPU: 0, WrkCPU: 0}
	raw := func(name string) string { return filepath.Join(dir, name+".txt") }
	got := measureInterleaved(context.Background(), order, wrk, o, raw, func(string, ...any) {})

	calls, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	ports := map[string]string{} // server's URL -> name, from the warm-ups
	var seq []string
	for i, line := range lines {
		url := line[strings.LastIndex(line, " ")+1:]
		if i < len(order) {
			if strings.Contains(line, "--latency") || !strings.Contains(line, "-d 1s") {
				t.Errorf("warm-up %d: %q", i, line)
			}
			ports[url] = order[i].Name
			continue
		}
		if !strings.Contains(line, "--latency") || !strings.Contains(line, "-d 1s") {
			t.Errorf("slice call %d: %q, want a measurement of 1s", i, line)
		}
		seq = append(seq, ports[url])
	}
	// Passes: a b c, then b c a, then c a b.
	if want := []string{"a", "b", "c", "b", "c", "a", "c", "a", "b"}; !reflect.DeepEqual(seq, want) {
		t.Fatalf("slices in the order %v, want %v", seq, want)
	}
	// Call numbers (warm-ups are 1-3): a 4, 9, 11; b 5, 7, 12; c 6, 8, 10.
	for name, calls := range map[string][]int{"a": {4, 9, 11}, "b": {5, 7, 12}, "c": {6, 8, 10}} {
		r := got[name]
		var sum, weighted float64
		var requests int
		for _, n := range calls {
			sum += float64(n) * 1000
			requests += n * 1000
			weighted += float64(n) * float64(n*1000)
		}
		want := report.E2EResult{Name: name, Status: "ok", Requests: requests, ReqPerSec: sum / 3,
			AvgMs: weighted / float64(requests), P99Ms: float64(100 - calls[0]), TransferMB: sum / 3000}
		if r.Status != "ok" || r.Requests != want.Requests || !near(r.ReqPerSec, want.ReqPerSec) ||
			!near(r.AvgMs, want.AvgMs) || r.P99Ms != want.P99Ms || !near(r.TransferMB, want.TransferMB) {
			t.Errorf("%s: %+v, want %+v", name, r, want)
		}
		b, err := os.ReadFile(raw(name))
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; k <= 3; k++ {
			if !strings.Contains(string(b), fmt.Sprintf("# slice %d of 3\n", k)) {
				t.Errorf("%s's raw file lacks slice %d:\n%s", name, k, b)
			}
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// A server that does not start is failed in its round; the others are
// measured.
func TestMeasureInterleavedServerFails(t *testing.T) {
	dir := t.TempDir()
	wrk := fakeWrk(t, dir, filepath.Join(dir, "calls"))
	self, _ := os.Executable()
	good := Server{Name: "good", Command: func(addr string) []string { return []string{"env", serveEnv + "=" + addr, self} }}
	bad := Server{Name: "bad", Command: func(string) []string { return []string{"false"} }}
	o := Options{Duration: 2 * time.Second, Warmup: time.Second, Slices: 2, Conns: 1, Threads: 1}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // bounds waitReady's 30 s
	defer cancel()
	got := measureInterleaved(ctx, []Server{bad, good}, wrk, o, func(n string) string { return filepath.Join(dir, n) }, func(string, ...any) {})
	if got["bad"].Status != "failed" || !strings.Contains(got["bad"].Reason, "did not answer") {
		t.Errorf("bad: %+v", got["bad"])
	}
	if got["good"].Status != "ok" || got["good"].Requests == 0 {
		t.Errorf("good: %+v", got["good"])
	}
}

func TestSlicesMustBeWholeSeconds(t *testing.T) {
	for _, c := range []struct {
		d      time.Duration
		slices int
	}{{10 * time.Second, 3}, {2 * time.Second, 4}} {
		_, err := Run(Options{Duration: c.d, Slices: c.slices, ServerCPU: 0, WrkCPU: 1, Log: io.Discard})
		if err == nil || (err != ErrNoWrk && !strings.Contains(err.Error(), "whole seconds")) {
			t.Errorf("%s in %d slices: %v", c.d, c.slices, err)
		}
	}
}
