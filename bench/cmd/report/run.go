package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vane-http/vane/bench/report"
)

// runOptions are what a benchmark run needs.
type runOptions struct {
	dir       string // where the raw output goes
	bench     string // go test -bench filter
	rounds    int
	benchtime string // "" for go test's default
	cpu       int    // the CPU pinned benchmarks run on
	quick     bool
	command   string // the command line that asked for the run
}

// plan is the two commands a round runs: the pinned benchmarks, then the
// unpinned ones (either may be empty).
type plan struct {
	pinned, unpinned []string // argv, "N" standing for the round
}

// testBinary is where the compiled benchmarks go, relative to bench/.
const testBinary = "bin/bench.test"

// makePlan is the two commands of a round for go test's -bench filter:
// the benchmarks that use one CPU, pinned to cpu with GOMAXPROCS=1, and
// those that serve from every CPU (bench_test.go's -bench.set tells them
// apart), unpinned with GOMAXPROCS = cores.
func makePlan(filter string, benchtime string, cpu, cores int) (plan, error) {
	if _, err := regexp.Compile(strings.ReplaceAll(filter, "/", "|")); err != nil {
		return plan{}, fmt.Errorf("-bench %q: %v", filter, err)
	}
	args := func(set string, cpus int) []string {
		a := []string{"./" + testBinary, "-test.run", "^$", "-test.bench", filter, "-test.benchmem", "-test.count", "1", "-test.cpu", strconv.Itoa(cpus), "-test.timeout", "0"}
		if benchtime != "" {
			a = append(a, "-test.benchtime", benchtime)
		}
		return append(a, "-bench.set", set, "-bench.round", "N")
	}
	return plan{
		pinned:   append([]string{"taskset", "-c", strconv.Itoa(cpu)}, args("pinned", 1)...),
		unpinned: args("unpinned", cores),
	}, nil
}

// forRound is argv with the round put in for N.
func forRound(argv []string, round int) []string {
	out := append([]string(nil), argv...)
	if len(out) > 0 && out[len(out)-1] == "N" {
		out[len(out)-1] = strconv.Itoa(round)
	}
	if round == 0 && len(out) >= 2 { // counting: one iteration each, no round
		out = out[:len(out)-2]
		for i := range out {
			if out[i] == "-test.benchtime" {
				out[i+1] = "1x"
			}
		}
		if !contains(out, "-test.benchtime") {
			out = append(out, "-test.benchtime", "1x")
		}
	}
	return out
}

// shell renders argv for a shell.
func shell(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if strings.ContainsAny(a, "^$|*()[]{} '\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// pinCPU is the CPU pinned benchmarks run on by default: the last one
// this process may use (the first usually takes more of the machine's
// interrupts).
func pinCPU() (int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return 0, err
	}
	cpu := -1
	for i := 0; i < 1024; i++ {
		if set.IsSet(i) {
			cpu = i
		}
	}
	if cpu < 0 {
		return 0, errors.New("no CPU in this process's affinity mask")
	}
	return cpu, nil
}

// allowedCPU reports whether this process may run on cpu.
func allowedCPU(cpu int) bool {
	var set unix.CPUSet
	return unix.SchedGetaffinity(0, &set) == nil && cpu >= 0 && set.IsSet(cpu)
}

// needTaskset fails clearly when taskset is absent.
func needTaskset() error {
	if _, err := exec.LookPath("taskset"); err != nil {
		return errors.New("taskset is not installed: the benchmarks run pinned to one CPU with it (Debian package util-linux: apt-get install util-linux)")
	}
	return nil
}

// run checks every adapter, builds the benchmarks, runs them in rounds
// with progress, and keeps the raw output and its metadata under o.dir.
func run(o runOptions) (string, report.Meta, error) {
	start := time.Now().UTC()
	stamp := start.Format("20060102-150405")
	raw := filepath.Join(o.dir, "bench-"+stamp+".txt")
	if err := needTaskset(); err != nil {
		return "", report.Meta{}, err
	}
	if !allowedCPU(o.cpu) {
		return "", report.Meta{}, fmt.Errorf("-cpu %d: this process may not run on CPU %d", o.cpu, o.cpu)
	}

	if o.rounds < report.MinRounds {
		log.Printf("%d rounds: fewer than the %d a 95%% interval needs, so the report will state no verdict", o.rounds, report.MinRounds)
	}
	log.Print("checking every adapter before timing")
	status := statuses()
	wrong := 0
	for _, k := range sortedKeys(status) {
		if s := status[k]; s.State == report.StateWrong {
			wrong++
			log.Printf("  %s answers wrongly, will not be timed: %s", k, s.Reason)
		}
	}
	log.Printf("  %d cells are not timed (the peer lacks the case or is not part of it, vane's work is pending, or the answer is wrong: see the report); %d answer wrongly", len(status), wrong)

	log.Printf("building the benchmarks: go test -c -o %s .", testBinary)
	if out, err := exec.Command("go", "test", "-c", "-o", testBinary, ".").CombinedOutput(); err != nil {
		return "", report.Meta{}, fmt.Errorf("go test -c: %v\n%s", err, out)
	}
	cores := runtime.NumCPU()
	p, err := makePlan(o.bench, o.benchtime, o.cpu, cores)
	if err != nil {
		return "", report.Meta{}, err
	}

	log.Print("counting the benchmarks (each once, one iteration)")
	countStart := time.Now()
	pinnedNames, err := countResults(forRound(p.pinned, 0))
	if err != nil {
		return "", report.Meta{}, err
	}
	unpinnedNames, err := countResults(forRound(p.unpinned, 0))
	if err != nil {
		return "", report.Meta{}, err
	}
	setup := time.Since(countStart)
	perRound := len(pinnedNames) + len(unpinnedNames)
	if perRound == 0 {
		return "", report.Meta{}, fmt.Errorf("-bench %q selects no benchmark", o.bench)
	}
	if len(pinnedNames) == 0 {
		p.pinned = nil
	}
	if len(unpinnedNames) == 0 {
		p.unpinned = nil
	}
	total := perRound * o.rounds
	bt := time.Second
	if o.benchtime != "" {
		if d, err := time.ParseDuration(o.benchtime); err == nil {
			bt = d
		}
	}
	log.Printf("%d benchmarks × %d rounds = %d runs. A guess made before timing anything: about %s (each benchmark about 1.3 × its -benchtime %s, plus %s of setup per round as the counting pass took); the progress line replaces it with the times measured in this run.",
		perRound, o.rounds, total, guess(o.rounds, perRound, bt, setup).Round(time.Second), bt, setup.Round(time.Second))

	commit, tree := gitState("..")
	meta := report.Meta{
		Date:      start.Format("2006-01-02 15:04"),
		Quick:     o.quick,
		Rounds:    o.rounds,
		Benchtime: o.benchtime,
		GoVersion: output("go", "env", "GOVERSION"),
		OS:        output("uname", "-srm"),
		CPU:       cpuModel(),
		Cores:     cores,
		Commit:    commit,
		Tree:      tree,
		Pinning:   pinning(o.cpu, cores, topLevel(unpinnedNames)),
		Command:   o.command,
		Status:    status,
		Notes:     notes(),
		RawFile:   filepath.ToSlash(raw),
		Versions:  versions(commit),
		Unpinned:  topLevel(unpinnedNames),
	}
	if p.pinned != nil {
		meta.PinnedCommand = shell(p.pinned)
	}
	if p.unpinned != nil {
		meta.UnpinnedCommand = shell(p.unpinned)
	}
	for _, peer := range peerNames() {
		meta.Peers = append(meta.Peers, peer)
	}
	meta.Commands = []string{
		o.command,
		"# which runs, in bench/:",
		"go test -c -o " + testBinary + " .",
		fmt.Sprintf("for N in $(seq %d); do echo \"round: $N\"; %s; done | tee %s", o.rounds, strings.Join(loopBody(meta.PinnedCommand, meta.UnpinnedCommand), "; "), filepath.ToSlash(raw)),
	}
	if !tree.Clean() {
		log.Printf("the working tree differs from %s (%d paths): the report will say so", short(commit), len(tree.Changed))
	}
	if err := report.WriteJSON(metaFile(raw), meta); err != nil {
		return "", meta, err
	}

	f, err := os.Create(raw)
	if err != nil {
		return "", meta, err
	}
	defer f.Close()
	fmt.Fprintf(f, "vane-commit: %s\nvane-tree: %s\n", commit, map[bool]string{true: "clean", false: "dirty"}[tree.Clean()])

	est := newEstimator(o.rounds, perRound)
	tty := isTerminal(os.Stderr)
	began := time.Now()
	done := 0
	lastShown := time.Time{}
	for round := 1; round <= o.rounds; round++ {
		fmt.Fprintf(f, "%s: %d\n", report.RoundKey, round)
		for _, argv := range [][]string{p.pinned, p.unpinned} {
			if argv == nil {
				continue
			}
			err := stream(forRound(argv, round), f, func(name string, took time.Duration) {
				done++
				est.observe(round, name, took)
				if tty || time.Since(lastShown) > 15*time.Second || done == total {
					progress(os.Stderr, tty, done, total, time.Since(began), est, fmt.Sprintf("round %d/%d %s", round, o.rounds, name))
					lastShown = time.Now()
				}
			})
			if err != nil {
				return raw, meta, fmt.Errorf("%s: %v (raw output kept in %s)", shell(argv), err, raw)
			}
		}
	}
	if tty {
		fmt.Fprintln(os.Stderr)
	}
	log.Printf("%d runs in %s; raw output in %s", done, time.Since(start).Round(time.Second), raw)
	return raw, meta, nil
}

// stream runs argv, copies its output to w, and calls result with each
// benchmark's name and the time since the previous result (or the start).
func stream(argv []string, w io.Writer, result func(name string, took time.Duration)) error {
	c := exec.Command(argv[0], argv[1:]...)
	c.Stderr = os.Stderr
	pipe, err := c.StdoutPipe()
	if err != nil {
		return err
	}
	if err := c.Start(); err != nil {
		return err
	}
	last := time.Now()
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(w, line)
		switch {
		case isResult(line):
			now := time.Now()
			result(strings.Fields(line)[0], now.Sub(last))
			last = now
		case strings.HasPrefix(line, "--- FAIL"), strings.HasPrefix(line, "FAIL"), strings.HasPrefix(line, "panic"):
			fmt.Fprintln(os.Stderr, "\n"+line)
		}
	}
	return c.Wait()
}

func isResult(line string) bool {
	return strings.HasPrefix(line, "Benchmark") && strings.Contains(line, "ns/op")
}

// countResults runs argv and returns the names of the results it prints.
func countResults(argv []string) ([]string, error) {
	var names []string
	err := stream(argv, io.Discard, func(name string, _ time.Duration) { names = append(names, name) })
	if err != nil {
		return nil, fmt.Errorf("the benchmarks do not run: %s: %v", shell(argv), err)
	}
	return names, nil
}

// topLevel are the distinct top-level benchmarks of results' names
// ("BenchmarkParallel/Param/vane-2" → "BenchmarkParallel").
func topLevel(names []string) []string {
	var out []string
	for _, n := range names {
		top, _, _ := strings.Cut(n, "/")
		if !contains(out, top) {
			out = append(out, top)
		}
	}
	return out
}

// pinning says how the benchmarks were pinned, for the report.
func pinning(cpu, cores int, unpinned []string) string {
	s := fmt.Sprintf("every in-process benchmark ran on CPU %d alone (`taskset -c %d`) with GOMAXPROCS=1 (`-test.cpu 1`): it never migrates between cores, the other core's load (another process, or this benchmark's own garbage collector running beside it) does not blur it, and the garbage collector's work is charged to the benchmark that caused it", cpu, cpu)
	if len(unpinned) > 0 {
		s += fmt.Sprintf("; %s, which serves from every CPU at once, ran unpinned with GOMAXPROCS=%d", strings.Join(unpinned, ", "), cores)
	}
	return s
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// loopBody turns the commands of a round ("N" for the round) into the
// body of a shell loop over $N.
func loopBody(cmds ...string) []string {
	var out []string
	for _, c := range cmds {
		if c != "" {
			out = append(out, strings.TrimSuffix(c, " N")+" $N")
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
