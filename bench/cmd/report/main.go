// Command report runs vane's benchmark suite and writes BENCHMARKS.md.
//
// Run it inside bench/:
//
//	go run ./cmd/report              # in-process workloads, 60 rounds of -benchtime 50ms, then BENCHMARKS.md
//	go run ./cmd/report -quick       # CI: one short round, report under results/quick/
//	go run ./cmd/report -e2e         # end to end under wrk (6 rounds), then BENCHMARKS.md again
//	go run ./cmd/report -largeapi    # also the large-API workload (package largeapi), 100 to 20,000 operations
//	go run ./cmd/report -largeapi-only   # the large-API workload alone, then BENCHMARKS.md again
//	go run ./cmd/report -from results/bench-20261121-140000.txt   # the report again, from a kept run
//
// Before anything is timed every adapter is checked (the same check as
// TestCorrectness); a peer that answers wrongly is reported, not timed.
// In-process benchmarks run pinned to one CPU with GOMAXPROCS=1, in
// rounds; the report pairs the runs of each round into ratios vane ÷ peer
// and decides every verdict on them. Only the raw results the report
// shows are kept: writing BENCHMARKS.md removes the others from results/.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vane-http/vane/bench/e2e"
	"github.com/vane-http/vane/bench/largeapi"
	"github.com/vane-http/vane/bench/peers"
	"github.com/vane-http/vane/bench/report"
	"github.com/vane-http/vane/bench/routes"
)

func main() {
	var (
		rounds    = flag.Int("count", 60, "rounds: every benchmark runs once per round, the rounds' runs paired into ratios")
		benchtime = flag.String("benchtime", "50ms", "go test -benchtime of each run (\"\" for go test's default, 1s)")
		bench     = flag.String("bench", ".", "go test -bench: which benchmarks to run")
		cpu       = flag.Int("cpu", -1, "the CPU the pinned benchmarks run on (default: the last this process may use)")
		quick     = flag.Bool("quick", false, "CI mode: one round of -benchtime 10ms, report under results/quick/")
		from      = flag.String("from", "", "write the report from this kept raw output instead of running")
		runE2E    = flag.Bool("e2e", false, "run the end-to-end workload under wrk, then write the report")
		e2eDur    = flag.Duration("e2e-duration", 10*time.Second, "wrk duration per server and round")
		e2eWarm   = flag.Duration("e2e-warmup", 3*time.Second, "wrk warm-up per server and round")
		e2eRounds = flag.Int("e2e-rounds", 6, "end-to-end rounds: every server measured once per round, the order rotated")
		e2eSlices = flag.Int("e2e-slices", 1, "when above 1, every server of a round runs at once and is measured in this many slices of -e2e-duration, the servers' slices taken in turn (a multiple of whole seconds)")
		e2eConns  = flag.Int("e2e-conns", 10, "wrk connections")
		e2eThr    = flag.Int("e2e-threads", 1, "wrk threads (wrk runs on one CPU)")
		serverCPU = flag.Int("e2e-server-cpu", 0, "the CPU the end-to-end servers run on")
		wrkCPU    = flag.Int("e2e-wrk-cpu", 1, "the CPU wrk runs on")
		e2eOnly   = flag.String("e2e-only", "", "comma-separated implementations to run end to end (default: all)")
		out       = flag.String("out", "", "where to write BENCHMARKS.md (default ../BENCHMARKS.md, or results/quick/BENCHMARKS.md with -quick); results are pruned only for the default")
		results   = flag.String("results", "", "where raw results go (default results/, or results/quick/ with -quick)")
		runLarge  = flag.Bool("largeapi", false, "also run the large-API workload (package largeapi): vane and Huma at -largeapi-sizes operations, each variant of -largeapi-types, each in a process of its own")
		largeOnly = flag.Bool("largeapi-only", false, "run the large-API workload alone, then write the report from the kept in-process results")
		largeN    = flag.String("largeapi-sizes", "100,1000,5000,20000", "operations of the large-API workload")
		largeK    = flag.String("largeapi-types", "0,512,4096", "its variants: distinct output types (0: every operation shares its types)")
		largeR    = flag.Int("largeapi-rounds", 3, "its rounds (a process per framework, size and variant in each)")
		largeT    = flag.Duration("largeapi-timeout", 30*time.Minute, "how long one of its processes may take")
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
		*rounds, *benchtime = 1, "10ms"
		*runLarge, *largeN, *largeK, *largeR = true, "100,1000", "0,16", 1
		resultsDir = filepath.Join("results", "quick")
		chartDir, chartRel = filepath.Join(resultsDir, "charts"), "charts"
		outFile = filepath.Join(resultsDir, "BENCHMARKS.md")
	}
	prunable := *out == ""
	if *out != "" {
		// A report written elsewhere keeps its charts beside it.
		outFile = *out
		chartDir, chartRel = filepath.Join(filepath.Dir(outFile), "charts"), "charts"
	}
	if *results != "" {
		resultsDir = *results
	}
	if *from != "" {
		resultsDir = filepath.Dir(*from)
	}
	if *rounds < 1 {
		log.Fatal("-count must be at least 1")
	}
	for _, d := range []string{resultsDir, chartDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			log.Fatal(err)
		}
	}

	if *runE2E {
		if err := endToEnd(resultsDir, e2e.Options{
			Dir: resultsDir, Duration: *e2eDur, Warmup: *e2eWarm, Conns: *e2eConns, Threads: *e2eThr, Rounds: *e2eRounds, Slices: *e2eSlices,
			ServerCPU: *serverCPU, WrkCPU: *wrkCPU, Only: splitList(*e2eOnly), Log: os.Stderr,
		}, commandLine()); err != nil {
			log.Fatal(err)
		}
	}

	if (*runLarge || *largeOnly) && *from == "" {
		sizes, err := intList(*largeN)
		if err != nil || len(sizes) == 0 {
			log.Fatalf("-largeapi-sizes %q: %v", *largeN, err)
		}
		variants, err := intList(*largeK)
		if err != nil || len(variants) == 0 {
			log.Fatalf("-largeapi-types %q: %v", *largeK, err)
		}
		largeCPU := *cpu
		if largeCPU < 0 {
			if largeCPU, err = pinCPU(); err != nil {
				log.Fatal(err)
			}
		}
		if err := needTaskset(); err != nil {
			log.Fatal(err)
		}
		if err := largeRun(resultsDir, largeapi.RunOptions{Sizes: sizes, Variants: variants, Frameworks: []string{"vane", "huma"},
			Rounds: max(*largeR, 1), CPU: largeCPU, Timeout: *largeT}, commandLine()); err != nil {
			log.Fatal(err)
		}
	}

	raw := *from
	switch {
	case raw == "" && (*runE2E || *largeOnly):
		raw = latest(resultsDir, "bench-*.txt")
		if raw == "" {
			log.Printf("no benchmark run under %s yet: the report will have only the end-to-end table", resultsDir)
		}
	case raw == "":
		if *cpu < 0 {
			c, err := pinCPU()
			if err != nil {
				log.Fatal(err)
			}
			*cpu = c
		}
		var err error
		raw, _, err = run(runOptions{dir: resultsDir, bench: *bench, rounds: *rounds, benchtime: *benchtime, cpu: *cpu, quick: *quick, command: commandLine()})
		if err != nil {
			log.Fatal(err)
		}
	}

	e2eFile := latest(resultsDir, "e2e-*.json")
	largeFile := latest(resultsDir, "largeapi-*.json")
	in := inputs{raw: raw, e2e: e2eFile, large: largeFile, chartDir: chartDir, chartRel: chartRel}
	md, rep, err := render(in)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(outFile, md, 0o644); err != nil {
		log.Fatal(err)
	}
	// The same files must give the same report: render again, as -from
	// would, and compare.
	if err := sameAgain(in, md); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s (raw output: %s; end to end: %s); rendered again from those files: identical", outFile, firstNonEmpty(raw, "none"), firstNonEmpty(e2eFile, "none"))
	if prunable {
		removed, err := prune(resultsDir, append(shownFiles(raw, e2eFile, rep.E2E), largeFile))
		if err != nil {
			log.Fatal(err)
		}
		if len(removed) > 0 {
			log.Printf("removed %d raw results of runs the report does not show", len(removed))
		}
	}
	// vane answering wrongly fails the run (CI's quick mode relies on it);
	// a peer answering wrongly is only reported.
	failed := false
	for _, k := range sortedKeys(rep.Meta.Status) {
		if st := rep.Meta.Status[k]; st.State == report.StateWrong && strings.HasSuffix(k, "/vane") {
			log.Printf("vane answers %s wrongly: %s", k, st.Reason)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// commandLine is how this command was invoked, as the report names it;
// make's targets name themselves in VANE_BENCH_VIA ("make bench").
func commandLine() string {
	cmd := "cd bench && go run ./cmd/report " + shell(os.Args[1:])
	if via := os.Getenv("VANE_BENCH_VIA"); via != "" {
		return via + "   # = " + cmd
	}
	return cmd
}

// endToEnd runs the end-to-end workload and keeps its results.
func endToEnd(dir string, o e2e.Options, command string) error {
	if o.Rounds < 1 {
		return errors.New("-e2e-rounds must be at least 1")
	}
	root := output("git", "rev-parse", "--show-toplevel")
	if root == "" {
		root = ".."
	}
	o.Venv = filepath.Join(root, ".tools", "fastapi-venv")
	o.Stamp = time.Now().UTC().Format("20060102-150405")
	res, err := e2e.Run(o)
	if err != nil {
		return err
	}
	res.Commit, res.Tree = gitState("..")
	res.ReportCommand = command
	return report.WriteJSON(filepath.Join(dir, "e2e-"+res.Stamp+".json"), res)
}

// inputs are the files a report is made from.
type inputs struct {
	raw      string // raw go test output ("" for none); its metadata beside it
	e2e      string // end-to-end summary ("" for none)
	large    string // the large-API run ("" for none)
	chartDir string
	chartRel string
}

// render makes the report from its files alone: a run and -from go
// through here, so that they give the same report.
func render(in inputs) ([]byte, *report.Report, error) {
	rep := &report.Report{
		Data:     &report.Data{Samples: map[report.Key]map[string][]float64{}, Config: map[string]string{}},
		ChartDir: in.chartDir,
		ChartRel: in.chartRel,
	}
	if in.raw != "" {
		if err := report.ReadJSON(metaFile(in.raw), &rep.Meta); err != nil {
			return nil, nil, fmt.Errorf("%s has no metadata beside it: %v", in.raw, err)
		}
		f, err := os.Open(in.raw)
		if err != nil {
			return nil, nil, err
		}
		rep.Data, err = report.Parse(f, in.raw)
		f.Close()
		if err != nil {
			return nil, nil, err
		}
	}
	if in.e2e != "" {
		rep.E2E = &report.E2E{}
		if err := report.ReadJSON(in.e2e, rep.E2E); err != nil {
			return nil, nil, err
		}
	}
	if in.large != "" {
		rep.LargeAPI = &report.LargeAPI{}
		if err := report.ReadJSON(in.large, rep.LargeAPI); err != nil {
			return nil, nil, err
		}
	}
	var b bytes.Buffer
	if err := rep.Render(&b); err != nil {
		return nil, nil, err
	}
	return b.Bytes(), rep, nil
}

// sameAgain renders the report from the same files again, its charts in a
// scratch directory, and fails unless the Markdown and every chart are
// the same byte for byte.
func sameAgain(in inputs, md []byte) error {
	tmp, err := os.MkdirTemp("", "vane-report-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	again := in
	again.chartDir = tmp
	md2, _, err := render(again)
	if err != nil {
		return err
	}
	if !bytes.Equal(md, md2) {
		return fmt.Errorf("the report rendered again from %s differs from the one written", in.raw)
	}
	charts, _ := filepath.Glob(filepath.Join(tmp, "*.svg"))
	for _, c := range charts {
		a, _ := os.ReadFile(c)
		b, err := os.ReadFile(filepath.Join(in.chartDir, filepath.Base(c)))
		if err != nil || !bytes.Equal(a, b) {
			return fmt.Errorf("chart %s rendered again differs from the one written", filepath.Base(c))
		}
	}
	return nil
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

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// peerNames are the columns, in report order.
func peerNames() []string {
	var ns []string
	for _, p := range peers.All() {
		ns = append(ns, p.Name)
	}
	return ns
}

// codecNotes are the footnotes on the codec cells (codec_test.go, whose
// encoders are not peers), by case and encoder.
var codecNotes = map[[2]string]string{
	{"Stream50", "vane"}:    "vane's codec.JSON encodes with go-json's own Encoder, then copies the encoding into the response buffer it writes from, under a guard that falls back to encoding/json on a panic; the cell also takes and returns that pooled buffer. It can at best tie go-json here.",
	{"Stream50", "go-json"}: "go-json's Encoder writes the encoding straight to the io.Writer (with a trailing newline).",
	{"Marshal50", "vane"}:   "vane's codec.JSON is go-json's Marshal under a guard that falls back to encoding/json on a panic.",
}

// notes are the footnotes on measured cells (Peer.Notes, and codecNotes),
// by cell.
func notes() map[string]string {
	ns := map[string]string{}
	for k, note := range codecNotes {
		ns[report.Key{Category: "Codec", Case: k[0], Peer: k[1]}.String()] = note
	}
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

// versions reads the version of every peer's module from the bench module's
// build list.
func versions(commit string) []report.Version {
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
			v = "this checkout, " + short(commit)
		}
		vs = append(vs, report.Version{Name: p.Name, Module: p.Module, Version: v})
	}
	for _, m := range []struct{ name, mod string }{
		{"fiber (end to end)", "github.com/gofiber/fiber/v3"},
		{"fiber v2 (humafiber, end to end)", "github.com/gofiber/fiber/v2"},
		{"fasthttp (fiber, vane-fast)", "github.com/valyala/fasthttp"},
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
