package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func metaFor(peers ...string) Meta {
	return Meta{
		Rounds: 6, Benchtime: "300ms", Commit: "0123456789abcdef0123456789abcdef01234567",
		Pinning:         "every in-process benchmark ran on CPU 1 alone (`taskset -c 1`) with GOMAXPROCS=1",
		Command:         "make bench   # = cd bench && go run ./cmd/report -count 6",
		PinnedCommand:   "taskset -c 1 ./bin/bench.test -test.bench '^(BenchmarkMicro)$' -test.cpu 1 -bench.round N",
		UnpinnedCommand: "./bin/bench.test -test.bench '^(BenchmarkParallel)$' -test.cpu 2 -bench.round N",
		Unpinned:        []string{"BenchmarkParallel"},
		RawFile:         "results/bench-20261122-100000.txt",
		Peers:           peers,
	}
}

func TestRenderStatusesAndNotes(t *testing.T) {
	d := parseString(t, roundsText(6, []cell{
		{k: Key{"Micro", "Param", "vane"}, ns: steady(100, 1)},
		{k: Key{"Micro", "Param", "chi"}, ns: steady(200, 2), b: 700, a: 4},
		{k: Key{"Typed", "Greeting", "huma"}, ns: steady(5000, 3)},
		{k: Key{"Typed", "Greeting", "chi"}, ns: steady(3000, 4)},
	}))
	meta := metaFor("vane", "chi", "huma", "httprouter", "gorilla-mux")
	meta.Status = map[string]Status{
		"Micro/Param/huma":             {StateLacks, "huma has no raw routing"},
		"Typed/Greeting/vane":          {StatePending, "typed operations not in the tree yet"},
		"Micro/Param/gorilla-mux":      {StateWrong, "GET /user/gordon: param name = \"\""},
		"Typed/Greeting/gorilla-mux":   {StateSkip, "not part of this workload"},
		"Middleware/Groups/httprouter": {StateLacks, "httprouter has no route groups"},
	}
	meta.Notes = map[string]string{"Micro/Param/chi": "chi note"}
	md := render(t, &Report{Data: d, Meta: meta})
	wantAll(t, md,
		"| Benchmark | vane | chi | huma | gorilla-mux | Winner |",
		"| Micro Param | **115 ns** | 231 ns | —[^1] | ✗ wrong[^2] | **vane** |",
		"[^2]: gorilla-mux answered Param wrongly, so it was not timed: GET /user/gordon: param name = \"\"",
		"[^1]: huma has no raw routing",
		"pending[^",
		"| chi[^4] | 231 ± 38% | 700 | 4 | 0.50× [0.50–0.50] | vane faster |",
		"[^4]: chi note",
		"| Typed Greeting | pending[^3] | **3,454 ns** | 5,744 ns |  | chi by median (vane not measured) |",
		"| Micro Param, Param5, Param20 and ParamWrite: 0 allocs/op | not measured: Param5, Param20, ParamWrite | not measured |",
		"| Typed Greeting |  |  |  | 5,744 ns | 3,454 ns | 1.66× [1.66–1.68] |",
	)
	if strings.Count(md, "huma has no raw routing") != 1 {
		t.Error("a footnote is repeated")
	}
	typed := section(md, "## Typed operations")
	if typed == "" || strings.Contains(typed, "gorilla-mux") {
		t.Errorf("a skipped peer has a row in the Typed tables, or there are none:\n%s", typed)
	}
}

func TestRenderIsDeterministic(t *testing.T) {
	text := roundsText(6, fullRun())
	var first string
	for i := 0; i < 20; i++ {
		d := parseString(t, text)
		meta := metaFor("vane", "vane-hand", "httprouter", "chi", "gin")
		meta.Status = map[string]Status{"Micro/Param/chi": {StateLacks, "a"}, "Micro/Param5/chi": {StateLacks, "b"}, "Micro/Param20/chi": {StatePending, "c"}, "Micro/Zeta/vane": {StatePending, "d"}, "Micro/Alpha/vane": {StatePending, "e"}}
		md := render(t, &Report{Data: d, Meta: meta, E2E: e2eRun(map[string]float64{"net/http": 50000, "vane": 52000, "gin": 48000})})
		if i == 0 {
			first = md
		} else if md != first {
			t.Fatalf("render %d differs from the first", i)
		}
	}
}

func TestHeaderNamesCommitAndTree(t *testing.T) {
	d := parseString(t, roundsText(6, []cell{{k: Key{"Micro", "Param", "vane"}, ns: steady(100, 1)}}))
	t.Run("clean", func(t *testing.T) {
		md := render(t, &Report{Data: d, Meta: metaFor("vane")})
		wantAll(t, md, "| vane commit | `0123456789abcdef0123456789abcdef01234567`, working tree clean |")
		wantNone(t, md, "uncommitted")
	})
	t.Run("dirty", func(t *testing.T) {
		meta := metaFor("vane")
		meta.Tree = Tree{Changed: []string{"M router/tree.go", "?? router/new.go"}}
		md := render(t, &Report{Data: d, Meta: meta})
		wantAll(t, md,
			"> **Measured on a working tree with uncommitted changes** (2 files differ from commit 0123456789ab): the figures describe that tree, not the commit.",
			"| vane commit | `0123456789abcdef0123456789abcdef01234567` **with uncommitted changes**: `M router/tree.go`, `?? router/new.go` |",
		)
	})
	t.Run("end to end at another commit", func(t *testing.T) {
		e := e2eRun(map[string]float64{"net/http": 50000, "vane": 52000})
		e.Commit, e.Tree = "fedcba9876543210", Tree{Changed: []string{"M serve.go"}}
		md := render(t, &Report{Data: d, Meta: metaFor("vane"), E2E: e})
		wantAll(t, md, "Measured at vane commit `fedcba9876543210` **with uncommitted changes**: `M serve.go` (the in-process benchmarks above: `0123456789ab`).")
	})
}

func TestSectionsNameTheirCommand(t *testing.T) {
	d := parseString(t, roundsText(6, []cell{
		{k: Key{"Micro", "Param", "vane"}, ns: steady(100, 1)},
		{k: Key{"Parallel", "Param", "vane"}, ns: steady(50, 2)},
	}))
	md := render(t, &Report{Data: d, Meta: metaFor("vane")})
	wantAll(t, section(md, "## Micro benchmarks"),
		"Figures from `BenchmarkMicro/<case>/<peer>` in `bench/results/bench-20261122-100000.txt`, made by `make bench   # = cd bench && go run ./cmd/report -count 6`, which runs in bench/, in each round N: `taskset -c 1 ./bin/bench.test -test.bench '^(BenchmarkMicro)$' -test.cpu 1 -bench.round N`.")
	wantAll(t, section(md, "## Parallel"), "in each round N: `./bin/bench.test -test.bench '^(BenchmarkParallel)$' -test.cpu 2 -bench.round N`.")
	wantAll(t, section(md, "## Reproduce"), "cd bench && go run ./cmd/report -from results/bench-20261122-100000.txt")
	wantAll(t, md, "- **Pinned.** Every in-process benchmark ran on CPU 1 alone (`taskset -c 1`) with GOMAXPROCS=1.", "| pinning | every in-process benchmark ran on CPU 1 alone")
}

func TestRenderWritesCharts(t *testing.T) {
	d := parseString(t, roundsText(6, fullRun()))
	dir := t.TempDir()
	md := render(t, &Report{Data: d, Meta: metaFor("vane", "httprouter", "chi"), ChartDir: dir, ChartRel: "charts"})
	wantAll(t, md, "![Micro benchmarks](charts/micro.svg)", "![Memory to hold each route table](charts/memory.svg)")
	for _, name := range []string{"micro.svg", "memory.svg", "tablesread.svg", "tablesnoread.svg"} {
		svg, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !strings.Contains(string(svg), "<svg") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Thousands(1234567), "1,234,567"},
		{Thousands(999), "999"},
		{Thousands(7.234), "7.23"},
		{Thousands(-1234), "-1,234"},
		{FormatTime(7.234), "7.23 ns"},
		{FormatTime(1234), "1,234 ns"},
		{FormatTime(117000), "117 µs"},
		{FormatTime(250e6), "250 ms"},
		{FormatBytes(3640), "3,640 B"},
		{FormatBytes(99 * 1024), "99 KB"},
		{ratioText(0.0512), "0.051"},
		{ratioText(1.2345), "1.23"},
	} {
		t.Run(c.want, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %q, want %q", c.got, c.want)
			}
		})
	}
}

// TestLostRowCarriesNotes: a row a peer wins is listed with what the
// peer's and vane's notes on it say each side does.
func TestLostRowCarriesNotes(t *testing.T) {
	d := parseString(t, roundsText(6, []cell{
		{k: Key{"Micro", "NotFound", "vane"}, ns: steady(100, 1)},
		{k: Key{"Micro", "NotFound", "chi"}, ns: steady(50, 2)},
	}))
	meta := metaFor("vane", "chi")
	meta.Notes = map[string]string{
		"Micro/NotFound/chi":  "chi writes less.",
		"Micro/NotFound/vane": "vane writes a problem.",
	}
	lost := section(render(t, &Report{Data: d, Meta: meta}), "## Where vane does not win")
	wantAll(t, lost, "- Micro NotFound: **chi** is faster: vane ÷ chi 2.00× [2.00–2.02]. chi writes less. vane writes a problem.")
}
