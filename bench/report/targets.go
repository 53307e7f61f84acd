package report

import (
	"fmt"
	"math"
	"strings"
)

// targets checks the performance bounds of vane's brief against the run:
// each is met, missed, or cannot be told yet (no number).
func (r *Report) targets(b *strings.Builder) {
	type row struct{ target, result, verdict string }
	var rows []row
	add := func(target string, ok bool, known bool, result string) {
		v := "not measured"
		switch {
		case known && ok:
			v = "met"
		case known:
			v = "**missed**"
		}
		rows = append(rows, row{target, result, v})
	}
	center := func(cat, cs, peer, unit string) (float64, bool) {
		s, ok := r.Data.Stat(Key{cat, cs, peer}, unit)
		return s.Center, ok
	}
	// fastest checks vane against every other peer in the rows.
	fastest := func(cat string, cases []string, unit string) (bool, bool, string) {
		var lost []string
		known := false
		for _, cs := range cases {
			v, ok := center(cat, cs, "vane", unit)
			if !ok {
				continue
			}
			known = true
			for _, p := range r.columns(cat) {
				if p == "vane" || p == "vane-hand" {
					continue
				}
				if o, ok := center(cat, cs, p, unit); ok && o < v {
					lost = append(lost, fmt.Sprintf("%s (%s)", cs, p))
					break
				}
			}
		}
		if len(lost) == 0 {
			return true, known, "vane is fastest in every row"
		}
		return false, known, "beaten in " + strings.Join(lost, ", ")
	}
	zeroAllocs := func(cat string, cases []string) (bool, bool, string) {
		var bad []string
		known := false
		for _, cs := range cases {
			a, ok1 := center(cat, cs, "vane", UnitAllocs)
			by, ok2 := center(cat, cs, "vane", UnitB)
			if !ok1 || !ok2 {
				continue
			}
			known = true
			if a > 0 || by >= 1 { // B/op is an average: under 1 B is 0
				bad = append(bad, fmt.Sprintf("%s (%s B, %s allocs)", cs, Thousands(by), Thousands(a)))
			}
		}
		if len(bad) == 0 {
			return true, known, "0 B/op, 0 allocs/op everywhere"
		}
		return false, known, "allocates in " + strings.Join(bad, ", ")
	}

	tables := r.cases("Tables")
	ok, known, res := fastest("Tables", tables, UnitNs)
	add("route tables: faster than every peer", ok, known, res)
	ok, known, res = zeroAllocs("Tables", tables)
	add("route tables: 0 B/op, 0 allocs/op", ok, known, res)
	ok, known, res = zeroAllocs("Micro", []string{"Param", "Param5", "Param20", "ParamWrite"})
	add("micro: 0 allocs/op", ok, known, res)
	ok, known, res = fastest("Micro", []string{"Param20"}, UnitNs)
	add("micro: Param20 faster than every peer", ok, known, res)
	mw := []string{"Middleware5", "Middleware10", "Middleware20"}
	ok, known, res = zeroAllocs("Middleware", mw)
	add("middleware ×5/×10/×20: 0 allocs/op", ok, known, res)
	var slower []string
	known = false
	for _, cs := range mw {
		v, ok1 := center("Middleware", cs, "vane", UnitNs)
		c, ok2 := center("Middleware", cs, "chi", UnitNs)
		if ok1 && ok2 {
			known = true
			if v >= c {
				slower = append(slower, cs)
			}
		}
	}
	add("middleware: faster than chi", len(slower) == 0, known, ratioList("Middleware", mw, "vane", "chi", r))

	var worse []string
	known = false
	for _, cs := range r.cases("Memory") {
		v, ok1 := center("Memory", cs, "vane", UnitRouter)
		h, ok2 := center("Memory", cs, "httprouter", UnitRouter)
		if ok1 && ok2 {
			known = true
			if v > h {
				worse = append(worse, cs)
			}
		}
	}
	add("route table memory: no more than httprouter's", len(worse) == 0, known, ratioList("Memory", r.cases("Memory"), "vane", "httprouter", r))

	v, okV := center("Typed", "Greeting", "vane", UnitNs)
	g, okG := center("Typed", "Greeting", "gin", UnitNs)
	c, okC := center("Typed", "Greeting", "chi", UnitNs)
	add("typed greeting: faster than hand-written gin and chi", v < g && v < c, okV && okG && okC,
		fmt.Sprintf("vane %s, gin %s, chi %s", FormatTime(v), FormatTime(g), FormatTime(c)))
	va, okVA := center("Typed", "Greeting", "vane", UnitAllocs)
	ha, okHA := center("Typed", "Greeting", "huma", UnitAllocs)
	add("typed greeting: far fewer allocations than huma (at most half)", va*2 <= ha, okVA && okHA,
		fmt.Sprintf("vane %s allocs/op, huma %s", Thousands(va), Thousands(ha)))
	ratio := r.Data.Ratio("Typed", "Param", "vane", "vane-hand", UnitNs)
	add("one typed parameter: at most 1.3× the same read by hand", ratio <= 1.3, !math.IsNaN(ratio), fmt.Sprintf("%.2f×", ratio))

	r.e2eTargets(func(target, result, verdict string) { rows = append(rows, row{target, result, verdict}) })

	b.WriteString("## The brief's targets\n\n")
	b.WriteString("Each bound of vane's brief, checked against this run (medians; a noisy run can move a verdict, so read it with the spreads below).\n\n")
	b.WriteString("| Target | This run | Verdict |\n|---|---|---|\n")
	for _, row := range rows {
		fmt.Fprintf(b, "| %s | %s | %s |\n", row.target, row.result, row.verdict)
	}
	b.WriteString("\n")
}

func ratioList(cat string, cases []string, a, base string, r *Report) string {
	var parts []string
	for _, cs := range cases {
		if v := r.Data.Ratio(cat, cs, a, base, unitOf(cat)); !math.IsNaN(v) {
			parts = append(parts, fmt.Sprintf("%s %.2f×", cs, v))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "vane/" + base + ": " + strings.Join(parts, ", ")
}

func unitOf(cat string) string {
	for _, c := range Categories {
		if c.Name == cat {
			return c.Unit
		}
	}
	return UnitNs
}
