package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/vane-http/vane/bench/largeapi"
)

// LargeAPI is one run of the large-API workload (package largeapi): each
// framework at each size of each variant, in Rounds rounds, each in a
// process of its own.
type LargeAPI struct {
	Date           string
	Stamp          string // names the run's file: largeapi-<Stamp>.json
	Commit         string
	Tree           Tree
	ReportCommand  string // the cmd/report command that made the run
	ProcessCommand string // how each process ran (largeapi.RunOptions.Command)
	Rounds         int
	Sizes          []int
	Variants       []int // distinct output types; 0 for shared
	Processes      []largeapi.Process
}

// largeMetric is one cost of the workload.
type largeMetric struct {
	key, title string
	value      func(*largeapi.Result) (float64, bool)
	bytes      bool
}

func cpu(c largeapi.Cost) (float64, bool) { return float64(c.CPU), true }

func formFirst(name string) func(*largeapi.Result) (float64, bool) {
	return func(r *largeapi.Result) (float64, bool) {
		f, ok := r.Forms[name]
		return float64(f.First.CPU), ok
	}
}

func formSecond(name string) func(*largeapi.Result) (float64, bool) {
	return func(r *largeapi.Result) (float64, bool) {
		f, ok := r.Forms[name]
		return float64(f.Second.CPU), ok
	}
}

func formBytes(name string) func(*largeapi.Result) (float64, bool) {
	return func(r *largeapi.Result) (float64, bool) {
		f, ok := r.Forms[name]
		return float64(f.Bytes), ok
	}
}

var (
	lmRegister = largeMetric{"register", "register", func(r *largeapi.Result) (float64, bool) { return cpu(r.Register) }, false}
	lmCheck    = largeMetric{"check", "Check", func(r *largeapi.Result) (float64, bool) {
		if r.Check == nil {
			return 0, false
		}
		return cpu(*r.Check)
	}, false}
	lmFirst     = largeMetric{"first", "first request", func(r *largeapi.Result) (float64, bool) { return cpu(r.First) }, false}
	lmSecond    = largeMetric{"second", "second request", func(r *largeapi.Result) (float64, bool) { return cpu(r.Second) }, false}
	lmJSON      = largeMetric{"json", "first `/openapi.json`", formFirst("json"), false}
	lmYAML      = largeMetric{"yaml", "first `/openapi.yaml`", formFirst("yaml"), false}
	lmJSON30    = largeMetric{"json30", "first 3.0 JSON", formFirst("json30"), false}
	lmYAML30    = largeMetric{"yaml30", "first 3.0 YAML", formFirst("yaml30"), false}
	lmJSON2     = largeMetric{"json2", "second `/openapi.json`", formSecond("json"), false}
	lmYAML2     = largeMetric{"yaml2", "second `/openapi.yaml`", formSecond("yaml"), false}
	lmJSONBytes = largeMetric{"jsonbytes", "`/openapi.json`", formBytes("json"), true}
	lmHeap      = largeMetric{"heap", "live heap", func(r *largeapi.Result) (float64, bool) { return float64(r.Heap), true }, true}
	lmRSS       = largeMetric{"rss", "peak RSS", func(r *largeapi.Result) (float64, bool) { return float64(r.PeakRSS), true }, true}

	// largeCompared are the costs the first table compares, and
	// largeCriteria those vane must have at most Huma's of at the
	// largest size.
	largeCompared = []largeMetric{lmRegister, lmFirst, lmJSON, lmYAML, lmJSON30, lmYAML30, lmRSS}
	largeMore     = []largeMetric{lmSecond, lmJSON2, lmYAML2, lmHeap, lmJSONBytes}
	largeCriteria = []largeMetric{lmRegister, lmFirst, lmJSON, lmYAML, lmRSS}
	largeGrowth   = []largeMetric{lmRegister, lmCheck, lmFirst, lmJSON, lmYAML, lmJSON30, lmYAML30, lmHeap, lmRSS}
)

// median returns the median of m over the rounds of framework at n
// operations and types, and whether any round measured it.
func (l *LargeAPI) median(framework string, n, types int, m largeMetric) (float64, bool) {
	var xs []float64
	for i := range l.Processes {
		p := &l.Processes[i]
		if p.Framework != framework || p.N != n || p.Types != types || p.Result == nil {
			continue
		}
		if v, ok := m.value(p.Result); ok {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return 0, false
	}
	sort.Float64s(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2], true
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2, true
}

// failures are the reasons processes failed, by framework, size and
// variant.
func (l *LargeAPI) failures(framework string, n, types int) []string {
	var out []string
	for _, p := range l.Processes {
		if p.Framework == framework && p.N == n && p.Types == types && p.Status != "ok" {
			out = append(out, fmt.Sprintf("round %d: %s", p.Round, p.Reason))
		}
	}
	return out
}

// Duration renders nanoseconds with three significant digits.
func Duration(ns float64) string {
	switch {
	case ns < 1e3:
		return fmt.Sprintf("%.0f ns", ns)
	case ns < 1e6:
		return sig3(ns/1e3) + " µs"
	case ns < 1e9:
		return sig3(ns/1e6) + " ms"
	}
	return sig3(ns/1e9) + " s"
}

// Megabytes renders bytes in MB (10⁶ bytes) with three significant digits.
func Megabytes(b float64) string {
	if b < 1e6 {
		return sig3(b/1e3) + " kB"
	}
	return sig3(b/1e6) + " MB"
}

func sig3(v float64) string {
	switch {
	case v >= 100:
		return Thousands(math.Round(v))
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func (m largeMetric) format(v float64) string {
	if m.bytes {
		return Megabytes(v)
	}
	return Duration(v)
}

// largeVariant is a variant's short name.
func largeVariant(types int) string {
	if types == 0 {
		return "shared types"
	}
	return Thousands(float64(types)) + " distinct types"
}

func variantTitle(types int) string {
	if types == 0 {
		return "Every operation sharing its types"
	}
	return fmt.Sprintf("Outputs of %s distinct types (%s component schemas and the problem's)", Thousands(float64(types)), Thousands(float64(2*types)))
}

// cell is "vane / huma (ratio×)" for m at n operations and types.
func (r *Report) largeCell(n, types int, m largeMetric) string {
	l := r.LargeAPI
	v, vok := l.median("vane", n, types, m)
	h, hok := l.median("huma", n, types, m)
	cell := func(fw string, x float64, ok bool) string {
		if ok {
			return m.format(x)
		}
		if f := l.failures(fw, n, types); len(f) > 0 {
			return "✗" + r.notes.ref(fmt.Sprintf("%s, %d operations, %s: %s", fw, n, largeVariant(types), strings.Join(f, "; ")))
		}
		return "—"
	}
	s := cell("vane", v, vok) + " / " + cell("huma", h, hok)
	if vok && hok && h > 0 {
		ratio := fmt.Sprintf("%.2f×", v/h)
		if v > h {
			ratio = "**" + ratio + "**"
		}
		s += " (" + ratio + ")"
	}
	return s
}

// largeAPI writes the section of the large-API workload.
func (r *Report) largeAPI(b *strings.Builder) {
	l := r.LargeAPI
	if l == nil {
		return
	}
	sizes := make([]string, len(l.Sizes))
	for i, n := range l.Sizes {
		sizes[i] = Thousands(float64(n))
	}
	fmt.Fprintf(b, "## An API of %s to %s operations\n\n", sizes[0], sizes[len(sizes)-1])
	if l.Commit != "" && (l.Commit != r.Meta.Commit || !l.Tree.Clean()) {
		fmt.Fprintf(b, "Measured at vane commit %s.\n\n", l.Tree.Describe(l.Commit))
	}
	fmt.Fprintf(b, "What a large API costs rather than what a request costs (package `bench/largeapi`): N GET operations, each with a path parameter, two constrained query parameters, a header and a six-field output with a nested struct and a slice, built in vane (with `vane.Docs`) and in Huma v2 on net/http's ServeMux (its humago adapter, `huma.DefaultConfig`), at %s operations. Each framework, size and variant was measured in a process of its own (`%s`), so that its peak memory is its own: register every operation; vane's `Router.Check` (which compiles the routing tree, the encoder of each body type and the document model; Huma has none); the first request to an operation, then a second; the first and the second request for each form of the document (3.1 and 3.0, JSON and YAML, without compression); the live heap after a collection; the peak resident set (`VmHWM`). Times are CPU time: the process's for the large steps (every thread's, the collector's included), the serving thread's for a request (its own work and the collection work it assisted with, not the runtime's background work meanwhile); the median of %d %s, run %s; the raw results, wall-clock times too, are in `%s`. A cell reads *vane / huma (vane ÷ huma)*; a ratio above 1 is in bold.\n\n",
		strings.Join(sizes, ", "), l.ProcessCommand, l.Rounds, plural(l.Rounds, "round", "rounds"), l.Date, benchPath("results/largeapi-"+l.Stamp+".json"))
	for _, k := range l.Variants {
		fmt.Fprintf(b, "### %s\n\n", variantTitle(k))
		r.largeTable(b, k, nil, largeCompared)
		r.largeTable(b, k, &lmCheck, largeMore)
	}
	r.largeGrowth(b)
	for _, line := range r.largeVerdicts() {
		fmt.Fprintf(b, "> %s\n\n", line)
	}
}

// largeTable writes a table of variant types: a row per size, a column
// per metric, after a column of vane's own for own if it is not nil.
func (r *Report) largeTable(b *strings.Builder, types int, own *largeMetric, metrics []largeMetric) {
	l := r.LargeAPI
	b.WriteString("| Operations |")
	if own != nil {
		fmt.Fprintf(b, " vane's %s |", own.title)
	}
	for _, m := range metrics {
		fmt.Fprintf(b, " %s |", m.title)
	}
	b.WriteString("\n|---:|")
	if own != nil {
		b.WriteString("---:|")
	}
	b.WriteString(strings.Repeat("---:|", len(metrics)) + "\n")
	for _, n := range l.Sizes {
		fmt.Fprintf(b, "| %s |", Thousands(float64(n)))
		if own != nil {
			cell := "—"
			if v, ok := l.median("vane", n, types, *own); ok {
				cell = own.format(v)
			}
			fmt.Fprintf(b, " %s |", cell)
		}
		for _, m := range metrics {
			fmt.Fprintf(b, " %s |", r.largeCell(n, types, m))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// growth is the exponent e of cost ∝ N^e between the two largest sizes.
func (l *LargeAPI) growth(framework string, types int, m largeMetric) (float64, int, int, bool) {
	if len(l.Sizes) < 2 {
		return 0, 0, 0, false
	}
	n1, n2 := l.Sizes[len(l.Sizes)-2], l.Sizes[len(l.Sizes)-1]
	a, ok1 := l.median(framework, n1, types, m)
	c, ok2 := l.median(framework, n2, types, m)
	if !ok1 || !ok2 || a <= 0 || c <= 0 {
		return 0, n1, n2, false
	}
	return math.Log(c/a) / math.Log(float64(n2)/float64(n1)), n1, n2, true
}

func (r *Report) largeGrowth(b *strings.Builder) {
	l := r.LargeAPI
	if len(l.Sizes) < 2 {
		return
	}
	n1, n2 := l.Sizes[len(l.Sizes)-2], l.Sizes[len(l.Sizes)-1]
	fmt.Fprintf(b, "### How each cost grows from %s to %s operations\n\n", Thousands(float64(n1)), Thousands(float64(n2)))
	fmt.Fprintf(b, "The exponent e of cost ∝ N^e between the two sizes (1: linear, 2: quadratic), vane / huma.\n\n| Variant |")
	for _, m := range largeGrowth {
		fmt.Fprintf(b, " %s |", m.title)
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---:|", len(largeGrowth)))
	b.WriteString("\n")
	for _, k := range l.Variants {
		fmt.Fprintf(b, "| %s |", largeVariant(k))
		for _, m := range largeGrowth {
			cell := func(fw string) string {
				if e, _, _, ok := l.growth(fw, k, m); ok {
					return fmt.Sprintf("%.2f", e)
				}
				return "—"
			}
			fmt.Fprintf(b, " %s / %s |", cell("vane"), cell("huma"))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// largeVerdicts check the targets of issue 34 on the run: at the largest
// size every cost at most Huma's, each cost of vane growing with an
// exponent of at most 1.1 between the two largest sizes, and the first
// request as cheap at the largest size as at the smallest, within 2×.
func (r *Report) largeVerdicts() []string {
	l := r.LargeAPI
	if len(l.Sizes) == 0 {
		return nil
	}
	top, bottom := l.Sizes[len(l.Sizes)-1], l.Sizes[0]
	var over, steep, met []string
	for _, k := range l.Variants {
		for _, m := range largeCriteria {
			v, vok := l.median("vane", top, k, m)
			h, hok := l.median("huma", top, k, m)
			if vok && hok && v > h {
				over = append(over, fmt.Sprintf("%s at %s operations, %s (%.2f×)", m.title, Thousands(float64(top)), largeVariant(k), v/h))
			}
		}
		for _, m := range largeGrowth {
			if e, _, _, ok := l.growth("vane", k, m); ok && e > 1.1 {
				steep = append(steep, fmt.Sprintf("%s, %s (%.2f)", m.title, largeVariant(k), e))
			}
		}
	}
	var lines []string
	if len(over) == 0 {
		met = append(met, fmt.Sprintf("at %s operations, vane's register, first request, first `/openapi.json`, first `/openapi.yaml` and peak RSS are at most Huma's in every variant", Thousands(float64(top))))
	} else {
		lines = append(lines, "**Above Huma's**: "+strings.Join(over, "; ")+".")
	}
	if len(l.Sizes) >= 2 {
		if len(steep) == 0 {
			met = append(met, "every cost of vane grows with an exponent of at most 1.1 between the two largest sizes")
		} else {
			lines = append(lines, "**Growing faster than N^1.1**: "+strings.Join(steep, "; ")+".")
		}
	}
	for _, k := range l.Variants {
		a, ok1 := l.median("vane", bottom, k, lmFirst)
		c, ok2 := l.median("vane", top, k, lmFirst)
		if !ok1 || !ok2 || top == bottom {
			continue
		}
		s := fmt.Sprintf("vane's first request costs %.2f× at %s operations what it costs at %s (%s)", c/a, Thousands(float64(top)), Thousands(float64(bottom)), largeVariant(k))
		if c > 2*a {
			lines = append(lines, "**"+s+"**: more than 2×.")
		} else {
			met = append(met, s)
		}
	}
	if len(met) > 0 {
		lines = append([]string{"Met: " + strings.Join(met, "; ") + "."}, lines...)
	}
	return lines
}
