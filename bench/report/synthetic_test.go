package report

import (
	"fmt"
	"strings"
	"testing"
)

// cell is one benchmark of synthetic output: its time in each round, and
// its allocation counts.
type cell struct {
	k      Key
	ns     func(round int) float64
	b, a   float64            // B/op, allocs/op
	extras map[string]float64 // other units, e.g. router-B
}

// load is the factor a shared machine's load puts on every run of a
// round: bursts of up to 60%, far more than the differences measured.
var load = []float64{1.0, 1.4, 0.9, 1.3, 1.0, 1.6, 0.95, 1.2, 1.1, 1.5}

// steady is a cell whose time is base, times the round's load, times a
// small jitter of its own (±0.5%, different for each cell and round).
func steady(base float64, seed int) func(int) float64 {
	return func(round int) float64 {
		j := float64((round*7+seed*13)%11-5) / 1000
		return base * load[(round-1)%len(load)] * (1 + j)
	}
}

// roundsText writes go test output for rounds rounds, each marked with
// its "round:" line, every cell once per round.
func roundsText(rounds int, cells []cell) string {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\npkg: github.com/vane-http/vane/bench\ncpu: Test CPU\n")
	for r := 1; r <= rounds; r++ {
		fmt.Fprintf(&b, "%s: %d\n", RoundKey, r)
		for _, c := range cells {
			fmt.Fprintf(&b, "Benchmark%s/%s/%s \t1000\t%.2f ns/op\t%.0f B/op\t%.0f allocs/op", c.k.Category, c.k.Case, c.k.Peer, c.ns(r), c.b, c.a)
			for u, v := range c.extras {
				fmt.Fprintf(&b, "\t%.0f %s", v, u)
			}
			b.WriteString("\n")
		}
		b.WriteString("PASS\n")
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

func render(t *testing.T, rep *Report) string {
	t.Helper()
	if rep.ChartDir == "" {
		rep.ChartDir, rep.ChartRel = t.TempDir(), "charts"
	}
	var b strings.Builder
	if err := rep.Render(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// wantAll fails for every string md lacks, and shows md once.
func wantAll(t *testing.T, md string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(md, w) {
			t.Errorf("report lacks %q", w)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
}

func wantNone(t *testing.T, md string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(md, w) {
			t.Errorf("report has %q", w)
		}
	}
}

// section is the part of md from the heading that starts with title to
// the next heading of the same level.
func section(md, title string) string {
	i := strings.Index(md, title)
	if i < 0 {
		return ""
	}
	rest := md[i:]
	level := title[:strings.Index(title, " ")+1]
	if j := strings.Index(rest[len(title):], "\n"+level); j >= 0 {
		return rest[:len(title)+j]
	}
	return rest
}
