package e2e

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A wrk 4 report, as printed with --latency.
const wrkOutput = `Running 10s test @ http://127.0.0.1:40123/items/123?verbose=true
  2 threads and 10 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   118.42us  101.92us   5.00ms   96.21%
    Req/Sec     8.65k   411.81    11.28k    84.23%
  Latency Distribution
     50%  101.00us
     75%  130.00us
     90%  180.00us
     99%    1.20ms
  867478 requests in 10.10s, 150.57MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 4
Requests/sec:  85892.15
Transfer/sec:     14.91MB
`

func TestParseWrk(t *testing.T) {
	r, err := ParseWrk(wrkOutput)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"requests/s", r.ReqPerSec, 85892.15},
		{"requests", float64(r.Requests), 867478},
		{"errors: socket and non-2xx", float64(r.Errors), 7},
		{"average latency in ms", float64(int(r.AvgMs*1e5)) / 1e5, 0.11842},
		{"p99 in ms", r.P99Ms, 1.2},
		{"transfer in MB/s", r.TransferMB, 14.91},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("%v, want %v", c.got, c.want)
			}
		})
	}
	if _, err := ParseWrk("connection refused"); err == nil {
		t.Error("no error for output without a result")
	}
}

// FastAPI runs when its environment exists, on one worker; when it does
// not, it is named absent with how to get it, and nothing is installed.
func TestServersFastAPI(t *testing.T) {
	venv := t.TempDir()
	find := func() Server {
		for _, s := range Servers("/bin/serve", venv) {
			if s.Name == "fastapi" {
				return s
			}
		}
		t.Fatal("no fastapi server")
		return Server{}
	}
	if s := find(); !strings.Contains(s.Absent, "run bench/setup") {
		t.Errorf("absent FastAPI: %q", s.Absent)
	}
	if _, err := os.Stat(filepath.Join(venv, "bin")); err == nil {
		t.Error("looking for FastAPI created its environment")
	}
	os.MkdirAll(filepath.Join(venv, "bin"), 0o755)
	os.WriteFile(filepath.Join(venv, "bin", "uvicorn"), nil, 0o755)
	s := find()
	if s.Absent != "" {
		t.Errorf("present FastAPI is absent: %q", s.Absent)
	}
	if cmd := strings.Join(s.Command("127.0.0.1:8000"), " "); !strings.Contains(cmd, "--workers 1") || !strings.Contains(cmd, "--port 8000") {
		t.Errorf("command %q", cmd)
	}
}

func TestPinnedCommands(t *testing.T) {
	if got := strings.Join(pinned(1, "wrk", "-t", "1"), " "); got != "taskset -c 1 wrk -t 1" {
		t.Errorf("pinned = %q", got)
	}
	o := Options{Threads: 1, Conns: 10}
	got := strings.Join(wrkArgs(o, 10*time.Second, true, "http://127.0.0.1:1/x"), " ")
	if got != "-t 1 -c 10 -d 10s --timeout 2s -H Authorization: bearer 123 --latency http://127.0.0.1:1/x" {
		t.Errorf("wrk args = %q", got)
	}
	if _, err := Run(Options{ServerCPU: 0, WrkCPU: 0, Log: io.Discard}); err == nil || (err != ErrNoWrk && !strings.Contains(err.Error(), "different CPUs")) {
		t.Errorf("the servers and wrk on one CPU: %v", err)
	}
}
