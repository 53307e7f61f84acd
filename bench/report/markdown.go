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
	Unit  string // the unit rows are compared in
	Intro string
}

const tablesIntro = "The go-http-routing-benchmark workload over real API route tables (Static: 157 static routes, GitHub: 203, Google+: 13, Parse: 26). *Static*, *Param* and *2Params* make one request; *All* requests every route of the table once per operation."

// Categories are the report's sections, in order.
var Categories = []Category{
	{"TablesRead", "Route tables, handlers reading every parameter", UnitNs,
		tablesIntro + " Every handler reads each of its parameters through the framework's own accessor."},
	{"TablesNoRead", "Route tables, handlers reading no parameter", UnitNs,
		tablesIntro + " Every handler only records that it ran: what routing alone costs, parameters found but never asked for."},
	{"Memory", "Memory to hold each route table", UnitRouter,
		"Heap kept by a router ready to serve the table: every route registered and one request served (vane compiles its tree on the first request), measured with runtime.ReadMemStats after a GC, handlers included (built the same way for every router). In the raw output, ns/op, B/op and allocs/op are the cost of getting there."},
	{"Micro", "Micro benchmarks", UnitNs,
		"One route each: Param `/user/{name}`, Param5 and Param20 (5 and 20 parameters), ParamWrite (the handler writes the value), Static `GET /`, MultiParam `/users/{userID}/posts/{postID}`, Wildcard `/static/{filepath...}`, DeepNesting (4 parameters, 10 segments), NotFound (a miss against the GitHub table)."},
	{"Middleware", "Middleware and groups", UnitNs,
		"Middleware5/10/20: that many pass-through middleware in the framework's own idiom in front of `/user/{name}`. Groups: `/api` with one middleware, a nested `/v1` with another."},
	{"Parallel", "Parallel", UnitNs,
		"`/user/{name}` served from every CPU at once (`b.RunParallel`). The one benchmark run unpinned, with GOMAXPROCS = the machine's cores: on a shared machine the noisiest row."},
	{"Data", "Data handling", UnitNs,
		"JSONBind: decode a small JSON user with the framework's binding and answer its name. JSONList100: answer 100 items as JSON with the framework's JSON writer."},
	{"Codec", "Response codec", UnitNs,
		"The encode comparison of the jsoniter seed: 50 devices (with a map of attributes and a timestamp), by Marshal and by a streaming encoder (vane has none: it marshals, then writes). *vane* is vane's default codec, `codec.JSON`; any other can be plugged in through `codec.Codec`."},
	{"Typed", "Typed operations", UnitNs,
		"Greeting: Huma's greeting operation (path parameter, header, query parameter, JSON body with a maxLength rule, two response headers, JSON response) as a vane typed operation, as a huma operation, and written by hand in chi, gin, echo and on vane's router (vane-hand). Param: one integer path parameter with `minimum: 1`, bound and validated, answered as JSON; vane-hand is the same route read by hand."},
}

// Report is everything Render needs.
type Report struct {
	Data     *Data
	Meta     Meta
	E2E      *E2E      // nil until an end-to-end run exists
	LargeAPI *LargeAPI // nil until a large-API run exists
	ChartDir string    // where Render writes the SVG charts ("": no charts)
	ChartRel string    // how BENCHMARKS.md links to ChartDir
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
	r.notes = footnotes{}
	var b strings.Builder
	r.header(&b)
	r.method(&b)
	r.summary(&b)
	r.targets(&b)
	r.notWon(&b)
	for _, c := range Categories {
		if len(r.cases(c.Name)) == 0 {
			continue
		}
		if err := r.category(&b, c); err != nil {
			return err
		}
	}
	r.e2e(&b)
	r.largeAPI(&b)
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
		b.WriteString("> **Quick mode** (CI): one short round per benchmark, only to prove the system works. Do not read these numbers.\n\n")
	}
	if m.Commit != "" && !m.Tree.Clean() {
		fmt.Fprintf(b, "> **Measured on a working tree with uncommitted changes** (%d %s differ from commit %s): the figures describe that tree, not the commit.\n\n",
			len(m.Tree.Changed), plural(len(m.Tree.Changed), "file", "files"), short(m.Commit))
	}
	b.WriteString("vane measured side by side with the routers and frameworks its users would pick instead, in one run on one machine. Before anything is timed, every adapter is checked to answer every request of its case with the right route, the right parameter values and the right response; a peer that answers wrongly is reported, not timed.\n\n")
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
	row("vane commit", m.Tree.Describe(m.Commit))
	if m.Rounds > 0 {
		runs := fmt.Sprintf("%d %s", m.Rounds, plural(m.Rounds, "round", "rounds"))
		if m.Benchtime != "" {
			runs += ", -benchtime " + m.Benchtime
		}
		row("runs", runs)
	}
	row("pinning", m.Pinning)
	if m.RawFile != "" {
		row("raw output", "`"+benchPath(m.RawFile)+"` (and its metadata, `.json` beside it)")
	}
	if len(m.Versions) > 0 {
		b.WriteString("\n| peer | module | version |\n|---|---|---|\n")
		for _, v := range m.Versions {
			fmt.Fprintf(b, "| %s | %s | %s |\n", v.Name, firstNonEmpty(v.Module, "standard library"), v.Version)
		}
	}
	b.WriteString("\n")
}

// method says how the numbers were made and how a verdict is reached.
func (r *Report) method(b *strings.Builder) {
	m := r.Meta
	b.WriteString("## How to read this report\n\n")
	if m.Pinning != "" {
		fmt.Fprintf(b, "- **Pinned.** %s.\n", capitalize(strings.TrimSuffix(m.Pinning, ".")))
	}
	fmt.Fprintf(b, "- **Rounds.** Each of the %d rounds ran every benchmark once, the peers of each row one after another (their order rotated each round, so that none always runs first). Runs of one round are seconds apart: a burst of load from elsewhere slows the runs of a round together.\n", max(m.Rounds, 1))
	b.WriteString("- **Times** are medians over the rounds; ± is the half-width of benchstat's 95% confidence interval of the median.\n")
	fmt.Fprintf(b, "- **Verdicts** come from paired ratios, never from medians taken apart: for each peer, the ratio vane ÷ peer is taken in each round between the two runs of that round, and the median of those ratios is given with its 95%% confidence interval (order statistics, as benchstat computes it: no assumption on the distribution), written `0.62× [0.60–0.65]`. *vane faster* when the whole interval is below 1, *peer faster* when it is above 1, *tie* when it contains 1. A bound of vane's targets (say ≤ 0.8×) is *met* when the whole interval is within it, *missed* when the whole interval is beyond it, and *not shown* otherwise. Fewer than %d rounds give no interval, hence no verdict.\n", MinRounds)
	b.WriteString("- **Allocations** (B/op, allocs/op) are deterministic; a target on them holds only if every run of every round meets it.\n\n")
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

// duel is one peer against vane in one row: the paired ratios vane ÷ peer.
type duel struct {
	peer string
	p    Paired
	v    Verdict
}

// row is the outcome of one row from vane's side.
type row struct {
	vane    bool   // vane has a result in the row
	duels   []duel // every peer with a result, in column order
	faster  []duel // peers faster than vane, the fastest (largest ratio) first
	ties    []duel
	slower  []duel // peers vane is faster than
	unknown []duel // too few paired rounds
}

func (r *Report) row(c Category, cs string, cols []string) row {
	var out row
	_, out.vane = r.Data.Stat(Key{c.Name, cs, "vane"}, c.Unit)
	if !out.vane {
		return out
	}
	for _, p := range cols {
		if p == "vane" {
			continue
		}
		if _, ok := r.Data.Stat(Key{c.Name, cs, p}, c.Unit); !ok {
			continue
		}
		pr := r.Data.Paired(c.Name, cs, "vane", p, c.Unit)
		d := duel{p, pr, Compare(pr, false)}
		out.duels = append(out.duels, d)
		switch d.v {
		case PeerFaster:
			out.faster = append(out.faster, d)
		case Tie:
			out.ties = append(out.ties, d)
		case VaneFaster:
			out.slower = append(out.slower, d)
		default:
			out.unknown = append(out.unknown, d)
		}
	}
	// The strongest peer first: the largest ratio vane ÷ peer.
	for _, ds := range [][]duel{out.faster, out.ties, out.slower} {
		sort.SliceStable(ds, func(i, j int) bool { return ds[i].p.Center > ds[j].p.Center })
	}
	return out
}

// winner is who the summary names, and the text of its Winner column.
func (r *Report) winner(c Category, cs string, cols []string) (string, string) {
	rw := r.row(c, cs, cols)
	ranked := r.Data.Ranked(c.Name, cs, cols, c.Unit)
	switch {
	case len(ranked) == 0:
		return "", "—"
	case !rw.vane:
		return ranked[0], fmt.Sprintf("%s by median (vane not measured)", ranked[0])
	case len(rw.duels) == 0:
		return "vane", "vane (alone)"
	case len(rw.unknown) > 0:
		return ranked[0], fmt.Sprintf("%s by median (no verdict: fewer than %d rounds)", ranked[0], MinRounds)
	case len(rw.faster) > 0:
		f := rw.faster[0]
		return f.peer, fmt.Sprintf("**%s** (vane ÷ %s %s)", f.peer, f.peer, f.p)
	case len(rw.ties) > 0:
		return "vane", "**vane** ≈ " + strings.Join(names(rw.ties), ", ")
	}
	return "vane", "**vane**"
}

func names(ds []duel) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.peer
	}
	return out
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
	b.WriteString("Median time per operation (Memory rows: heap kept by the router). The winner of each row comes from the paired ratios: vane when no peer is faster (≈ names the peers it ties with), otherwise the peer furthest ahead, with vane ÷ that peer and its 95% interval. \"—\": the peer cannot express the case; \"pending\": not built yet.\n\n")
	b.WriteString("| Benchmark | " + strings.Join(cols, " | ") + " | Winner |\n")
	b.WriteString("|---" + strings.Repeat("|---:", len(cols)) + "|---|\n")
	for _, c := range summaryCategories() {
		for _, cs := range r.cases(c.Name) {
			fmt.Fprintf(b, "| %s %s |", c.Name, cs)
			win, text := r.winner(c, cs, r.columns(c.Name))
			for _, p := range cols {
				cell, _ := r.cell(Key{c.Name, cs, p}, c.Unit)
				if p == win && cell != "" {
					cell = "**" + cell + "**"
				}
				fmt.Fprintf(b, " %s |", cell)
			}
			fmt.Fprintf(b, " %s |\n", text)
		}
	}
	b.WriteString("\n")
}

// notWon lists every row where a peer is faster than vane, or ties with it.
func (r *Report) notWon(b *strings.Builder) {
	var lost, tied, unknown []string
	for _, c := range Categories {
		cols := r.columns(c.Name)
		for _, cs := range r.cases(c.Name) {
			rw := r.row(c, cs, cols)
			label := c.Name + " " + cs
			for _, d := range rw.faster {
				line := fmt.Sprintf("- %s: **%s** is faster: vane ÷ %s %s.", label, d.peer, d.peer, d.p)
				// What each side does, where the peers noted it.
				for _, p := range []string{d.peer, "vane"} {
					if note := r.Meta.Notes[Key{c.Name, cs, p}.String()]; note != "" {
						line += " " + note
					}
				}
				lost = append(lost, line)
			}
			for _, d := range rw.ties {
				tied = append(tied, fmt.Sprintf("- %s: vane ties with %s: vane ÷ %s %s.", label, d.peer, d.peer, d.p))
			}
			if len(rw.unknown) > 0 {
				unknown = append(unknown, label)
			}
		}
	}
	b.WriteString("## Where vane does not win\n\n")
	if len(lost)+len(tied)+len(unknown) == 0 {
		b.WriteString("Every peer is slower than vane in every row where both ran.\n\n")
		return
	}
	if len(lost) > 0 {
		b.WriteString("A peer is faster:\n\n" + strings.Join(lost, "\n") + "\n\n")
	} else {
		b.WriteString("No peer is faster than vane in any row.\n\n")
	}
	if len(tied) > 0 {
		b.WriteString("Ties (the interval contains 1):\n\n" + strings.Join(tied, "\n") + "\n\n")
	}
	if len(unknown) > 0 {
		fmt.Fprintf(b, "No verdict (fewer than %d paired rounds): %s.\n\n", MinRounds, strings.Join(unknown, ", "))
	}
}

func (r *Report) category(b *strings.Builder, c Category) error {
	cols := r.columns(c.Name)
	fmt.Fprintf(b, "## %s\n\n%s\n\n", c.Title, c.Intro)
	if cmd := r.commandOf(c.Name); cmd != "" {
		fmt.Fprintf(b, "%s\n\n", cmd)
	}
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

// commandOf names the command whose output holds a category's figures.
func (r *Report) commandOf(cat string) string {
	m := r.Meta
	if m.Command == "" {
		return ""
	}
	each := m.PinnedCommand
	if contains(m.Unpinned, "Benchmark"+cat) {
		each = m.UnpinnedCommand
	}
	s := fmt.Sprintf("Figures from `Benchmark%s/<case>/<peer>` in `%s`, made by `%s`", cat, benchPath(m.RawFile), m.Command)
	if each != "" {
		s += fmt.Sprintf(", which runs in bench/, in each round N: `%s`", each)
	}
	return s + "."
}

// overheadTable is the "schema overhead" table of the Gofi seed: what
// binding and validation from types cost over the same work by hand, for
// vane (over its own router) and for huma (over chi, its router here),
// from the paired ratios.
func (r *Report) overheadTable(b *strings.Builder) {
	rows := []struct{ cat, cs string }{{"Data", "JSONBind"}, {"Data", "JSONList100"}, {"Typed", "Greeting"}, {"Typed", "Param"}}
	ratio := func(cat, cs, typed, hand string) string {
		p := r.Data.Paired(cat, cs, typed, hand, UnitNs)
		if p.N() == 0 {
			return ""
		}
		return p.String()
	}
	timeOf := func(cat, cs, p string) string {
		if s, ok := r.Data.Stat(Key{cat, cs, p}, UnitNs); ok {
			return FormatTime(s.Center)
		}
		return ""
	}
	b.WriteString("### Typed overhead\n\n")
	b.WriteString("The cost of binding and validating from types over the same work by hand, as paired ratios: vane's typed operation ÷ vane's router by hand (vane-hand, which answers with the typed answer's status, header fields and JSON, `X-Content-Type-Options: nosniff` included; vane's target for one typed parameter is at most 1.3×), and huma ÷ chi by hand.\n\n")
	b.WriteString("| Workload | vane | vane-hand | vane ÷ vane-hand | huma | chi | huma ÷ chi |\n|---|---:|---:|---:|---:|---:|---:|\n")
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
	limit, _ := d.Stat(Key{cat, cs, ranked[2]}, unit)
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
	fmt.Fprintf(b, "| %s | ns/op | B/op | allocs/op | vane ÷ peer [95%% CI] | verdict |\n|---|---:|---:|---:|---:|---|\n", columnTitle(c))
	units := []string{UnitNs, UnitB, UnitAllocs}
	best := map[string][]string{}
	for _, u := range units {
		best[u] = bestThree(r.Data, c.Name, cs, cols, u)
	}
	_, vaneRan := r.Data.Stat(Key{c.Name, cs, "vane"}, UnitNs)
	for _, p := range cols {
		k := Key{c.Name, cs, p}
		if text, ok := r.cell(k, UnitNs); !ok {
			if text != "" {
				fmt.Fprintf(b, "| %s | %s | | | | |\n", p, text)
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
		switch {
		case p == "vane":
			b.WriteString(" 1 | |\n")
		case !vaneRan:
			b.WriteString(" | |\n")
		default:
			pr := r.Data.Paired(c.Name, cs, "vane", p, UnitNs)
			fmt.Fprintf(b, " %s | %s |\n", pr, Compare(pr, false).Text(p))
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

// verdict says in words how vane fared in the row, from the paired ratios.
func (r *Report) verdict(b *strings.Builder, c Category, cs string, cols []string) {
	rw := r.row(c, cs, cols)
	if !rw.vane || len(rw.duels) == 0 {
		return
	}
	more := "faster"
	if c.Unit == UnitRouter {
		more = "smaller"
	}
	var s string
	switch {
	case len(rw.unknown) > 0:
		s = fmt.Sprintf("%s: no verdict: fewer than %d paired rounds.", cs, MinRounds)
	case len(rw.faster) > 0:
		var parts []string
		for _, d := range rw.faster {
			parts = append(parts, fmt.Sprintf("%s (vane ÷ %s %s)", d.peer, d.peer, d.p))
		}
		s = fmt.Sprintf("%s: **vane loses this row**: %s than vane: %s.", cs, more, strings.Join(parts, ", "))
	case len(rw.ties) > 0:
		var parts []string
		for _, d := range rw.ties {
			parts = append(parts, fmt.Sprintf("%s (%s)", d.peer, d.p))
		}
		s = fmt.Sprintf("%s: vane ties with %s", cs, strings.Join(parts, ", "))
		if len(rw.slower) > 0 {
			s += fmt.Sprintf(" and is %s than the rest", more)
		}
		s += "."
	default:
		d := rw.slower[0]
		s = fmt.Sprintf("%s: vane is %s than every peer; the closest is %s: vane ÷ %s %s.", cs, more, d.peer, d.peer, d.p)
	}
	if c.Name == "Typed" {
		if p := r.Data.Paired(c.Name, cs, "vane", "vane-hand", UnitNs); p.N() > 0 {
			s += fmt.Sprintf(" Typed vane ÷ the same work by hand on vane's router: %s.", p)
		}
	}
	fmt.Fprintf(b, "> %s\n", s)
}

func (r *Report) reproduce(b *strings.Builder) {
	b.WriteString("## Reproduce\n\n```sh\n")
	for _, c := range r.Meta.Commands {
		b.WriteString(c + "\n")
	}
	if r.E2E != nil && r.E2E.ReportCommand != "" {
		b.WriteString(r.E2E.ReportCommand + "   # the end-to-end section\n")
	}
	if r.LargeAPI != nil && r.LargeAPI.ReportCommand != "" {
		b.WriteString(r.LargeAPI.ReportCommand + "   # the large-API section\n")
	}
	if r.Meta.RawFile != "" {
		fmt.Fprintf(b, "cd bench && go run ./cmd/report -from %s   # this report again, from the kept raw output\n", r.Meta.RawFile)
	}
	b.WriteString("```\n")
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// benchPath names a path relative to bench/ from the repository's root.
func benchPath(p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	return "bench/" + p
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
