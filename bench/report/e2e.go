package report

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"
)

// NetHTTPPeers are the end-to-end servers built on net/http that vane must
// serve more requests per second than; fiber (fasthttp) and FastAPI are
// shown for reference.
var NetHTTPPeers = []string{"gin", "echo", "chi", "huma"}

// FastEngine is the end-to-end server of vane's typed service on vane's
// fast engine (opt in); it is compared with FastPeers, the servers on
// fasthttp: at least fiber's requests/s, more than Huma on fiber's.
const FastEngine = "vane-fast"

var FastPeers = []string{"fiber", "humafiber"}

// RoundOrder is the order in which the servers (given in report order)
// are measured in round (from 0) of rounds: the list rotated by
// round·n/rounds places, so that the rounds spread each server over the
// beginning, middle and end of a round and, with two rounds or more, no
// server is always first or always last.
func RoundOrder(names []string, round, rounds int) []string {
	n := len(names)
	if n == 0 {
		return nil
	}
	if rounds < 1 {
		rounds = 1
	}
	shift := (round % rounds) * n / rounds % n
	out := make([]string, 0, n)
	out = append(out, names[shift:]...)
	return append(out, names[:shift]...)
}

// AggregateE2E summarises one server's rounds: the medians of the rounds
// that were measured, requests and errors summed. The result is "ok" when
// at least one round was measured (Reason then names the rounds that were
// not); otherwise it carries the first failure.
func AggregateE2E(name string, rounds []E2ERound) E2EResult {
	r := E2EResult{Name: name, Status: "failed", Rounds: rounds}
	var ok []E2ERound
	var bad []string
	for _, x := range rounds {
		if x.Status == "ok" {
			ok = append(ok, x)
			continue
		}
		bad = append(bad, fmt.Sprintf("round %d: %s: %s", x.Round, x.Status, x.Reason))
		if r.Reason == "" {
			r.Status, r.Reason = x.Status, x.Reason
		}
	}
	if len(ok) == 0 {
		if len(rounds) == 0 {
			r.Reason = "not measured"
		}
		return r
	}
	r.Status, r.Reason = "ok", ""
	if len(bad) > 0 {
		r.Reason = fmt.Sprintf("measured in %d of %d rounds; %s", len(ok), len(rounds), strings.Join(bad, "; "))
	}
	field := func(f func(E2ERound) float64) float64 {
		xs := make([]float64, len(ok))
		for i, x := range ok {
			xs[i] = f(x)
		}
		return median(xs)
	}
	r.ReqPerSec = field(func(x E2ERound) float64 { return x.ReqPerSec })
	r.AvgMs = field(func(x E2ERound) float64 { return x.AvgMs })
	r.P99Ms = field(func(x E2ERound) float64 { return x.P99Ms })
	r.TransferMB = field(func(x E2ERound) float64 { return x.TransferMB })
	for _, x := range ok {
		r.Requests += x.Requests
		r.Errors += x.Errors
	}
	return r
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// E2EStat is a server's requests per second over its measured rounds.
type E2EStat struct {
	N                int // rounds measured
	Median, Min, Max float64
}

// Stat summarises the requests per second of the rounds measured.
func (r E2EResult) Stat() E2EStat {
	xs := r.byRound()
	if r.Status != "ok" || len(xs) == 0 {
		return E2EStat{}
	}
	s := E2EStat{N: len(xs), Min: -1}
	var vals []float64
	for _, x := range xs {
		vals = append(vals, x)
		if s.Min < 0 || x < s.Min {
			s.Min = x
		}
		s.Max = max(s.Max, x)
	}
	s.Median = median(vals)
	return s
}

// byRound is the requests per second of each round measured.
func (r E2EResult) byRound() map[int]float64 {
	m := map[int]float64{}
	for _, x := range r.Rounds {
		if x.Status == "ok" {
			m[x.Round] = x.ReqPerSec
		}
	}
	return m
}

// PairedE2E is the per-round ratio of a's requests per second to b's:
// above 1, a served more in the same round.
func (e *E2E) PairedE2E(a, b string) Paired {
	by := e.byName()
	return PairRatios(by[a].byRound(), by[b].byRound())
}

func (e *E2E) byName() map[string]E2EResult {
	m := map[string]E2EResult{}
	for _, res := range e.Results {
		m[res.Name] = res
	}
	return m
}

// sliceLength is the length of one slice of a server's measurement.
func (e *E2E) sliceLength() string {
	d, err := time.ParseDuration(e.Duration)
	if err != nil || e.Slices < 1 {
		return "?"
	}
	return (d / time.Duration(e.Slices)).String()
}

func (r *Report) e2e(b *strings.Builder) {
	b.WriteString("## End to end over loopback\n\n")
	e := r.E2E
	if e == nil {
		b.WriteString("pending: no end-to-end run recorded yet (`make bench-e2e`).\n\n")
		return
	}
	switch {
	case e.Commit != "" && r.Meta.Commit != "" && e.Commit != r.Meta.Commit:
		fmt.Fprintf(b, "Measured at vane commit %s (the in-process benchmarks above: `%s`).\n\n", e.Tree.Describe(e.Commit), short(r.Meta.Commit))
	case e.Commit != "" && (r.Meta.Commit == "" || !e.Tree.Clean()):
		fmt.Fprintf(b, "Measured at vane commit %s.\n\n", e.Tree.Describe(e.Commit))
	}
	fmt.Fprintf(b, "The service of the Huma seed, `GET /items/{id}` with an `Authorization` header, a query parameter and a JSON response, served by each implementation on 127.0.0.1 and loaded by wrk (%d %s, %d connections, %s after a %s warm-up). Run %s; %s. ",
		e.Threads, plural(e.Threads, "thread", "threads"), e.Conns, e.Duration, e.Warmup, e.Date, e.Tool)
	if e.Pinning != "" {
		fmt.Fprintf(b, "%s. ", strings.TrimSuffix(e.Pinning, "."))
	}
	if e.Slices > 1 {
		fmt.Fprintf(b, "%d %s. In each, every server is started, checked and warmed up; then each is measured for %s in %d slices of %s, the slices of all the servers taken in turn (one server loaded while the others wait idle, the order rotated by one each pass), so that a burst of load from elsewhere on the machine falls on every server of the round alike; then all are stopped. The order is rotated each round. Per round, a server's req/s is the mean of its slices', its p99 the largest of theirs. Req/s",
			e.Rounds, plural(e.Rounds, "round", "rounds"), e.Duration, e.Slices, e.sliceLength())
	} else {
		fmt.Fprintf(b, "%d %s, each measuring every server once (started, checked, warmed up, measured, stopped), the order rotated each round. Req/s", e.Rounds, plural(e.Rounds, "round", "rounds"))
	}
	fmt.Fprintf(b, " is the median over the rounds, with the range; *vane ÷ it* is the ratio of vane's requests per second to the server's, taken round by round, its median and 95%% interval: above 1, vane serves more. Errors are summed over the rounds.\n\n")
	by := e.byName()
	vane := by["vane"].Stat()
	best := 0.0
	for _, res := range e.Results {
		if s := res.Stat(); s.N > 0 && s.Median > best {
			best = s.Median
		}
	}
	fastCol := by[FastEngine].Stat().N > 0
	if fastCol {
		b.WriteString("| Implementation | Req/s (median) | min–max | Avg (ms) | p99 (ms) | Transfer | vane ÷ it [95% CI] | verdict | " + FastEngine + " ÷ it [95% CI] | Errors |\n|---|---:|---:|---:|---:|---:|---:|---|---:|---:|\n")
	} else {
		b.WriteString("| Implementation | Req/s (median) | min–max | Avg (ms) | p99 (ms) | Transfer | vane ÷ it [95% CI] | verdict | Errors |\n|---|---:|---:|---:|---:|---:|---:|---|---:|\n")
	}
	for _, res := range e.Results {
		s := res.Stat()
		if s.N == 0 {
			empty := "| | | | | | | |"
			if fastCol {
				empty += " |"
			}
			fmt.Fprintf(b, "| %s | %s%s %s\n", res.Name, res.Status, r.notes.ref(res.Name+": "+res.Reason), empty)
			continue
		}
		name := res.Name
		if res.Reason != "" { // some rounds failed
			name += r.notes.ref(res.Name + ": " + res.Reason)
		}
		rps := Thousands(s.Median)
		if s.Median == best {
			rps = "**" + rps + "**"
		}
		rng := Thousands(s.Min) + "–" + Thousands(s.Max)
		if s.N < e.Rounds {
			rng += fmt.Sprintf(" (%d of %d rounds)", s.N, e.Rounds)
		}
		ratio, verdict := "1", ""
		if res.Name != "vane" {
			ratio = ""
			if vane.N > 0 {
				p := e.PairedE2E("vane", res.Name)
				ratio, verdict = p.String(), Compare(p, true).Text(res.Name)
			}
		}
		fastRatio := ""
		switch {
		case !fastCol:
		case res.Name == FastEngine:
			fastRatio = " 1 |"
		default:
			fastRatio = " " + e.PairedE2E(FastEngine, res.Name).String() + " |"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %.3f | %.3f | %.2f MB/s | %s | %s |%s %d |\n", name, rps, rng, res.AvgMs, res.P99Ms, res.TransferMB, ratio, verdict, fastRatio, res.Errors)
	}
	b.WriteString("\n")
	for _, line := range r.e2eVerdicts() {
		fmt.Fprintf(b, "> %s\n\n", line)
	}
	if len(e.Orders) > 0 {
		b.WriteString("Order of the rounds:")
		for i, o := range e.Orders {
			fmt.Fprintf(b, " %d. %s.", i+1, strings.Join(o, " → "))
		}
		b.WriteString("\n\n")
	}
	if e.Versions != "" {
		fmt.Fprintf(b, "%s\n\n", e.Versions)
	}
	if e.ReportCommand != "" {
		runs := "then wrk twice (the warm-up, then the measurement)"
		if e.Slices > 1 {
			runs = fmt.Sprintf("then wrk once to warm it up and %d times to measure it, each slice", e.Slices)
		}
		fmt.Fprintf(b, "Figures made by `%s`, which in each round, for each server, runs `%s`, %s: `%s`. wrk's output of every round: `%s`.\n\n",
			e.ReportCommand, e.ServerCommand, runs, e.Command, benchPath(path.Join(e.rawDir(), "e2e-"+e.Stamp+"-r<round>-<server>.txt")))
	} else {
		fmt.Fprintf(b, "Command: `%s`, %d times per server (one per round).\n\n", e.Command, e.Rounds)
	}
}

// e2eVerdicts are the sentences under the end-to-end table, from the
// paired ratios of vane's requests per second to each server's, and of
// vane-fast's when it was measured.
func (r *Report) e2eVerdicts() []string {
	e := r.E2E
	by := e.byName()
	if by["vane"].Stat().N == 0 {
		return []string{"vane's typed service has no number."}
	}
	out := []string{e.verdicts("vane")}
	if by[FastEngine].Stat().N > 0 {
		out = append(out, e.verdicts(FastEngine))
	}
	return out
}

// verdicts is the sentence of the paired ratios of subject's requests per
// second to every other server's.
func (e *E2E) verdicts(subject string) string {
	var ahead, tied, behind, unknown []string
	for _, res := range e.Results {
		if res.Name == subject || res.Stat().N == 0 {
			continue
		}
		p := e.PairedE2E(subject, res.Name)
		entry := fmt.Sprintf("%s (%s)", res.Name, p)
		switch Compare(p, true) {
		case VaneFaster:
			behind = append(behind, entry)
		case PeerFaster:
			ahead = append(ahead, entry)
		case Tie:
			tied = append(tied, entry)
		default:
			unknown = append(unknown, res.Name)
		}
	}
	var parts []string
	if len(ahead) > 0 {
		parts = append(parts, "**serve more than "+subject+"**: "+strings.Join(ahead, ", "))
	}
	if len(tied) > 0 {
		parts = append(parts, "tie with "+subject+": "+strings.Join(tied, ", "))
	}
	if len(behind) > 0 {
		parts = append(parts, "serve less than "+subject+": "+strings.Join(behind, ", "))
	}
	if len(unknown) > 0 {
		parts = append(parts, fmt.Sprintf("no verdict (fewer than %d paired rounds): %s", MinRounds, strings.Join(unknown, ", ")))
	}
	return "By the paired ratios " + subject + " ÷ server: " + strings.Join(parts, "; ") + "."
}

// e2eTargets checks vane's end-to-end targets on the paired ratios.
func (r *Report) e2eTargets(add func(target, result string, o Outcome)) {
	const (
		tNet   = "End to end: at least bare net/http's requests/s"
		tPeers = "End to end: more requests/s than every net/http-based peer (gin, echo, chi, huma); fiber (fasthttp) shown for reference"
		tFast  = "End to end on the fast engine (opt in): at least fiber's requests/s (vane-fast ÷ fiber: median ≥ 1, interval not below 0.9), more than Huma on fiber's"
	)
	e := r.E2E
	if e == nil {
		add(tNet, "no end-to-end run", NotMeasured)
		add(tPeers, "no end-to-end run", NotMeasured)
		add(tFast, "no end-to-end run", NotMeasured)
		return
	}
	by := e.byName()
	r.e2eFastTarget(tFast, add)
	if by["vane"].Stat().N == 0 || by["net/http"].Stat().N == 0 {
		add(tNet, "", NotMeasured)
	} else {
		p := e.PairedE2E("vane", "net/http")
		add(tNet, "vane ÷ net/http "+p.String(), AtLeastBound(p, 1, false))
	}
	var outs []Outcome
	var parts []string
	for _, name := range NetHTTPPeers {
		if by[name].Stat().N == 0 {
			continue
		}
		p := e.PairedE2E("vane", name)
		parts = append(parts, fmt.Sprintf("%s %s", name, p))
		outs = append(outs, AtLeastBound(p, 1, true))
	}
	if by["vane"].Stat().N == 0 || len(outs) == 0 {
		add(tPeers, "", NotMeasured)
		return
	}
	result := "vane ÷ " + strings.Join(parts, ", ")
	for _, ref := range []string{"fiber", "fastapi"} {
		if by[ref].Stat().N > 0 {
			result += fmt.Sprintf("; for reference, %s %s", ref, e.PairedE2E("vane", ref))
		}
	}
	add(tPeers, result, Worst(outs...))
}

// e2eFastTarget checks the fast engine's end-to-end target: vane-fast ÷
// fiber with a median of at least 1 and an interval not below 0.9, and
// vane-fast ÷ humafiber above 1.
func (r *Report) e2eFastTarget(target string, add func(target, result string, o Outcome)) {
	e := r.E2E
	by := e.byName()
	if by[FastEngine].Stat().N == 0 {
		add(target, "", NotMeasured)
		return
	}
	var outs []Outcome
	var parts []string
	for _, name := range FastPeers {
		if by[name].Stat().N == 0 {
			outs = append(outs, NotMeasured)
			continue
		}
		p := e.PairedE2E(FastEngine, name)
		parts = append(parts, fmt.Sprintf("%s %s", name, p))
		if name == "fiber" {
			outs = append(outs, atLeastFiber(p))
		} else {
			outs = append(outs, AtLeastBound(p, 1, true))
		}
	}
	add(target, FastEngine+" ÷ "+strings.Join(parts, ", "), Worst(outs...))
}

// atLeastFiber is the fast engine's bound against fiber: a median ratio
// of at least 1 with its 95% interval not below 0.9 is met; a median
// below 1, or an interval wholly below 0.9, is missed.
func atLeastFiber(p Paired) Outcome {
	switch {
	case p.N() == 0:
		return NotMeasured
	case !p.Known():
		return TooFew
	case p.Center >= 1 && p.Lo >= 0.9:
		return Met
	}
	return Missed
}

// rawDir is the directory holding wrk's output of the run's rounds.
func (e *E2E) rawDir() string {
	for _, res := range e.Results {
		for _, r := range res.Rounds {
			if r.RawFile != "" {
				return path.Dir(r.RawFile)
			}
		}
	}
	return "results"
}
