package report

import (
	"fmt"
	"io"
	"math"
	"path"
	"sort"
	"strings"
)

// Category is one section of the report.
type Category struct {
	Name  string // as in the benchmark name: Benchmark<Name>/<case>/<peer>
	Title string
	Unit  string // the unit rows are ranked by
	Base  string // the column ratios are taken to
	Intro string
}

// Categories are the report's sections, in order.
var Categories = []Category{
	{"Tables", "Route tables", UnitNs, "vane",
		"The go-http-routing-benchmark workload over real API route tables (Static: 157 static routes, GitHub: 203, Google+: 13, Parse: 26). *Static*, *Param* and *2Params* make one request; *All* requests every route of the table once per operation. Every handler reads each of its parameters through the framework's own accessor."},
	{"Memory", "Memory to hold each route table", UnitRouter, "vane",
		"Heap kept by a router ready to serve the table: every route registered and one request served (vane compiles its tree on the first request), measured with runtime.ReadMemStats after a GC, handlers included (built the same way for every router). In the raw output, ns/op, B/op and allocs/op are the cost of getting there."},
	{"Micro", "Micro benchmarks", UnitNs, "vane",
		"One route each: Param `/user/{name}`, Param5 and Param20 (5 and 20 parameters), ParamWrite (the handler writes the value), Static `GET /`, MultiParam `/users/{userID}/posts/{postID}`, Wildcard `/static/{filepath...}`, DeepNesting (4 parameters, 10 segments), NotFound (a miss against the GitHub table)."},
	{"Middleware", "Middleware, groups and parallel", UnitNs, "vane",
		"Middleware5/10/20: that many pass-through middleware in the framework's own idiom in front of `/user/{name}`. Groups: `/api` with one middleware, a nested `/v1` with another. Parallel: `/user/{name}` under `b.RunParallel`."},
	{"Data", "Data handling", UnitNs, "vane",
		"JSONBind: decode a small JSON user with the framework's binding and answer its name. JSONList100: answer 100 items as JSON with the framework's JSON writer."},
	{"Codec", "Response codec", UnitNs, "vane",
		"The encode comparison of the jsoniter seed: 50 devices (with a map of attributes and a timestamp), by Marshal and by a streaming encoder (vane has none: it marshals, then writes). *vane* is vane's default codec, `codec.JSON`; any other can be plugged in through `codec.Codec`."},
	{"Typed", "Typed operations", UnitNs, "vane",
		"Greeting: Huma's greeting operation (path parameter, header, query parameter, JSON body with a maxLength rule, two response headers, JSON response) as a vane typed operation, as a huma operation, and written by hand in chi, gin, echo and on vane's router (vane-hand). Param: one integer path parameter with `minimum: 1`, bound and validated, answered as JSON; vane-hand is the same route read by hand."},
}

// Report is everything Render needs.
type Report struct {
	Data     *Data
	Meta     Meta
	E2E      *E2E   // nil until an end-to-end run exists
	ChartDir string // where Render writes the SVG charts
	ChartRel string // how BENCHMARKS.md links to ChartDir
	notes    footnotes
}

type footnotes struct {
	ids   map[string]int
	texts []string
}

func (f *footnotes) ref(text string) string {
	if f.ids == nil {
		f.ids = map[string]int{}
	}
	id, ok := f.ids[text]
	if !ok {
		f.texts = append(f.texts, text)
		id = len(f.texts)
		f.ids[text] = id
	}
	return fmt.Sprintf("[^%d]", id)
}

func (r *Report) status(k Key) (Status, bool) {
	s, ok := r.Meta.Status[k.String()]
	return s, ok
}

// columns are the peers shown in a category: every peer with a result or
// a status other than skip, in Meta.Peers order, then any others.
func (r *Report) columns(cat string) []string {
	var cols []string
	seen := map[string]bool{}
	consider := append(append([]string(nil), r.Meta.Peers...), r.Data.Peers(cat)...)
	for _, p := range consider {
		if seen[p] {
			continue
		}
		seen[p] = true
		for _, c := range r.cases(cat) {
			k := Key{cat, c, p}
			_, has := r.Data.Samples[k]
			st, ok := r.status(k)
			if has || (ok && st.State != StateSkip) {
				cols = append(cols, p)
				break
			}
		}
	}
	return cols
}

// ordered sorts peers as Meta.Peers lists them; others keep their order after.
func (r *Report) ordered(peers []string) []string {
	idx := func(p string) int {
		for i, q := range r.Meta.Peers {
			if q == p {
				return i
			}
		}
		return len(r.Meta.Peers)
	}
	out := append([]string(nil), peers...)
	sort.SliceStable(out, func(i, j int) bool { return idx(out[i]) < idx(out[j]) })
	return out
}

// cases are a category's rows: those that ran, then those where vane's
// cell is pending and nothing ran (so that work not done yet still shows).
func (r *Report) cases(cat string) []string {
	cs := append([]string(nil), r.Data.Cases(cat)...)
	var extra []string
	for k, st := range r.Meta.Status {
		parts := strings.SplitN(k, "/", 3)
		if len(parts) == 3 && parts[0] == cat && st.State == StatePending && !contains(cs, parts[1]) && !contains(extra, parts[1]) {
			extra = append(extra, parts[1])
		}
	}
	sort.Strings(extra)
	return append(cs, extra...)
}

// cell renders a value, or why there is none.
func (r *Report) cell(k Key, unit string) (string, bool) {
	if st, ok := r.status(k); ok {
		switch st.State {
		case StateLacks:
			return "—" + r.notes.ref(st.Reason), false
		case StatePending:
			return "pending" + r.notes.ref(st.Reason), false
		case StateWrong:
			return "✗ wrong" + r.notes.ref(k.Peer+" answered "+k.Case+" wrongly, so it was not timed: "+st.Reason), false
		case StateSkip:
			return "", false
		}
	}
	s, ok := r.Data.Stat(k, unit)
	if !ok {
		return "", false
	}
	if unit == UnitRouter {
		return FormatBytes(s.Center), true
	}
	return FormatTime(s.Center), true
}

// Render writes BENCHMARKS.md to w and the charts to ChartDir.
func (r *Report) Render(w io.Writer) error {
	var b strings.Builder
	r.header(&b)
	r.summary(&b)
	r.targets(&b)
	r.losses(&b)
	for _, c := range Categories {
		if len(r.cases(c.Name)) == 0 {
			continue
		}
		if err := r.category(&b, c); err != nil {
			return err
		}
	}
	r.e2e(&b)
	r.reproduce(&b)
	if len(r.notes.texts) > 0 {
		b.WriteString("\n## Notes\n\n")
		for i, t := range r.notes.texts {
			fmt.Fprintf(&b, "[^%d]: %s\n", i+1, t)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) header(b *strings.Builder) {
	m := r.Meta
	b.WriteString("# Benchmarks\n\n")
	b.WriteString("<!-- Generated by `go run ./cmd/report` in bench/. Do not edit: rerun it. -->\n\n")
	if m.Quick {
		b.WriteString("> **Quick mode** (CI): one short run per benchmark, only to prove the system works. Do not read these numbers.\n\n")
	}
	b.WriteString("vane measured side by side with the routers and frameworks its users would pick instead, in one run on one machine. Every number below comes from `go test -bench -benchmem` in the `bench/` module, summarised with benchstat's statistics (golang.org/x/perf): the median of the runs and the 95% confidence interval around it (± spread). Before anything is timed, every adapter is checked to answer every request of its case with the right route, the right parameter values and the right response; a peer that answers wrongly is reported, not timed.\n\n")
	b.WriteString("## Machine and versions\n\n")
	b.WriteString("| | |\n|---|---|\n")
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(b, "| %s | %s |\n", k, v)
		}
	}
	row("date (UTC)", m.Date)
	row("OS", m.OS)
	row("CPU", firstNonEmpty(m.CPU, r.Data.Config["cpu"]))
	if m.Cores > 0 {
		row("cores", fmt.Sprint(m.Cores))
	}
	row("goos/goarch", strings.Trim(r.Data.Config["goos"]+"/"+r.Data.Config["goarch"], "/"))
	row("Go", m.GoVersion)
	row("vane", m.VaneCommit)
	runs := fmt.Sprintf("-count=%d", m.Count)
	if m.Benchtime != "" {
		runs += " -benchtime=" + m.Benchtime
	}
	row("runs", runs)
	row("raw output", "`bench/"+m.RawFile+"`")
	b.WriteString("\n| peer | module | version |\n|---|---|---|\n")
	for _, v := range m.Versions {
		fmt.Fprintf(b, "| %s | %s | %s |\n", v.Name, firstNonEmpty(v.Module, "standard library"), v.Version)
	}
	b.WriteString("\n")
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// summaryCategories are the categories whose columns are the peers.
func summaryCategories() []Category {
	var cs []Category
	for _, c := range Categories {
		if c.Name != "Codec" {
			cs = append(cs, c)
		}
	}
	return cs
}

func (r *Report) summary(b *strings.Builder) {
	var cols []string
	for _, c := range summaryCategories() {
		for _, p := range r.columns(c.Name) {
			if !contains(cols, p) {
				cols = append(cols, p)
			}
		}
	}
	cols = r.ordered(cols)
	b.WriteString("## Summary\n\n")
	b.WriteString("Median time per operation (Memory rows: heap kept by the router); the winner of each row is named, and where vane does not win, by how much it loses. \"—\": the peer cannot express the case; \"pending\": not built yet.\n\n")
	b.WriteString("| Benchmark | " + strings.Join(cols, " | ") + " | Winner |\n")
	b.WriteString("|---" + strings.Repeat("|---:", len(cols)) + "|---|\n")
	for _, c := range summaryCategories() {
		for _, cs := range r.cases(c.Name) {
			fmt.Fprintf(b, "| %s %s |", c.Name, cs)
			win, tied := r.Data.Winner(c.Name, cs, cols, c.Unit)
			for _, p := range cols {
				text, _ := r.cell(Key{c.Name, cs, p}, c.Unit)
				if p == win && text != "" {
					text = "**" + text + "**"
				}
				fmt.Fprintf(b, " %s |", text)
			}
			fmt.Fprintf(b, " %s |\n", r.winnerText(c, cs, win, tied))
		}
	}
	b.WriteString("\n")
}

func (r *Report) winnerText(c Category, cs, win string, tied []string) string {
	if win == "" {
		return "—"
	}
	text := "**" + win + "**"
	if len(tied) > 0 {
		text += " ≈ " + strings.Join(tied, ", ")
	}
	if c.Base == "vane" && win != "vane" && !contains(tied, "vane") {
		ratio := r.Data.Ratio(c.Name, cs, "vane", win, c.Unit)
		if !math.IsNaN(ratio) {
			text += fmt.Sprintf(" (vane %.2f× %s)", ratio, worse(c.Unit))
		} else if st, ok := r.status(Key{c.Name, cs, "vane"}); ok && st.State == StatePending {
			text += " (vane pending)"
		}
	}
	return text
}

func worse(unit string) string {
	if unit == UnitRouter {
		return "more"
	}
	return "slower"
}

// losses lists every row vane does not win.
func (r *Report) losses(b *strings.Builder) {
	var lines []string
	for _, c := range Categories {
		if c.Base != "vane" {
			continue
		}
		cols := r.columns(c.Name)
		for _, cs := range r.cases(c.Name) {
			win, tied := r.Data.Winner(c.Name, cs, cols, c.Unit)
			if win == "" || win == "vane" || contains(tied, "vane") {
				continue
			}
			ratio := r.Data.Ratio(c.Name, cs, "vane", win, c.Unit)
			if math.IsNaN(ratio) {
				continue
			}
			lines = append(lines, fmt.Sprintf("- %s %s: **%s** wins; vane is %.2f× %s.", c.Name, cs, win, ratio, worse(c.Unit)))
		}
	}
	b.WriteString("## Where vane loses\n\n")
	if len(lines) == 0 {
		b.WriteString("vane wins every row it runs in.\n\n")
		return
	}
	b.WriteString(strings.Join(lines, "\n") + "\n\n")
}

func (r *Report) category(b *strings.Builder, c Category) error {
	cols := r.columns(c.Name)
	fmt.Fprintf(b, "## %s\n\n%s\n\n", c.Title, c.Intro)
	if r.ChartDir != "" {
		file := strings.ToLower(c.Name) + ".svg"
		ok, err := r.chart(c, cols, path.Join(r.ChartDir, file))
		if err != nil {
			return err
		}
		if ok {
			fmt.Fprintf(b, "![%s](%s)\n\n", c.Title, path.Join(r.ChartRel, file))
		}
	}
	if c.Name == "Memory" {
		r.memoryTable(b, c, cols)
		return nil
	}
	for _, cs := range r.cases(c.Name) {
		r.caseTable(b, c, cs, cols)
	}
	if c.Name == "Typed" {
		r.overheadTable(b)
	}
	return nil
}

// overheadTable is the "schema overhead" table of the Gofi seed: what
// binding and validation from types cost over the same work by hand, for
// vane (over its own router) and for huma (over chi, its router here).
func (r *Report) overheadTable(b *strings.Builder) {
	rows := []struct{ cat, cs string }{{"Data", "JSONBind"}, {"Data", "JSONList100"}, {"Typed", "Greeting"}, {"Typed", "Param"}}
	ratio := func(cat, cs, typed, hand string) string {
		v := r.Data.Ratio(cat, cs, typed, hand, UnitNs)
		if math.IsNaN(v) {
			return ""
		}
		return fmt.Sprintf("%.2f×", v)
	}
	timeOf := func(cat, cs, p string) string {
		if s, ok := r.Data.Stat(Key{cat, cs, p}, UnitNs); ok {
			return FormatTime(s.Center)
		}
		return ""
	}
	b.WriteString("### Typed overhead\n\n")
	b.WriteString("The cost of binding and validating from types over the same work by hand: vane's typed operation over vane's router by hand (vane-hand; the brief's bound for one typed parameter is 1.3×), and huma over chi by hand.\n\n")
	b.WriteString("| Workload | vane | vane-hand | vane overhead | huma | chi | huma overhead |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, row := range rows {
		fmt.Fprintf(b, "| %s %s | %s | %s | %s | %s | %s | %s |\n", row.cat, row.cs,
			timeOf(row.cat, row.cs, "vane"), timeOf(row.cat, row.cs, "vane-hand"), ratio(row.cat, row.cs, "vane", "vane-hand"),
			timeOf(row.cat, row.cs, "huma"), timeOf(row.cat, row.cs, "chi"), ratio(row.cat, row.cs, "huma", "chi"))
	}
	b.WriteString("\n")
}

// memoryTable has the shape of the seeds' memory table: a row per router,
// a column per route table.
func (r *Report) memoryTable(b *strings.Builder, c Category, cols []string) {
	cases := r.cases(c.Name)
	b.WriteString("| Router | " + strings.Join(cases, " | ") + " |\n")
	b.WriteString("|---" + strings.Repeat("|---:", len(cases)) + "|\n")
	best := map[string][]string{}
	for _, cs := range cases {
		best[cs] = bestThree(r.Data, c.Name, cs, cols, UnitRouter)
	}
	for _, p := range cols {
		fmt.Fprintf(b, "| %s |", p)
		for _, cs := range cases {
			text, ok := r.cell(Key{c.Name, cs, p}, UnitRouter)
			if ok && contains(best[cs], p) {
				text = "**" + text + "**"
			}
			fmt.Fprintf(b, " %s |", text)
		}
		b.WriteString("\n")
	}
	b.WriteString("\nThe best three of each column are bold.\n\n")
	for _, cs := range cases {
		r.verdict(b, c, cs, cols)
	}
	b.WriteString("\n")
}

// bestThree returns the peers whose value is at most the third-best
// value, when more than three peers have one.
func bestThree(d *Data, cat, cs string, cols []string, unit string) []string {
	ranked := d.Ranked(cat, cs, cols, unit)
	if len(ranked) <= 3 {
		return nil // bold means something only when some are left out
	}
	cut := ranked[min(2, len(ranked)-1)]
	limit, _ := d.Stat(Key{cat, cs, cut}, unit)
	var out []string
	for _, p := range ranked {
		s, _ := d.Stat(Key{cat, cs, p}, unit)
		if s.Center <= limit.Center {
			out = append(out, p)
		}
	}
	return out
}

func (r *Report) caseTable(b *strings.Builder, c Category, cs string, cols []string) {
	fmt.Fprintf(b, "### %s\n\n", cs)
	base := c.Base
	fmt.Fprintf(b, "| %s | ns/op | B/op | allocs/op | vs %s |\n|---|---:|---:|---:|---:|\n", columnTitle(c), base)
	units := []string{UnitNs, UnitB, UnitAllocs}
	best := map[string][]string{}
	for _, u := range units {
		best[u] = bestThree(r.Data, c.Name, cs, cols, u)
	}
	for _, p := range cols {
		k := Key{c.Name, cs, p}
		if text, ok := r.cell(k, UnitNs); !ok {
			if text != "" {
				fmt.Fprintf(b, "| %s | %s | | | |\n", p, text)
			}
			continue
		}
		label := p
		if note := r.Meta.Notes[k.String()]; note != "" {
			label += r.notes.ref(note)
		}
		fmt.Fprintf(b, "| %s |", label)
		for _, u := range units {
			s, _ := r.Data.Stat(k, u)
			text := Thousands(s.Center)
			if sp := s.Spread(); !math.IsNaN(sp) && s.N > 1 && (u == UnitNs || sp >= 0.005) {
				text += fmt.Sprintf(" ± %.0f%%", sp*100)
			}
			if contains(best[u], p) {
				text = "**" + text + "**"
			}
			fmt.Fprintf(b, " %s |", text)
		}
		ratio := r.Data.Ratio(c.Name, cs, p, base, UnitNs)
		if math.IsNaN(ratio) {
			b.WriteString(" |\n")
		} else {
			fmt.Fprintf(b, " %.2f× |\n", ratio)
		}
	}
	b.WriteString("\n")
	r.verdict(b, c, cs, cols)
	b.WriteString("\n")
}

func columnTitle(c Category) string {
	switch c.Name {
	case "Codec":
		return "Codec"
	case "Typed", "Data":
		return "Implementation"
	}
	return "Router"
}

// verdict says in words who won the row, and by how much vane lost.
func (r *Report) verdict(b *strings.Builder, c Category, cs string, cols []string) {
	win, tied := r.Data.Winner(c.Name, cs, cols, c.Unit)
	if win == "" {
		return
	}
	var s string
	switch {
	case c.Base != "vane":
		s = fmt.Sprintf("%s: fastest is %s.", cs, win)
	case win == "vane" && len(tied) == 0:
		s = fmt.Sprintf("%s: vane wins.", cs)
	case win == "vane" || contains(tied, "vane"):
		s = fmt.Sprintf("%s: vane ties with %s.", cs, strings.Join(without(append([]string{win}, tied...), "vane"), ", "))
	default:
		ratio := r.Data.Ratio(c.Name, cs, "vane", win, c.Unit)
		if math.IsNaN(ratio) {
			s = fmt.Sprintf("%s: %s wins; vane has no number here.", cs, win)
		} else {
			s = fmt.Sprintf("%s: **vane loses this row**: %s wins, vane is %.2f× %s.", cs, win, ratio, worse(c.Unit))
		}
	}
	if c.Name == "Typed" {
		if ratio := r.Data.Ratio(c.Name, cs, "vane", "vane-hand", UnitNs); !math.IsNaN(ratio) {
			s += fmt.Sprintf(" Typed vane costs %.2f× the same work by hand on vane's router.", ratio)
		}
	}
	fmt.Fprintf(b, "> %s\n", s)
}

func without(xs []string, x string) []string {
	var out []string
	for _, y := range xs {
		if y != x {
			out = append(out, y)
		}
	}
	return out
}

func (r *Report) reproduce(b *strings.Builder) {
	b.WriteString("## Reproduce\n\n```sh\n")
	for _, c := range r.Meta.Commands {
		b.WriteString(c + "\n")
	}
	b.WriteString("```\n")
}
