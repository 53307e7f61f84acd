// Package e2e runs the end-to-end workload: in each of several rounds,
// each implementation of the service serves on 127.0.0.1 in turn, is
// checked to answer correctly, warmed up, and loaded by wrk for a fixed
// time; then it is stopped. The server runs on one CPU and wrk on another
// (taskset), so that the load generator never competes with the server.
// The order is rotated each round (report.RoundOrder); the report pairs
// the rounds into ratios. Only loopback addresses are used, every run is
// bounded in time, and every server is stopped at the end, whatever
// happens. Nothing here installs anything: wrk and FastAPI's environment
// come from bench/setup, and a missing one is named with how to get it.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vane-http/vane/bench/report"
)

// Options bound the run.
type Options struct {
	Dir              string // where raw wrk output is kept
	Stamp            string // names the run's files (a UTC time stamp)
	Duration, Warmup time.Duration
	Conns, Threads   int
	Rounds           int      // every server measured once per round; 1 when < 1
	ServerCPU        int      // the CPU every server runs on
	WrkCPU           int      // the CPU wrk runs on
	Venv             string   // FastAPI's Python environment (made by bench/setup)
	Only             []string // implementations to run (net/http or net-http); all when empty
	Log              io.Writer
}

// Server is one implementation of the service.
type Server struct {
	Name    string
	Absent  string                     // why it cannot run here ("" when it can): a tool not installed
	Command func(addr string) []string // the command that serves on addr
}

// Servers lists the implementations in report order. serveBin is the
// built cmd/serve; venv the Python environment holding FastAPI.
func Servers(serveBin, venv string) []Server {
	goServer := func(impl string) func(string) []string {
		return func(addr string) []string { return []string{serveBin, "-impl", impl, "-addr", addr} }
	}
	list := []Server{
		{Name: "net/http", Command: goServer("net/http")},
		{Name: "vane", Command: goServer("vane")},
		{Name: "vane-fast", Command: goServer("vane-fast")},
		{Name: "vane-router", Command: goServer("vane-router")},
		{Name: "gin", Command: goServer("gin")},
		{Name: "echo", Command: goServer("echo")},
		{Name: "chi", Command: goServer("chi")},
		{Name: "huma", Command: goServer("huma")},
		{Name: "humafiber", Command: goServer("humafiber")},
		{Name: "fiber", Command: goServer("fiber")},
	}
	uvicorn := filepath.Join(venv, "bin", "uvicorn")
	fastapi := Server{Name: "fastapi", Command: func(addr string) []string {
		host, port, _ := net.SplitHostPort(addr)
		// One worker: the server has one CPU.
		return []string{uvicorn, "--app-dir", "e2e/fastapi", "main:app",
			"--host", host, "--port", port, "--workers", "1", "--no-access-log", "--log-level", "warning"}
	}}
	if _, err := os.Stat(uvicorn); err != nil {
		fastapi.Absent = fmt.Sprintf("FastAPI is not installed in %s: run bench/setup (make bench-e2e runs it)", venv)
	}
	return append(list, fastapi)
}

// ErrNoWrk is returned when wrk is not installed.
var ErrNoWrk = errors.New("wrk is not installed: run bench/setup (make bench-e2e runs it) or scripts/setup, which install Debian's package (apt-get install wrk)")

// pinned is argv run on cpu alone.
func pinned(cpu int, argv ...string) []string {
	return append([]string{"taskset", "-c", strconv.Itoa(cpu)}, argv...)
}

// Run measures every server in turn, o.Rounds times: each server on
// o.ServerCPU alone (Go servers with GOMAXPROCS=1), wrk on o.WrkCPU alone.
func Run(o Options) (*report.E2E, error) {
	if o.Rounds < 1 {
		o.Rounds = 1
	}
	if o.Stamp == "" {
		o.Stamp = time.Now().UTC().Format("20060102-150405")
	}
	logf := func(format string, args ...any) { fmt.Fprintf(o.Log, "e2e: "+format+"\n", args...) }
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		return nil, ErrNoWrk
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		return nil, errors.New("taskset is not installed: servers and wrk run pinned to their CPUs with it (Debian package util-linux)")
	}
	if o.ServerCPU == o.WrkCPU {
		return nil, fmt.Errorf("the servers and wrk must run on different CPUs (both %d)", o.ServerCPU)
	}
	if err := os.MkdirAll("bin", 0o755); err != nil {
		return nil, err
	}
	serveBin, _ := filepath.Abs(filepath.Join("bin", "serve"))
	logf("building cmd/serve")
	if out, err := exec.Command("go", "build", "-o", serveBin, "./cmd/serve").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building cmd/serve: %v\n%s", err, out)
	}

	res := &report.E2E{
		Date:          time.Now().UTC().Format("2006-01-02 15:04"),
		Stamp:         o.Stamp,
		Tool:          wrkVersion(wrk),
		ServerCommand: strings.Join(pinned(o.ServerCPU, "env", "GOMAXPROCS=1", "bin/serve", "-impl", "NAME", "-addr", "127.0.0.1:PORT"), " "),
		Command:       strings.Join(pinned(o.WrkCPU, append([]string{"wrk"}, wrkArgs(o, o.Duration, true, "http://127.0.0.1:PORT"+Path)...)...), " "),
		Pinning:       fmt.Sprintf("Each server ran on CPU %d alone, Go servers with GOMAXPROCS=1 (FastAPI: one uvicorn worker), and wrk on CPU %d alone, so that the load generator never takes the server's CPU", o.ServerCPU, o.WrkCPU),
		Warmup:        o.Warmup.String(),
		Duration:      o.Duration.String(),
		Threads:       o.Threads,
		Conns:         o.Conns,
		Rounds:        o.Rounds,
	}
	res.Command = strings.Replace(res.Command, "-H Authorization: "+Auth, "-H 'Authorization: "+Auth+"'", 1)
	// An interrupt stops the server being measured (it runs in its own
	// process group, out of the terminal's reach) before the run ends.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	// Servers that cannot run get their status now; the others are
	// measured once per round, the order rotated each round.
	var (
		servers  []Server
		fixed    = map[string]report.E2EResult{}
		runnable []string
		byName   = map[string]Server{}
	)
	for _, s := range Servers(serveBin, o.Venv) {
		if len(o.Only) > 0 && !contains(o.Only, s.Name) && !contains(o.Only, safe(s.Name)) {
			continue
		}
		servers = append(servers, s)
		if s.Absent != "" {
			logf("%s: %s", s.Name, s.Absent)
			fixed[s.Name] = report.E2EResult{Name: s.Name, Status: report.StateAbsent, Reason: s.Absent}
			continue
		}
		runnable = append(runnable, s.Name)
		byName[s.Name] = s
	}
	var notes []string
	if contains(runnable, "fastapi") {
		out, _ := exec.Command(filepath.Join(o.Venv, "bin", "python"), "-c",
			"import fastapi, uvicorn; print('FastAPI %s and uvicorn %s (one worker)' % (fastapi.__version__, uvicorn.__version__))").Output()
		notes = append(notes, strings.TrimSpace(string(out)))
	}
	if contains(runnable, "fiber") {
		notes = append(notes, "fiber v3 on its own fasthttp server")
	}
	if contains(runnable, "humafiber") {
		notes = append(notes, "humafiber: Huma's fiber adapter, on fiber v2 (the fiber its adapter is built for)")
	}
	if contains(runnable, "vane-fast") {
		notes = append(notes, "vane-fast: the same typed service as vane, served by vane's fast engine (module github.com/vane-http/vane/fast, on fasthttp) with vane.Server's defaults, the operation served natively (fast.Strict)")
	}
	if len(notes) > 0 {
		res.Versions = strings.Join(notes, "; ") + "."
	}
	per := time.Duration(o.Rounds*len(runnable)) * (o.Warmup + o.Duration + 2*time.Second)
	logf("%d rounds of %d servers. A guess made before measuring anything: about %s (warm-up + duration + 2 s of start and check per server); each round's end gives an estimate from the times measured.", o.Rounds, len(runnable), per.Round(time.Second))
	rounds := map[string][]report.E2ERound{}
	started := time.Now()
	for round := 0; round < o.Rounds; round++ {
		order := report.RoundOrder(runnable, round, o.Rounds)
		res.Orders = append(res.Orders, order)
		logf("round %d/%d: %s", round+1, o.Rounds, strings.Join(order, ", "))
		for pos, name := range order {
			if ctx.Err() != nil {
				return res, errors.New("interrupted: every server stopped")
			}
			s := byName[name]
			raw := filepath.Join(o.Dir, fmt.Sprintf("e2e-%s-r%d-%s.txt", o.Stamp, round+1, safe(name)))
			logf("round %d/%d, %s: starting", round+1, o.Rounds, name)
			m := measure(ctx, s, wrk, o, raw, logf)
			x := report.E2ERound{Round: round + 1, Position: pos + 1, Status: m.Status, Reason: m.Reason,
				Requests: m.Requests, ReqPerSec: m.ReqPerSec, AvgMs: m.AvgMs, P99Ms: m.P99Ms,
				TransferMB: m.TransferMB, Errors: m.Errors}
			if _, err := os.Stat(raw); err == nil {
				x.RawFile = filepath.ToSlash(raw)
			}
			if x.Status == "ok" {
				logf("round %d/%d, %s: %.0f req/s, avg %.3f ms, p99 %.3f ms, %d errors", round+1, o.Rounds, name, x.ReqPerSec, x.AvgMs, x.P99Ms, x.Errors)
			} else {
				logf("round %d/%d, %s: %s: %s", round+1, o.Rounds, name, x.Status, x.Reason)
			}
			rounds[name] = append(rounds[name], x)
		}
		if ctx.Err() != nil {
			return res, errors.New("interrupted: every server stopped")
		}
		took := time.Since(started)
		left := took / time.Duration(round+1) * time.Duration(o.Rounds-round-1)
		logf("round %d/%d done after %s; about %s left (from the rounds measured)", round+1, o.Rounds, took.Round(time.Second), left.Round(time.Second))
	}
	for _, s := range servers {
		r, ok := fixed[s.Name]
		if !ok {
			r = report.AggregateE2E(s.Name, rounds[s.Name])
		}
		if r.Status == "ok" {
			st := r.Stat()
			logf("%s: median %.0f req/s (%.0f–%.0f over %d rounds), avg %.3f ms, p99 %.3f ms, %d errors", s.Name, st.Median, st.Min, st.Max, st.N, r.AvgMs, r.P99Ms, r.Errors)
		} else {
			logf("%s: %s: %s", s.Name, r.Status, r.Reason)
		}
		res.Results = append(res.Results, r)
	}
	return res, nil
}

// wrkArgs are wrk's arguments for one pass of d against url.
func wrkArgs(o Options, d time.Duration, latency bool, url string) []string {
	a := []string{"-t", strconv.Itoa(o.Threads), "-c", strconv.Itoa(o.Conns), "-d", fmt.Sprintf("%ds", int(d.Seconds())), "--timeout", "2s", "-H", "Authorization: " + Auth}
	if latency {
		a = append(a, "--latency")
	}
	return append(a, url)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func safe(name string) string { return strings.NewReplacer("/", "-", " ", "-").Replace(name) }

// measure runs one server: start, check, warm up, load, stop.
func measure(ctx context.Context, s Server, wrk string, o Options, rawFile string, logf func(string, ...any)) report.E2EResult {
	r := report.E2EResult{Name: s.Name, Status: "failed"}
	addr, err := freeAddr()
	if err != nil {
		r.Reason = err.Error()
		return r
	}
	argv := pinned(o.ServerCPU, s.Command(addr)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // uvicorn's workers stop with it
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		r.Reason = err.Error()
		return r
	}
	defer stop(cmd)

	url := "http://" + addr + Path
	if err := waitReady(ctx, url, 30*time.Second); err != nil {
		r.Reason = fmt.Sprintf("did not answer: %v %s", err, lastLine(stderr.String()))
		return r
	}
	if err := CheckAnswer(url); err != nil {
		r.Status, r.Reason = report.StateWrong, err.Error()
		return r
	}
	load := func(d time.Duration, latency bool) []string {
		return pinned(o.WrkCPU, append([]string{wrk}, wrkArgs(o, d, latency, url)...)...)
	}
	logf("%s: warming up for %s", s.Name, o.Warmup)
	if _, err := runBounded(ctx, load(o.Warmup, false), o.Warmup+30*time.Second); err != nil {
		r.Reason = "warm-up: " + err.Error()
		return r
	}
	logf("%s: measuring for %s", s.Name, o.Duration)
	argv = load(o.Duration, true)
	out, err := runBounded(ctx, argv, o.Duration+30*time.Second)
	os.WriteFile(rawFile, []byte(strings.Join(argv, " ")+"\n"+out), 0o644)
	if err != nil {
		r.Reason = "wrk: " + err.Error()
		return r
	}
	parsed, err := ParseWrk(out)
	if err != nil {
		r.Reason = err.Error()
		return r
	}
	parsed.Name, parsed.Status = s.Name, "ok"
	return parsed
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// stop ends the server's process group: SIGTERM, then SIGKILL after 5s.
func stop(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	pgid := cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	}
}

func waitReady(ctx context.Context, url string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	c := &http.Client{Timeout: time.Second}
	var last error
	for time.Now().Before(deadline) && ctx.Err() == nil {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", Auth)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	if last == nil {
		last = ctx.Err()
	}
	return last
}

// CheckAnswer holds the server to the service's contract before it is
// measured: the right JSON with the header, a 4xx without it.
func CheckAnswer(url string) error {
	c := &http.Client{Timeout: 5 * time.Second}
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", Auth)
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %d: %.200s", resp.StatusCode, body)
	}
	var got, want any
	if err := json.Unmarshal(body, &got); err != nil {
		return fmt.Errorf("body is not JSON: %.200s", body)
	}
	wb, _ := json.Marshal(NewItem("123", true))
	json.Unmarshal(wb, &want)
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("body %.200s, want %s", body, wb)
	}
	req, _ = http.NewRequest("GET", url, nil)
	resp, err = c.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode < 400 || resp.StatusCode > 499 {
		return fmt.Errorf("without Authorization: status %d, want 4xx", resp.StatusCode)
	}
	return nil
}

func runBounded(ctx context.Context, argv []string, limit time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%v: %s", err, lastLine(string(out)))
	}
	return string(out), nil
}

func wrkVersion(wrk string) string {
	out, _ := exec.Command(wrk, "-v").CombinedOutput()
	line := strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	if i := strings.Index(line, " Copyright"); i > 0 {
		line = line[:i]
	}
	return line
}
