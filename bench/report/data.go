// Package report turns raw `go test -bench` output into BENCHMARKS.md: it
// reads the output with benchfmt, summarises every sample with benchmath
// (the packages behind benchstat), pairs the runs of each round into
// ratios vane ÷ peer whose 95% intervals decide every verdict, checks
// vane's targets and draws the charts.
package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
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

// RoundKey is the configuration line that marks the runs of one round in
// raw output: "round: 3" before the third round's results. Runs of the
// same round are paired: they ran within moments of each other.
const RoundKey = "round"

// Data is the parsed output of one or more `go test -bench` runs.
type Data struct {
	Samples map[Key]map[string][]float64 // unit -> values, one per run
	Config  map[string]string            // file configuration lines (goos, cpu, ...), less the round
	rounds  map[Key][]int                // the round of each run, in the order of Samples' values; 0 when unmarked
	order   map[string][]string          // category -> cases, in order of appearance
	peers   map[string][]string          // category -> peers, in order of appearance
}

// Parse reads `go test -bench` output. Benchmarks are named
// Benchmark<Category>/<Case>/<Peer>; other names are ignored. A run's
// round is the value of the last "round:" line before it (RoundKey).
func Parse(r io.Reader, fileName string) (*Data, error) {
	d := &Data{
		Samples: map[Key]map[string][]float64{},
		Config:  map[string]string{},
		rounds:  map[Key][]int{},
		order:   map[string][]string{},
		peers:   map[string][]string{},
	}
	br := benchfmt.NewReader(r, fileName)
	for br.Scan() {
		res, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue // syntax errors: go test's own lines, logs
		}
		round := 0
		for _, c := range res.Config {
			if c.Key == RoundKey {
				if n, err := strconv.Atoi(string(c.Value)); err == nil && n > 0 {
					round = n
				}
				continue
			}
			if c.File {
				d.Config[c.Key] = string(c.Value)
			}
		}
		k, ok := splitName(res.Name)
		if !ok {
			continue
		}
		d.add(k, res.Values)
		d.rounds[k] = append(d.rounds[k], round)
	}
	return d, br.Err()
}

// ByRound returns the values of unit in cell k by round (the mean, if a
// round ran the cell more than once). Runs without a round are left out.
func (d *Data) ByRound(k Key, unit string) map[int]float64 {
	vals, rounds := d.Samples[k][unit], d.rounds[k]
	if len(vals) != len(rounds) {
		return nil // a unit some runs lack: no pairing
	}
	sum, n := map[int]float64{}, map[int]int{}
	for i, v := range vals {
		if r := rounds[i]; r > 0 {
			sum[r] += v
			n[r]++
		}
	}
	out := make(map[int]float64, len(sum))
	for r, s := range sum {
		out[r] = s / float64(n[r])
	}
	return out
}

// Max is the largest value of unit in cell k over every run; ok is false
// when there is none. Allocation counts are checked with it: one run that
// allocates is an allocation.
func (d *Data) Max(k Key, unit string) (float64, bool) {
	vals := d.Samples[k][unit]
	if len(vals) == 0 {
		return 0, false
	}
	m := vals[0]
	for _, v := range vals[1:] {
		m = math.Max(m, v)
	}
	return m, true
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
}

// Stat summarises the values of unit in cell k; ok is false when there are none.
func (d *Data) Stat(k Key, unit string) (Stat, bool) {
	vals := d.Samples[k][unit]
	if len(vals) == 0 {
		return Stat{}, false
	}
	s := benchmath.NewSample(append([]float64(nil), vals...), &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, 0.95)
	return Stat{Center: sum.Center, Lo: sum.Lo, Hi: sum.Hi, N: len(vals)}, true
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
