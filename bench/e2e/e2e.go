// Package e2e runs the end-to-end workload: in each of several rounds,
// each implementation of the service serves on 127.0.0.1, is checked to
// answer correctly, warmed up, and loaded by wrk for a fixed time; then
// it is stopped. The servers run on one CPU and wrk on another (taskset),
// so that the load generator never competes with a server. The order is
// rotated each round (report.RoundOrder); the report pairs the rounds
// into ratios. With Options.Slices above 1 a round's servers run at once
// and each is measured in slices taken in turn with the others', so that
// the two servers of a ratio are measured over the same stretch of the
// machine's time, not minutes apart; otherwise they run one after
// another. Only loopback addresses are used, every run is
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
	Rounds           int // every server measured once per round; 1 when < 1
	// Slices, when above 1, interleaves a round's measurements: all its
	// servers run at once, idle but for the one wrk loads, and each is
	// measured in Slices slices of Duration/Slices (whole seconds), the
	// servers' slices taken in turn (measureInterleaved). Otherwise each
	// server is started, measured for Duration and stopped in turn.
	Slices    int
	ServerCPU int      // the CPU every server runs on
	WrkCPU    int      // the CPU wrk runs on
	Venv      string   // FastAPI's Python environment (made by bench/setup)
	Only      []string // implementations to run (net/http or net-http); all when empty
	Log       io.Writer
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
	if o.Slices > 1 {
		if slice := o.Duration / time.Duration(o.Slices); slice < time.Second || slice%time.Second != 0 {
			return nil, fmt.Errorf("%d slices of %s: wrk measures whole seconds, so the duration must be a multiple of the slices in seconds", o.Slices, o.Duration)
		}
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
		Command:       strings.Join(pinned(o.WrkCPU, append([]string{"wrk"}, wrkArgs(o, o.Duration/time.Duration(max(o.Slices, 1)), true, "http://127.0.0.1:PORT"+Path)...)...), " "),
		Pinning:       fmt.Sprintf("Each server ran on CPU %d alone, Go servers with GOMAXPROCS=1 (FastAPI: one uvicorn worker), and wrk on CPU %d alone, so that the load generator never takes the server's CPU", o.ServerCPU, o.WrkCPU),
		Warmup:        o.Warmup.String(),
		Duration:      o.Duration.String(),
		Threads:       o.Threads,
		Conns:         o.Conns,
		Rounds:        o.Rounds,
		Slices:        max(o.Slices, 1),
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
		rawFile := func(name string) string {
			return filepath.Join(o.Dir, fmt.Sprintf("e2e-%s-r%d-%s.txt", o.Stamp, round+1, safe(name)))
		}
		measured := map[string]report.E2EResult{}
		if o.Slices > 1 {
			var servers []Server
			for _, name := range order {
				servers = append(servers, byName[name])
			}
			logf("round %d/%d: all %d servers at once, measurements interleaved", round+1, o.Rounds, len(servers))
			measured = measureInterleaved(ctx, servers, wrk, o, rawFile, logf)
		} else {
			for _, name := range order {
				if ctx.Err() != nil {
					return res, errors.New("interrupted: every server stopped")
				}
				logf("round %d/%d, %s: starting", round+1, o.Rounds, name)
				measured[name] = measure(ctx, byName[name], wrk, o, rawFile(name), logf)
			}
		}
		if ctx.Err() != nil {
			return res, errors.New("interrupted: every server stopped")
		}
		for pos, name := range order {
			m := measured[name]
			raw := rawFile(name)
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
	sv, r := start(ctx, s, o)
	if sv == nil {
		return r
	}
	defer sv.stop()
	logf("%s: warming up for %s", s.Name, o.Warmup)
	if _, _, err := sv.load(ctx, wrk, o, o.Warmup, false); err != nil {
		r.Reason = "warm-up: " + err.Error()
		return r
	}
	logf("%s: measuring for %s", s.Name, o.Duration)
	parsed, out, err := sv.load(ctx, wrk, o, o.Duration, true)
	os.WriteFile(rawFile, []byte(out), 0o644)
	if err != nil {
		r.Reason = err.Error()
		return r
	}
	parsed.Name, parsed.Status = s.Name, "ok"
	return parsed
}

// measureInterleaved runs one round of the servers in order with their
// measurements interleaved: every server is started, checked and warmed
// up, then each is loaded for o.Duration in o.Slices slices, the slices
// of all servers taken in turn (the order rotated by one each pass), so
// that a burst of load from elsewhere on the machine falls on every
// server of the round alike; then all are stopped. A server's result
// is its slices together (combineSlices); its raw file holds every
// slice's wrk output.
func measureInterleaved(ctx context.Context, order []Server, wrk string, o Options, rawFile func(name string) string, logf func(string, ...any)) map[string]report.E2EResult {
	results := map[string]report.E2EResult{}
	var live []*running
	defer func() {
		for _, sv := range live {
			sv.stop()
		}
	}()
	for _, s := range order {
		logf("%s: starting", s.Name)
		sv, r := start(ctx, s, o)
		if sv == nil {
			results[s.Name] = r
			continue
		}
		live = append(live, sv)
	}
	warm := live[:0:0]
	for _, sv := range live {
		logf("%s: warming up for %s", sv.name, o.Warmup)
		if _, _, err := sv.load(ctx, wrk, o, o.Warmup, false); err != nil {
			results[sv.name] = report.E2EResult{Name: sv.name, Status: "failed", Reason: "warm-up: " + err.Error()}
			continue
		}
		warm = append(warm, sv)
	}
	slice := o.Duration / time.Duration(o.Slices)
	// sliced is a server's measurement so far: its slices' results, the
	// wrk output of each, and why it stopped, if it did.
	type sliced struct {
		parts  []report.E2EResult
		raw    strings.Builder
		failed string
	}
	of := map[string]*sliced{}
	for _, sv := range warm {
		of[sv.name] = &sliced{}
	}
	logf("measuring %d servers for %s each, in %d slices of %s taken in turn", len(warm), o.Duration, o.Slices, slice)
	for k := 0; k < o.Slices && ctx.Err() == nil; k++ {
		for j := range warm {
			sv := warm[(j+k)%len(warm)]
			m := of[sv.name]
			if m.failed != "" {
				continue
			}
			parsed, out, err := sv.load(ctx, wrk, o, slice, true)
			fmt.Fprintf(&m.raw, "# slice %d of %d\n%s\n", k+1, o.Slices, out)
			if err != nil {
				m.failed = fmt.Sprintf("slice %d of %d: %v", k+1, o.Slices, err)
				continue
			}
			m.parts = append(m.parts, parsed)
		}
	}
	for _, sv := range warm {
		m := of[sv.name]
		if m.raw.Len() > 0 {
			os.WriteFile(rawFile(sv.name), []byte(m.raw.String()), 0o644)
		}
		r := report.E2EResult{Name: sv.name, Status: "failed", Reason: m.failed}
		switch {
		case m.failed != "":
		case len(m.parts) < o.Slices:
			r.Reason = "interrupted"
		default:
			r = combineSlices(m.parts)
			r.Name, r.Status = sv.name, "ok"
		}
		results[sv.name] = r
	}
	return results
}

// combineSlices is one measurement made of slices of equal length:
// requests, transfer and errors are summed (transfer and requests per
// second averaged), the average latency weighted by requests, and p99
// the largest of the slices' (a percentile of the whole cannot be had
// from theirs; the largest never understates it).
func combineSlices(parts []report.E2EResult) report.E2EResult {
	var r report.E2EResult
	var weighted float64
	for _, p := range parts {
		r.Requests += p.Requests
		r.ReqPerSec += p.ReqPerSec / float64(len(parts))
		r.TransferMB += p.TransferMB / float64(len(parts))
		r.Errors += p.Errors
		weighted += p.AvgMs * float64(p.Requests)
		r.P99Ms = max(r.P99Ms, p.P99Ms)
	}
	if r.Requests > 0 {
		r.AvgMs = weighted / float64(r.Requests)
	}
	return r
}

// running is a server started, pinned, answering and checked.
type running struct {
	name, url string
	cmd       *exec.Cmd
	exited    chan struct{} // closed when its process has ended
}

// start starts s on a free loopback port pinned to o.ServerCPU and
// checks its answer. When it cannot be measured it returns nil and the
// result saying why, the server stopped.
func start(ctx context.Context, s Server, o Options) (*running, report.E2EResult) {
	r := report.E2EResult{Name: s.Name, Status: "failed"}
	addr, err := freeAddr()
	if err != nil {
		r.Reason = err.Error()
		return nil, r
	}
	argv := pinned(o.ServerCPU, s.Command(addr)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // uvicorn's workers stop with it
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		r.Reason = err.Error()
		return nil, r
	}
	sv := &running{name: s.Name, url: "http://" + addr + Path, cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(sv.exited) }()
	if err := waitReady(ctx, sv.url, 30*time.Second, sv.exited); err != nil {
		sv.stop()
		r.Reason = fmt.Sprintf("did not answer: %v %s", err, lastLine(stderr.String()))
		return nil, r
	}
	if err := CheckAnswer(sv.url); err != nil {
		sv.stop()
		r.Status, r.Reason = report.StateWrong, err.Error()
		return nil, r
	}
	return sv, r
}

// load runs wrk against the server for d and parses its report; out is
// the command line and wrk's output.
func (sv *running) load(ctx context.Context, wrk string, o Options, d time.Duration, latency bool) (report.E2EResult, string, error) {
	argv := pinned(o.WrkCPU, append([]string{wrk}, wrkArgs(o, d, latency, sv.url)...)...)
	out, err := runBounded(ctx, argv, d+30*time.Second)
	out = strings.Join(argv, " ") + "\n" + out
	if err != nil {
		return report.E2EResult{}, out, fmt.Errorf("wrk: %w", err)
	}
	r, err := ParseWrk(out)
	return r, out, err
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
func (sv *running) stop() {
	pgid := sv.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-sv.exited:
	case <-time.After(5 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-sv.exited
	}
}

// waitReady waits until url answers, for at most limit, and gives up at
// once when the server's process has exited.
func waitReady(ctx context.Context, url string, limit time.Duration, exited <-chan struct{}) error {
	deadline := time.Now().Add(limit)
	c := &http.Client{Timeout: time.Second}
	var last error
	for time.Now().Before(deadline) && ctx.Err() == nil {
		select {
		case <-exited:
			return errors.New("the server exited")
		default:
		}
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
