package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane/bench/peers"
	"github.com/vane-http/vane/bench/report"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err   error
		state string
	}{
		{peers.ErrLacks{Reason: "pending: not built"}, report.StatePending},
		{peers.ErrLacks{Reason: "skip: baseline only"}, report.StateSkip},
		{peers.ErrLacks{Reason: "has no route groups"}, report.StateLacks},
		{errors.New("GET /x: want route /x, route /y ran"), report.StateWrong},
	} {
		t.Run(c.state, func(t *testing.T) {
			got := classify(c.err)
			if got.State != c.state {
				t.Errorf("%v: state %s, want %s", c.err, got.State, c.state)
			}
			if strings.HasPrefix(got.Reason, "pending:") || strings.HasPrefix(got.Reason, "skip:") {
				t.Errorf("%v: the reason keeps its prefix: %q", c.err, got.Reason)
			}
		})
	}
}

// Every cell the report will not time has a reason, and none is wrong.
func TestStatuses(t *testing.T) {
	st := statuses()
	if len(st) == 0 {
		t.Fatal("no cell is left untimed: huma, at least, has no raw routing")
	}
	for k, s := range st {
		if s.Reason == "" {
			t.Errorf("%s: %s without a reason", k, s.State)
		}
		if s.State == report.StateWrong {
			t.Errorf("%s answers wrongly: %s", k, s.Reason)
		}
	}
}

func TestLatest(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"bench-20261121-120000.txt", "bench-20261121-130000.txt", "e2e-20261121-140000.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := latest(dir, "bench-*.txt"); filepath.Base(got) != "bench-20261121-130000.txt" {
		t.Errorf("latest = %s", got)
	}
	if got := latest(dir, "none-*.txt"); got != "" {
		t.Errorf("latest of nothing = %q", got)
	}
}

func TestMakePlan(t *testing.T) {
	p, err := makePlan("Micro/Param20|Parallel", "300ms", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := "taskset -c 1 ./bin/bench.test -test.run '^$' -test.bench 'Micro/Param20|Parallel' -test.benchmem -test.count 1 -test.cpu 1 -test.timeout 0 -test.benchtime 300ms -bench.set pinned -bench.round N"
	if got := shell(p.pinned); got != want {
		t.Errorf("pinned:\n%s\nwant\n%s", got, want)
	}
	want = "./bin/bench.test -test.run '^$' -test.bench 'Micro/Param20|Parallel' -test.benchmem -test.count 1 -test.cpu 2 -test.timeout 0 -test.benchtime 300ms -bench.set unpinned -bench.round N"
	if got := shell(p.unpinned); got != want {
		t.Errorf("unpinned:\n%s\nwant\n%s", got, want)
	}
	if p, _ := makePlan(".", "", 0, 4); contains(p.pinned, "-test.benchtime") || !reflect.DeepEqual(p.pinned[:3], []string{"taskset", "-c", "0"}) {
		t.Errorf("default benchtime, CPU 0: %q", p.pinned)
	}
	if _, err := makePlan("(", "", 1, 2); err == nil {
		t.Error("a bad regexp was accepted")
	}
	if got := topLevel([]string{"BenchmarkParallel/Param/vane-2", "BenchmarkParallel/Param/chi-2", "BenchmarkMicro/Param/vane"}); !reflect.DeepEqual(got, []string{"BenchmarkParallel", "BenchmarkMicro"}) {
		t.Errorf("topLevel = %q", got)
	}
	if s := pinning(1, 2, []string{"BenchmarkParallel"}); !strings.Contains(s, "`taskset -c 1`") || !strings.Contains(s, "BenchmarkParallel, which serves from every CPU at once, ran unpinned with GOMAXPROCS=2") {
		t.Errorf("pinning = %q", s)
	}
}

func TestForRound(t *testing.T) {
	argv := []string{"taskset", "-c", "1", "./bin/bench.test", "-test.benchtime", "300ms", "-bench.round", "N"}
	if got := forRound(argv, 3); got[len(got)-1] != "3" || argv[len(argv)-1] != "N" {
		t.Errorf("round 3: %q (argv now %q)", got, argv)
	}
	if got := forRound(argv, 0); !reflect.DeepEqual(got, []string{"taskset", "-c", "1", "./bin/bench.test", "-test.benchtime", "1x"}) {
		t.Errorf("counting: %q", got)
	}
	if got := forRound([]string{"./bin/bench.test", "-bench.round", "N"}, 0); !reflect.DeepEqual(got, []string{"./bin/bench.test", "-test.benchtime", "1x"}) {
		t.Errorf("counting without a benchtime: %q", got)
	}
	if got := loopBody("a -bench.round N", "", "b -bench.round N"); !reflect.DeepEqual(got, []string{"a -bench.round $N", "b -bench.round $N"}) {
		t.Errorf("loop body: %q", got)
	}
}

func TestEstimator(t *testing.T) {
	s := time.Second
	e := newEstimator(3, 4)
	if _, ok := e.left(); ok {
		t.Error("an estimate before anything was measured")
	}
	// First round: the mean of what was measured, for the rest of the run.
	e.observe(1, "a", 1*s)
	e.observe(1, "b", 3*s)
	if d, _ := e.left(); d != 2*2*s+2*4*2*s {
		t.Errorf("after 2 of 4 in round 1 of 3: %s, want 20s", d)
	}
	e.observe(1, "c", 2*s)
	e.observe(1, "d", 2*s)
	if d, _ := e.left(); d != 8*2*s {
		t.Errorf("after round 1: %s, want 16s", d)
	}
	// Later rounds: each benchmark's own latest time; d got slower.
	e.observe(2, "b", 3*s)
	e.observe(2, "d", 4*s)
	if d, _ := e.left(); d != (1+2)*s+(1+3+2+4)*s {
		t.Errorf("after 2 of 4 in round 2: %s, want 13s", d)
	}
	e.observe(2, "a", 1*s)
	e.observe(2, "c", 2*s)
	e.observe(3, "a", 1*s)
	e.observe(3, "b", 3*s)
	e.observe(3, "c", 2*s)
	e.observe(3, "d", 4*s)
	if d, ok := e.left(); !ok || d != 0 {
		t.Errorf("at the end: %s, %v", d, ok)
	}
	// Benchmarks that take milliseconds promise milliseconds.
	e = newEstimator(2, 100)
	e.observe(1, "a", 10*time.Millisecond)
	if d, _ := e.left(); d != 199*10*time.Millisecond {
		t.Errorf("fast benchmarks: %s, want 1.99s", d)
	}
	if g := guess(10, 100, 300*time.Millisecond, 5*s); g != 10*(100*390*time.Millisecond+5*s) {
		t.Errorf("guess = %s", g)
	}
	var b strings.Builder
	progress(&b, false, 1, 200, 3*s, e, "round 1/2 BenchmarkMicro/Param/vane")
	if got := b.String(); got != "[1/200] 0%, elapsed 3s, about 2s left (from the times measured so far)  round 1/2 BenchmarkMicro/Param/vane\n" {
		t.Errorf("progress line %q", got)
	}
}

func TestChangedSources(t *testing.T) {
	status := " M router/tree.go\n?? router/new.go\n M BENCHMARKS.md\n?? bench/results/bench-1.txt\n D bench/charts/micro.svg\nR  a.go -> bench/results/b.txt\n?? bench/bin/bench.test\nR  old.go -> new.go\n"
	got := changedSources(status)
	want := []string{"M router/tree.go", "?? router/new.go", "R  old.go -> new.go"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if changedSources("") != nil {
		t.Error("an empty status has changes")
	}
}

// gitState on a real repository: clean, then dirty by a changed file and
// by an untracked one, but never by the benchmarks' own outputs.
func TestGitState(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		unavailable(t, "git is not installed (Debian package git)")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("router.go", "package vane\n")
	write("bench/go.mod", "module x\n")
	git("add", ".")
	git("commit", "-q", "-m", "first")
	commit, tree := gitState(filepath.Join(dir, "bench"))
	if len(commit) != 40 || !tree.Clean() {
		t.Fatalf("fresh commit: %q %+v", commit, tree)
	}
	write("BENCHMARKS.md", "# Benchmarks\n")
	write("bench/results/bench-1.txt", "raw")
	write("bench/charts/micro.svg", "<svg/>")
	if _, tree := gitState(dir); !tree.Clean() {
		t.Errorf("outputs make the tree dirty: %+v", tree)
	}
	write("router.go", "package vane // changed\n")
	write("params.go", "package vane\n")
	if _, tree := gitState(dir); !reflect.DeepEqual(tree.Changed, []string{"M router.go", "?? params.go"}) {
		t.Errorf("dirty tree: %+v", tree)
	}
}

func TestPrune(t *testing.T) {
	dir := t.TempDir()
	files := []string{
		"bench-1.txt", "bench-1.json", "bench-2.txt", "bench-2.json",
		"e2e-1.json", "e2e-1-r1-vane.txt", "e2e-2.json", "e2e-2-r1-vane.txt", "e2e-2-r2-vane.txt",
		"notes.md",
	}
	for _, f := range files {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	os.MkdirAll(filepath.Join(dir, "quick"), 0o755)
	os.WriteFile(filepath.Join(dir, "quick", "bench-0.txt"), nil, 0o644)
	e := &report.E2E{Results: []report.E2EResult{{Name: "vane", Rounds: []report.E2ERound{
		{Round: 1, RawFile: "results/e2e-2-r1-vane.txt"}, {Round: 2, RawFile: "results/e2e-2-r2-vane.txt"}}}}}
	keep := shownFiles(filepath.Join(dir, "bench-2.txt"), filepath.Join(dir, "e2e-2.json"), e)
	removed, err := prune(dir, keep)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 4 {
		t.Errorf("removed %q, want the four files of the older runs", removed)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	var names []string
	for _, f := range left {
		names = append(names, filepath.Base(f))
	}
	want := []string{"bench-2.json", "bench-2.txt", "e2e-2-r1-vane.txt", "e2e-2-r2-vane.txt", "e2e-2.json", "notes.md", "quick"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("left %q, want %q", names, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "quick", "bench-0.txt")); err != nil {
		t.Error("prune went into a subdirectory")
	}
}

// A report made from kept files is the same, byte for byte, each time it
// is made from them (which -from does), charts included; sameAgain tells
// a report or a chart that differs.
func TestRenderFromKeptFilesIsIdentical(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "bench-20261122-100000.txt")
	var text strings.Builder
	text.WriteString("vane-commit: 0123456789abcdef\nvane-tree: clean\ngoos: linux\ngoarch: amd64\ncpu: Test CPU\n")
	for r := 1; r <= 6; r++ {
		fmt.Fprintf(&text, "round: %d\n", r)
		for i, p := range []string{"vane", "httprouter", "chi"} {
			fmt.Fprintf(&text, "BenchmarkMicro/Param20/%s \t1000\t%d ns/op\t0 B/op\t0 allocs/op\n", p, 100*(i+1)+r)
			fmt.Fprintf(&text, "BenchmarkTablesRead/GitHubAll/%s \t1000\t%d ns/op\t0 B/op\t0 allocs/op\n", p, 10000*(i+1)+r)
		}
	}
	os.WriteFile(raw, []byte(text.String()), 0o644)
	meta := report.Meta{Rounds: 6, Commit: "0123456789abcdef", RawFile: "results/bench-20261122-100000.txt", Peers: []string{"vane", "httprouter", "chi"},
		Command: "make bench", Status: map[string]report.Status{"Micro/Param20/huma": {State: report.StateLacks, Reason: "no routing"}}}
	if err := report.WriteJSON(metaFile(raw), meta); err != nil {
		t.Fatal(err)
	}
	in := inputs{raw: raw, chartDir: filepath.Join(dir, "charts"), chartRel: "charts"}
	os.MkdirAll(in.chartDir, 0o755)
	md, rep, err := render(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| Micro Param20 | **") || rep.Meta.Commit != meta.Commit {
		t.Fatalf("the report is not made from the files:\n%s", md)
	}
	if err := sameAgain(in, md); err != nil {
		t.Errorf("rendered again: %v", err)
	}
	if err := sameAgain(in, append(md, '\n')); err == nil {
		t.Error("a report that differs passed")
	}
	os.WriteFile(filepath.Join(in.chartDir, "micro.svg"), []byte("<svg/>"), 0o644)
	if err := sameAgain(in, md); err == nil || !strings.Contains(err.Error(), "micro.svg") {
		t.Errorf("a chart that differs passed: %v", err)
	}
	if _, _, err := render(inputs{raw: filepath.Join(dir, "bench-none.txt")}); err == nil {
		t.Error("a raw file without metadata rendered")
	}
}

// unavailable skips t for a missing tool, or fails it when
// VANE_REQUIRE_TOOLS=1 (CI): the local form of internal/testtool.Unavailable.
func unavailable(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("VANE_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%s; VANE_REQUIRE_TOOLS=1, so a missing tool is a failure", why)
	}
	t.Skip(why)
}
