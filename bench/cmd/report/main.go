// Command report runs vane's benchmark suite and writes BENCHMARKS.md.
//
// Run it inside bench/:
//
//	go run ./cmd/report              # workloads 1-5, -count 6, then BENCHMARKS.md
//	go run ./cmd/report -quick       # CI: one short run, report under results/quick/
//	go run ./cmd/report -e2e         # workload 6 under wrk (3 rounds, -e2e-rounds), then BENCHMARKS.md again
//	go run ./cmd/report -from results/bench-20261121-140000.txt   # report only
//
// Before anything is timed every adapter is checked (the same check as
// TestCorrectness); a peer that answers wrongly is reported, not timed.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/vane-http/vane/bench/e2e"
	"github.com/vane-http/vane/bench/peers"
	"github.com/vane-http/vane/bench/report"
	"github.com/vane-http/vane/bench/routes"
)

func main() {
	var (
		count     = flag.Int("count", 6, "runs of every benchmark (go test -count)")
		benchtime = flag.String("benchtime", "", "go test -benchtime (default: go test's own, 1s)")
		bench     = flag.String("bench", ".", "go test -bench: which benchmarks to run")
		quick     = flag.Bool("quick", false, "CI mode: -count 1, -benchtime 10ms, report under results/quick/")
		from      = flag.String("from", "", "write the report from this raw output instead of running")
		runE2E    = flag.Bool("e2e", false, "run the end-to-end workload under wrk, then write the report")
		e2eDur    = flag.Duration("e2e-duration", 10*time.Second, "wrk duration per server and round")
		e2eWarm   = flag.Duration("e2e-warmup", 3*time.Second, "wrk warm-up per server and round")
		e2eRounds = flag.Int("e2e-rounds", 3, "end-to-end rounds: every server measured once per round, the order rotated; the report shows medians and spreads")
		e2eConns  = flag.Int("e2e-conns", 10, "wrk connections")
		e2eThr    = flag.Int("e2e-threads", 2, "wrk threads")
		e2eOnly   = flag.String("e2e-only", "", "comma-separated implementations to run end to end (default: all)")
		out       = flag.String("out", "", "where to write BENCHMARKS.md (default ../BENCHMARKS.md, or results/quick/BENCHMARKS.md with -quick)")
	)
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("report: ")
	if _, err := os.Stat("go.mod"); err != nil {
		log.Fatal("run me inside bench/ (go run ./cmd/report)")
	}

	resultsDir := "results"
	chartDir, chartRel := "charts", "bench/charts"
	outFile := "../BENCHMARKS.md"
	if *quick {
		*count, *benchtime = 1, "10ms"
		resultsDir = filepath.Join("results", "quick")
		chartDir, chartRel = filepath.Join(resultsDir, "charts"), "charts"
		outFile = filepath.Join(resultsDir, "BENCHMARKS.md")
	}
	if *out != "" {
		// A report written elsewhere keeps its charts beside it.
		outFile = *out
		chartDir, chartRel = filepath.Join(filepath.Dir(outFile), "charts"), "charts"
	}
	for _, d := range []string{resultsDir, chartDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			log.Fatal(err)
		}
	}

	if *runE2E {
		if *e2eRounds < 1 {
			log.Fatal("-e2e-rounds must be at least 1")
		}
		res, err := e2e.Run(e2e.Options{
			Dir: resultsDir, Duration: *e2eDur, Warmup: *e2eWarm, Conns: *e2eConns, Threads: *e2eThr, Rounds: *e2eRounds,
			Only: splitList(*e2eOnly), Log: os.Stderr,
		})
		if err != nil {
			log.Fatal(err)
		}
		stamp := time.Now().UTC().Format("20060102-150405")
		if err := report.WriteJSON(filepath.Join(resultsDir, "e2e-"+stamp+".json"), res); err != nil {
			log.Fatal(err)
		}
	}

	raw := *from
	if raw == "" && *runE2E {
		raw = latest(resultsDir, "bench-*.txt")
		if raw == "" {
			log.Printf("no benchmark run under %s yet: the report will have only the end-to-end table", resultsDir)
		}
	}
	var meta report.Meta
	if raw == "" && !*runE2E {
		var err error
		raw, meta, err = run(resultsDir, *bench, *count, *benchtime, *quick)
		if err != nil {
			log.Fatal(err)
		}
	} else if raw != "" {
		if err := report.ReadJSON(strings.TrimSuffix(raw, ".txt")+".json", &meta); err != nil {
			log.Fatalf("%s has no metadata beside it: %v", raw, err)
		}
		// Notes describe the adapters: add those written since the run.
		if meta.Notes == nil {
			meta.Notes = map[string]string{}
		}
		for k, v := range notes() {
			if _, ok := meta.Notes[k]; !ok {
				meta.Notes[k] = v
			}
		}
	}

	data := &report.Data{Samples: map[report.Key]map[string][]float64{}, Config: map[string]string{}}
	if raw != "" {
		f, err := os.Open(raw)
		if err != nil {
			log.Fatal(err)
		}
		data, err = report.Parse(f, raw)
		f.Close()
		if err != nil {
			log.Fatal(err)
		}
	}
	var e2eRes *report.E2E
	if file := latest(resultsDir, "e2e-*.json"); file != "" {
		e2eRes = &report.E2E{}
		if err := report.ReadJSON(file, e2eRes); err != nil {
			log.Fatal(err)
		}
	}
	rep := &report.Report{Data: data, Meta: meta, E2E: e2eRes, ChartDir: chartDir, ChartRel: chartRel}
	f, err := os.Create(outFile)
	if err != nil {
		log.Fatal(err)
	}
	if err := rep.Render(f); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s (raw output: %s)", outFile, raw)
	// vane answering wrongly fails the run (CI's quick mode relies on it);
	// a peer answering wrongly is only reported.
	failed := false
	for k, st := range meta.Status {
		if st.State == report.StateWrong && strings.HasSuffix(k, "/vane") {
			log.Printf("vane answers %s wrongly: %s", k, st.Reason)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// latest returns the newest file matching pattern in dir, by name (names
// carry a UTC time stamp).
func latest(dir, pattern string) string {
	files, _ := filepath.Glob(filepath.Join(dir, pattern))
	sort.Strings(files)
	if len(files) == 0 {
		return ""
	}
	return files[len(files)-1]
}

// run checks every adapter, runs the benchmarks with progress, and keeps
// the raw output and its metadata under dir.
func run(dir, bench string, count int, benchtime string, quick bool) (string, report.Meta, error) {
	start := time.Now().UTC()
	stamp := start.Format("20060102-150405")
	raw := filepath.Join(dir, "bench-"+stamp+".txt")

	log.Print("checking every adapter before timing")
	status := statuses()
	wrong := 0
	for k, s := range status {
		if s.State == report.StateWrong {
			wrong++
			log.Printf("  %s answers wrongly, will not be timed: %s", k, s.Reason)
		}
	}
	log.Printf("  %d cells are not timed (the peer lacks the case or is not part of it, vane's work is pending, or the answer is wrong: see the report); %d answer wrongly", len(status), wrong)

	// Each round runs every benchmark once; count rounds give count runs
	// of each, interleaved, so that a burst of load on a shared machine
	// spreads over every peer instead of landing on one peer's runs.
	args := []string{"test", "-run", "^$", "-bench", bench, "-benchmem", "-timeout", "0", "-count", "1"}
	if benchtime != "" {
		args = append(args, "-benchtime", benchtime)
	}
	args = append(args, ".")

	log.Print("counting benchmarks (one iteration each)")
	total, err := countBenchmarks(bench)
	if err != nil {
		return "", report.Meta{}, err
	}
	total *= count

	meta := report.Meta{
		Date:       start.Format("2006-01-02 15:04"),
		Quick:      quick,
		Count:      count,
		Benchtime:  benchtime,
		GoVersion:  output("go", "env", "GOVERSION"),
		OS:         output("uname", "-srm"),
		CPU:        cpuModel(),
		Cores:      runtime.NumCPU(),
		VaneCommit: vaneCommit(),
		Versions:   versions(),
		Status:     status,
		RawFile:    filepath.ToSlash(raw),
	}
	meta.Notes = notes()
	for _, p := range peers.All() {
		meta.Peers = append(meta.Peers, p.Name)
	}
	cmd := "cd bench && go run ./cmd/report -count " + fmt.Sprint(count)
	if benchtime != "" {
		cmd += " -benchtime " + benchtime
	}
	if bench != "." {
		cmd += " -bench '" + bench + "'"
	}
	switch {
	case quick:
		cmd = "make bench-quick   # = cd bench && go run ./cmd/report -quick"
	case count == 6 && benchtime == "" && bench == ".":
		cmd = "make bench   # = " + cmd
	}
	meta.Commands = []string{
		cmd,
		"# which runs, in bench/:",
		fmt.Sprintf("for round in $(seq %d); do go %s; done | tee %s", count, strings.Join(quoteArgs(args), " "), filepath.ToSlash(raw)),
		"make bench-e2e   # = cd bench && go run ./cmd/report -e2e -e2e-rounds 3 (end to end under wrk)",
	}
	if err := report.WriteJSON(strings.TrimSuffix(raw, ".txt")+".json", meta); err != nil {
		return "", meta, err
	}

	f, err := os.Create(raw)
	if err != nil {
		return "", meta, err
	}
	defer f.Close()
	fmt.Fprintf(f, "vane-commit: %s\ngo: %s\n", meta.VaneCommit, meta.GoVersion)

	log.Printf("running %d benchmark runs in %d rounds of: go %s", total, count, strings.Join(args, " "))
	done := 0
	timed := time.Now()
	tty := isTerminal(os.Stderr)
	lastShown := time.Time{}
	for round := 1; round <= count; round++ {
		c := exec.Command("go", args...)
		c.Stderr = os.Stderr
		pipe, err := c.StdoutPipe()
		if err != nil {
			return "", meta, err
		}
		if err := c.Start(); err != nil {
			return "", meta, err
		}
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(f, line)
			if strings.HasPrefix(line, "Benchmark") && strings.Contains(line, "ns/op") {
				done++
				if tty || time.Since(lastShown) > 15*time.Second || done == total {
					progress(os.Stderr, tty, done, total, time.Since(timed), fmt.Sprintf("round %d/%d %s", round, count, strings.Fields(line)[0]))
					lastShown = time.Now()
				}
			} else if strings.HasPrefix(line, "--- FAIL") || strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "panic") {
				fmt.Fprintln(os.Stderr, "\n"+line)
			}
		}
		if err := c.Wait(); err != nil {
			return raw, meta, fmt.Errorf("go test: %v (raw output kept in %s)", err, raw)
		}
	}
	fmt.Fprintln(os.Stderr)
	log.Printf("%d runs in %s; raw output in %s", done, time.Since(start).Round(time.Second), raw)
	return raw, meta, nil
}

// quoteArgs quotes for a shell the arguments that need it.
func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, "^$|*()[] ") {
			a = "'" + a + "'"
		}
		out[i] = a
	}
	return out
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progress shows how far the run is and an estimate of the time left: on
// one updated line on a terminal, a line at a time otherwise.
func progress(w io.Writer, tty bool, done, total int, elapsed time.Duration, name string) {
	left := "?"
	if done > 0 && total >= done {
		left = (time.Duration(float64(elapsed) / float64(done) * float64(total-done))).Round(time.Second).String()
	}
	pct := 0
	if total > 0 {
		pct = 100 * done / total
	}
	if len(name) > 72 {
		name = name[:72]
	}
	start, end := "\r\033[K", ""
	if !tty {
		start, end = "", "\n"
	}
	fmt.Fprintf(w, "%s[%d/%d] %d%% elapsed %s, about %s left  %s%s", start, done, total, pct, elapsed.Round(time.Second), left, name, end)
}

// countBenchmarks runs every benchmark once with one iteration: it proves
// they all run, and tells how many results a full run will print.
func countBenchmarks(bench string) (int, error) {
	c := exec.Command("go", "test", "-run", "^$", "-bench", bench, "-benchtime", "1x", "-count", "1", "-timeout", "10m", ".")
	c.Stderr = os.Stderr
	b, err := c.Output()
	if err != nil {
		return 0, fmt.Errorf("benchmarks do not run: %v\n%s", err, b)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "Benchmark") && strings.Contains(line, "ns/op") {
			n++
		}
	}
	return n, nil
}

// notes are the footnotes on measured cells (Peer.Notes), by cell.
func notes() map[string]string {
	ns := map[string]string{}
	for _, p := range peers.All() {
		for _, c := range peers.Cases() {
			note := p.Notes[c.Name] // a note on one case wins over one on its workload
			if note == "" {
				note = p.Notes[c.Workload]
			}
			if note != "" {
				ns[report.Key{Category: c.Category, Case: c.Name, Peer: p.Name}.String()] = note
			}
		}
	}
	return ns
}

// statuses checks every case on every peer, as TestCorrectness does, and
// returns the cells that will not be timed, with why.
func statuses() map[string]report.Status {
	st := map[string]report.Status{}
	for _, c := range peers.Cases() {
		for _, p := range peers.All() {
			err := c.Check(p)
			if err == nil {
				continue
			}
			k := report.Key{Category: c.Category, Case: c.Name, Peer: p.Name}.String()
			st[k] = classify(err)
		}
	}
	// Memory: a router that cannot hold a table has no memory cell either.
	for _, name := range routes.Names {
		t := routes.MustLoad(name)
		title := map[string]string{"static": "Static", "github": "GitHub", "gplus": "GPlus", "parse": "Parse"}[name]
		for _, p := range peers.All() {
			k := report.Key{Category: "Memory", Case: title, Peer: p.Name}.String()
			if p.Router == nil {
				st[k] = classify(peers.ErrLacks{Reason: p.Lacks["router"]})
				continue
			}
			if _, err := p.Router(peers.Spec{Routes: t.Routes}); err != nil {
				st[k] = classify(err)
			}
		}
	}
	return st
}

func classify(err error) report.Status {
	var lacks peers.ErrLacks
	if !errors.As(err, &lacks) {
		return report.Status{State: report.StateWrong, Reason: err.Error()}
	}
	switch r := lacks.Reason; {
	case strings.HasPrefix(r, "pending:"):
		return report.Status{State: report.StatePending, Reason: strings.TrimSpace(strings.TrimPrefix(r, "pending:"))}
	case strings.HasPrefix(r, "skip:"):
		return report.Status{State: report.StateSkip, Reason: strings.TrimSpace(strings.TrimPrefix(r, "skip:"))}
	default:
		return report.Status{State: report.StateLacks, Reason: r}
	}
}

func output(name string, args ...string) string {
	b, err := exec.Command(name, args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func vaneCommit() string {
	c := output("git", "-C", "..", "rev-parse", "--short", "HEAD")
	if c == "" {
		return ""
	}
	if output("git", "-C", "..", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench", ":!BENCHMARKS.md") != "" {
		c += " (with uncommitted changes)"
	}
	return c
}

// versions reads the version of every peer's module from the bench module's
// build list.
func versions() []report.Version {
	mods := map[string]string{}
	for _, line := range strings.Split(output("go", "list", "-m", "-f", "{{.Path}} {{.Version}}", "all"), "\n") {
		if path, v, ok := strings.Cut(line, " "); ok {
			mods[path] = v
		}
	}
	var vs []report.Version
	seen := map[string]bool{}
	for _, p := range peers.All() {
		if seen[p.Module+p.Name] {
			continue
		}
		seen[p.Module+p.Name] = true
		v := mods[p.Module]
		switch {
		case p.Module == "":
			v = output("go", "env", "GOVERSION")
		case p.Module == "github.com/vane-http/vane":
			v = "this checkout, " + vaneCommit()
		}
		vs = append(vs, report.Version{Name: p.Name, Module: p.Module, Version: v})
	}
	for _, m := range []struct{ name, mod string }{
		{"fiber (end to end)", "github.com/gofiber/fiber/v3"},
		{"jsoniter (codec)", "github.com/json-iterator/go"},
		{"go-json (codec)", "github.com/goccy/go-json"},
		{"benchstat", "golang.org/x/perf"},
		{"charts", "gonum.org/v1/plot"},
	} {
		if v, ok := mods[m.mod]; ok {
			vs = append(vs, report.Version{Name: m.name, Module: m.mod, Version: v})
		}
	}
	return vs
}
