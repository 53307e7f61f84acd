package report

import (
	"fmt"
	"sort"
	"strings"
)

// AllRows are the route-table rows that request every route of a table.
var AllRows = []string{"StaticAll", "GitHubAll", "GPlusAll", "ParseAll"}

// tableCategories are the two variants of the route-table workload.
var tableCategories = []string{"TablesRead", "TablesNoRead"}

// targets checks vane's performance targets against the run: each is met,
// missed, not shown (the 95% interval of the paired ratio contains the
// bound), or cannot be told (too few rounds, or no number).
func (r *Report) targets(b *strings.Builder) {
	type line struct {
		target, result string
		o              Outcome
	}
	var lines []line
	add := func(target, result string, o Outcome) { lines = append(lines, line{target, result, o}) }

	// Route tables: faster than every peer on the All rows, goal 0.8x the best.
	var fast, goal []Outcome
	var fastText, goalText []string
	for _, cat := range tableCategories {
		for _, cs := range AllRows {
			o, text, best, bestP := r.fasterThanAll(cat, cs)
			if o == NotMeasured && text == "" {
				continue
			}
			fast = append(fast, o)
			fastText = append(fastText, fmt.Sprintf("%s %s: %s", variantName(cat), cs, text))
			if best != "" {
				g := AtMostBound(bestP, 0.8, false)
				goal = append(goal, g)
				goalText = append(goalText, fmt.Sprintf("%s %s: vane ÷ %s %s", variantName(cat), cs, best, bestP))
			}
		}
	}
	add("Route tables, the All row of every table (StaticAll, GitHubAll, GPlusAll, ParseAll), handlers reading all and reading none of their parameters: faster than every peer",
		strings.Join(fastText, "; "), Worst(fast...))
	add("Route tables, the same rows: goal at most 0.8× the best peer (vane ÷ the fastest peer ≤ 0.8)",
		strings.Join(goalText, "; "), Worst(goal...))

	// Route tables: no allocation on any row, either variant.
	var tableCases []string
	var tableOuts []Outcome
	var bad []string
	for _, cat := range tableCategories {
		o, text := r.zeroAllocs(cat, r.cases(cat), true)
		tableOuts = append(tableOuts, o)
		if text != "" {
			bad = append(bad, variantName(cat)+": "+text)
		}
		tableCases = append(tableCases, r.cases(cat)...)
	}
	res := fmt.Sprintf("0 B/op and 0 allocs/op in every run of the %d rows", len(tableCases))
	if len(bad) > 0 {
		res = strings.Join(bad, "; ")
	}
	add("Route tables, every Static, Param, 2Params and All row, both variants: 0 B/op and 0 allocs/op", res, Worst(tableOuts...))

	micro := []string{"Param", "Param5", "Param20", "ParamWrite"}
	o, text := r.zeroAllocs("Micro", micro, false)
	add("Micro Param, Param5, Param20 and ParamWrite: 0 allocs/op", firstNonEmpty(text, "0 allocs/op in every run"), o)
	o, text, _, _ = r.fasterThanAll("Micro", "Param20")
	add("Micro Param20: faster than every peer", text, o)

	mw := []string{"Middleware5", "Middleware10", "Middleware20"}
	o, text = r.zeroAllocs("Middleware", mw, false)
	add("Middleware ×5, ×10 and ×20: 0 allocs/op", firstNonEmpty(text, "0 allocs/op in every run"), o)
	o, text = r.boundEach("Middleware", mw, "chi", UnitNs, 1, true)
	add("Middleware ×5, ×10 and ×20: faster than chi (vane ÷ chi < 1)", text, o)

	o, text = r.boundEach("Memory", r.cases("Memory"), "httprouter", UnitRouter, 1, false)
	add("Route-table memory: no more than httprouter's (vane ÷ httprouter ≤ 1, heap kept by the ready router)", text, o)

	o, text = r.boundEach("Typed", []string{"Greeting"}, "gin", UnitNs, 0.5, false)
	add("Typed greeting (Huma's greeting operation): at most 0.5× the same written by hand in gin", text, o)
	if a, ok := r.Data.Max(Key{"Typed", "Greeting", "vane"}, UnitAllocs); ok {
		o := Met
		if a > 6 {
			o = Missed
		}
		add("Typed greeting: at most 6 allocs/op", fmt.Sprintf("%s allocs/op (the most of any run)", Thousands(a)), o)
	} else {
		add("Typed greeting: at most 6 allocs/op", "", NotMeasured)
	}
	o, text = r.boundEach("Typed", []string{"Param"}, "vane-hand", UnitNs, 1.3, false)
	add("One typed path parameter, bound and validated: at most 1.3× the same route read by hand on vane's router (vane-hand)", text, o)

	r.e2eTargets(add)

	b.WriteString("## vane's targets\n\n")
	b.WriteString("Each of vane's performance targets, checked against this run. Comparisons with a peer are decided on the paired ratios (vane ÷ peer, round by round) and their 95% interval; allocation counts on every run.\n\n")
	b.WriteString("| Target | This run | Verdict |\n|---|---|---|\n")
	for _, l := range lines {
		fmt.Fprintf(b, "| %s | %s | %s |\n", l.target, firstNonEmpty(l.result, "—"), l.o)
	}
	b.WriteString("\n")
}

func variantName(cat string) string {
	switch cat {
	case "TablesRead":
		return "reading"
	case "TablesNoRead":
		return "not reading"
	}
	return cat
}

// fasterThanAll checks "vane is faster than every peer" in one row: the
// outcome, a text naming the closest peer (or those not beaten), and the
// closest peer with its paired ratio.
func (r *Report) fasterThanAll(cat, cs string) (Outcome, string, string, Paired) {
	c := categoryOf(cat)
	rw := r.row(c, cs, r.columns(cat))
	if !rw.vane {
		if _, ok := r.Meta.Status[Key{cat, cs, "vane"}.String()]; ok || len(r.Data.Peers(cat)) > 0 {
			return NotMeasured, "vane not measured", "", Paired{}
		}
		return NotMeasured, "", "", Paired{}
	}
	if len(rw.duels) == 0 {
		return NotMeasured, "no peer measured", "", Paired{}
	}
	var outs []Outcome
	for _, d := range rw.duels {
		outs = append(outs, AtMostBound(d.p, 1, true))
	}
	// The closest peer: the largest median ratio vane ÷ peer.
	ds := append([]duel(nil), rw.duels...)
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].p.Center > ds[j].p.Center })
	best := ds[0]
	text := fmt.Sprintf("closest %s, vane ÷ %s %s", best.peer, best.peer, best.p)
	if len(rw.faster) > 0 {
		text = "faster than vane: " + describe(rw.faster)
	} else if len(rw.ties) > 0 {
		text = "tie with " + describe(rw.ties)
	}
	return Worst(outs...), text, best.peer, best.p
}

func describe(ds []duel) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, fmt.Sprintf("%s (vane ÷ %s %s)", d.peer, d.peer, d.p))
	}
	return strings.Join(parts, ", ")
}

// boundEach checks vane ÷ peer ≤ bound (strict: < bound) in each case.
func (r *Report) boundEach(cat string, cases []string, peer, unit string, bound float64, strict bool) (Outcome, string) {
	var outs []Outcome
	var parts []string
	for _, cs := range cases {
		_, okV := r.Data.Stat(Key{cat, cs, "vane"}, unit)
		_, okP := r.Data.Stat(Key{cat, cs, peer}, unit)
		if !okV || !okP {
			outs = append(outs, NotMeasured)
			continue
		}
		p := r.Data.Paired(cat, cs, "vane", peer, unit)
		outs = append(outs, AtMostBound(p, bound, strict))
		parts = append(parts, fmt.Sprintf("%s: vane ÷ %s %s", cs, peer, p))
	}
	return Worst(outs...), strings.Join(parts, "; ")
}

// zeroAllocs checks that no run of vane in the cases allocates (and, with
// bytes, that none reports a byte). The text lists the offenders.
func (r *Report) zeroAllocs(cat string, cases []string, bytes bool) (Outcome, string) {
	var bad, missing []string
	for _, cs := range cases {
		a, ok1 := r.Data.Max(Key{cat, cs, "vane"}, UnitAllocs)
		by, ok2 := r.Data.Max(Key{cat, cs, "vane"}, UnitB)
		if !ok1 || !ok2 {
			missing = append(missing, cs)
			continue
		}
		if a > 0 || (bytes && by > 0) {
			bad = append(bad, fmt.Sprintf("%s (up to %s B/op, %s allocs/op)", cs, Thousands(by), Thousands(a)))
		}
	}
	switch {
	case len(bad) > 0:
		return Missed, "allocates in " + strings.Join(bad, ", ")
	case len(cases) == 0 || len(missing) == len(cases):
		return NotMeasured, "vane not measured"
	case len(missing) > 0:
		return NotMeasured, "not measured: " + strings.Join(missing, ", ")
	}
	return Met, ""
}

func categoryOf(name string) Category {
	for _, c := range Categories {
		if c.Name == name {
			return c
		}
	}
	return Category{Name: name, Unit: UnitNs}
}
