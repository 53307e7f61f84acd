// Package report turns raw `go test -bench` output into BENCHMARKS.md: it
// reads the output with benchfmt, summarises every sample with benchmath
// (the packages behind benchstat), names the winner of every row, computes
// each peer's ratio to vane and draws the charts.
package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// Key names one cell: a benchmark row (category and case) and a column.
type Key struct {
	Category, Case, Peer string
}

func (k Key) String() string { return k.Category + "/" + k.Case + "/" + k.Peer }

// Units the report reads. Times are kept in nanoseconds.
const (
	UnitNs     = "ns/op"
	UnitB      = "B/op"
	UnitAllocs = "allocs/op"
	UnitRouter = "router-B"
)

// Data is the parsed output of one or more `go test -bench` runs.
type Data struct {
	Samples map[Key]map[string][]float64 // unit -> values, one per run
	Config  map[string]string            // file configuration lines (goos, cpu, ...)
	order   map[string][]string          // category -> cases, in order of appearance
	peers   map[string][]string          // category -> peers, in order of appearance
}

// Parse reads `go test -bench` output. Benchmarks are named
// Benchmark<Category>/<Case>/<Peer>; other names are ignored.
func Parse(r io.Reader, fileName string) (*Data, error) {
	d := &Data{
		Samples: map[Key]map[string][]float64{},
		Config:  map[string]string{},
		order:   map[string][]string{},
		peers:   map[string][]string{},
	}
	br := benchfmt.NewReader(r, fileName)
	for br.Scan() {
		res, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue // syntax errors: go test's own lines, logs
		}
		for _, c := range res.Config {
			if c.File {
				d.Config[c.Key] = string(c.Value)
			}
		}
		k, ok := splitName(res.Name)
		if !ok {
			continue
		}
		d.add(k, res.Values)
	}
	return d, br.Err()
}

func splitName(n benchfmt.Name) (Key, bool) {
	base, parts := n.Parts()
	var subs []string
	for _, p := range parts {
		if bytes.HasPrefix(p, []byte("/")) {
			subs = append(subs, string(p[1:]))
		}
	}
	// benchfmt drops the "Benchmark" prefix from names.
	if len(subs) != 2 || len(base) == 0 {
		return Key{}, false
	}
	return Key{Category: string(base), Case: subs[0], Peer: subs[1]}, true
}

func (d *Data) add(k Key, values []benchfmt.Value) {
	m := d.Samples[k]
	if m == nil {
		m = map[string][]float64{}
		d.Samples[k] = m
		if !contains(d.order[k.Category], k.Case) {
			d.order[k.Category] = append(d.order[k.Category], k.Case)
		}
		if !contains(d.peers[k.Category], k.Peer) {
			d.peers[k.Category] = append(d.peers[k.Category], k.Peer)
		}
	}
	for _, v := range values {
		unit, val := v.OrigUnit, v.OrigValue
		if unit == "" {
			unit, val = v.Unit, v.Value
		}
		if unit == "sec/op" {
			unit, val = UnitNs, val*1e9
		}
		m[unit] = append(m[unit], val)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Cases lists a category's cases in the order they ran.
func (d *Data) Cases(category string) []string { return d.order[category] }

// Peers lists the columns a category's results have, in the order they ran.
func (d *Data) Peers(category string) []string { return d.peers[category] }

// Stat is the benchstat summary of one sample: its median and the 95%
// confidence interval around it.
type Stat struct {
	Center, Lo, Hi float64
	N              int
	sample         *benchmath.Sample
}

// Stat summarises the values of unit in cell k; ok is false when there are none.
func (d *Data) Stat(k Key, unit string) (Stat, bool) {
	vals := d.Samples[k][unit]
	if len(vals) == 0 {
		return Stat{}, false
	}
	s := benchmath.NewSample(append([]float64(nil), vals...), &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, 0.95)
	return Stat{Center: sum.Center, Lo: sum.Lo, Hi: sum.Hi, N: len(vals), sample: s}, true
}

// Spread is the half-width of the confidence interval relative to the
// center, as benchstat's "± x%"; NaN when it cannot be stated.
func (s Stat) Spread() float64 {
	if s.Center == 0 {
		if s.Lo == 0 && s.Hi == 0 {
			return 0
		}
		return math.NaN()
	}
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		return math.NaN()
	}
	return math.Max(s.Hi/s.Center-1, 1-s.Lo/s.Center)
}

// Same reports whether benchmath's Mann-Whitney U test cannot tell a and
// b apart at alpha 0.05; with fewer than 4 runs each it never says so.
func Same(a, b Stat) bool {
	if a.N < 4 || b.N < 4 {
		return false
	}
	return benchmath.AssumeNothing.Compare(a.sample, b.sample).P > 0.05
}

// Ranked returns the peers that have unit in the row, best (lowest) first.
func (d *Data) Ranked(category, caseName string, peers []string, unit string) []string {
	var have []string
	for _, p := range peers {
		if _, ok := d.Stat(Key{category, caseName, p}, unit); ok {
			have = append(have, p)
		}
	}
	sort.SliceStable(have, func(i, j int) bool {
		a, _ := d.Stat(Key{category, caseName, have[i]}, unit)
		b, _ := d.Stat(Key{category, caseName, have[j]}, unit)
		return a.Center < b.Center
	})
	return have
}

// Winner names the best peer of a row for unit and any peer
// statistically indistinguishable from it ("a ≈ b"); "" when the row is empty.
func (d *Data) Winner(category, caseName string, peers []string, unit string) (winner string, tied []string) {
	r := d.Ranked(category, caseName, peers, unit)
	if len(r) == 0 {
		return "", nil
	}
	best, _ := d.Stat(Key{category, caseName, r[0]}, unit)
	for _, p := range r[1:] {
		s, _ := d.Stat(Key{category, caseName, p}, unit)
		if Same(best, s) {
			tied = append(tied, p)
		}
	}
	return r[0], tied
}

// Ratio is peer's center over base's center for unit (NaN when either is missing).
func (d *Data) Ratio(category, caseName, peer, base, unit string) float64 {
	a, ok1 := d.Stat(Key{category, caseName, peer}, unit)
	b, ok2 := d.Stat(Key{category, caseName, base}, unit)
	if !ok1 || !ok2 || b.Center == 0 {
		return math.NaN()
	}
	return a.Center / b.Center
}

// FormatTime renders nanoseconds the way the seed reports do.
func FormatTime(ns float64) string {
	switch {
	case math.IsNaN(ns):
		return "?"
	case ns < 10:
		return fmt.Sprintf("%.2f ns", ns)
	case ns < 100_000:
		return Thousands(ns) + " ns"
	case ns < 100_000_000:
		return Thousands(ns/1e3) + " µs"
	default:
		return Thousands(ns/1e6) + " ms"
	}
}

// Thousands renders v rounded, with a comma every three digits; values
// under 10 keep two decimals.
func Thousands(v float64) string {
	if v != 0 && math.Abs(v) < 10 && v != math.Trunc(v) {
		return fmt.Sprintf("%.2f", v)
	}
	s := fmt.Sprintf("%.0f", v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// FormatBytes renders a byte count as the memory table of the seeds: "12 KB".
func FormatBytes(b float64) string {
	switch {
	case b < 10_000:
		return Thousands(b) + " B"
	default:
		return Thousands(b/1024) + " KB"
	}
}
