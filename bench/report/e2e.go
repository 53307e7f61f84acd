package report

import (
	"fmt"
	"sort"
	"strings"
)

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

// Stat summarises the requests per second of the rounds measured; a
// result from an older file (no rounds) is one round.
func (r E2EResult) Stat() E2EStat {
	if r.Status != "ok" {
		return E2EStat{}
	}
	if len(r.Rounds) == 0 {
		return E2EStat{N: 1, Median: r.ReqPerSec, Min: r.ReqPerSec, Max: r.ReqPerSec}
	}
	var xs []float64
	for _, x := range r.Rounds {
		if x.Status == "ok" {
			xs = append(xs, x.ReqPerSec)
		}
	}
	if len(xs) == 0 {
		return E2EStat{}
	}
	s := E2EStat{N: len(xs), Median: median(xs), Min: xs[0], Max: xs[0]}
	for _, x := range xs {
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	return s
}

// Spread is the largest distance from the median to the slowest or the
// fastest round, relative to the median.
func (s E2EStat) Spread() float64 {
	if s.Median == 0 {
		return 0
	}
	return max(s.Median-s.Min, s.Max-s.Median) / s.Median
}

// Overlaps tells whether the two servers' ranges (slowest to fastest
// round) overlap: their difference is then within the spread of the
// rounds, and no winner is declared. A single round has no spread.
func (s E2EStat) Overlaps(o E2EStat) bool {
	if s.N < 2 && o.N < 2 {
		return false
	}
	return s.Min <= o.Max && o.Min <= s.Max
}

// rounds is how many rounds the run had (older files: one).
func (e *E2E) rounds() int {
	if e.Rounds < 1 {
		return 1
	}
	return e.Rounds
}

func (e *E2E) byName() map[string]E2EResult {
	m := map[string]E2EResult{}
	for _, res := range e.Results {
		m[res.Name] = res
	}
	return m
}

func (r *Report) e2e(b *strings.Builder) {
	b.WriteString("## End to end over loopback\n\n")
	e := r.E2E
	if e == nil {
		b.WriteString("pending: no end-to-end run recorded yet (`make bench-e2e`).\n\n")
		return
	}
	n := e.rounds()
	multi := n > 1
	fmt.Fprintf(b, "The service of the Huma seed, `GET /items/{id}` with an `Authorization` header, a query parameter and a JSON response, served by each implementation in turn on 127.0.0.1 and loaded by wrk (%d threads, %d connections, %s after a %s warm-up). Run %s; %s.", e.Threads, e.Conns, e.Duration, e.Warmup, e.Date, e.Tool)
	if multi {
		fmt.Fprintf(b, " %d rounds, each measuring every server in turn (started, checked, warmed up, measured, stopped), the order rotated each round; each number is the median over the rounds, with the spread: ± the largest distance from the median to the slowest or fastest round, and the range. Errors are summed over the rounds; *vs net/http* is the ratio of the medians. Two servers whose ranges overlap are not ranked: their difference is within the spread of the rounds.\n\n", n)
	} else {
		b.WriteString(" One round: a single pass per server, so no spread is known; on a shared or small machine the servers built on net/http can change places between runs.\n\n")
	}
	by := e.byName()
	base := by["net/http"].Stat()
	best := 0.0
	for _, res := range e.Results {
		if s := res.Stat(); s.N > 0 && s.Median > best {
			best = s.Median
		}
	}
	if multi {
		b.WriteString("| Implementation | Req/s (median) | min–max | Avg (ms) | p99 (ms) | Transfer | vs net/http | Errors |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	} else {
		b.WriteString("| Implementation | Req/s | Avg (ms) | p99 (ms) | Transfer | vs net/http | Errors |\n|---|---:|---:|---:|---:|---:|---:|\n")
	}
	for _, res := range e.Results {
		s := res.Stat()
		if s.N == 0 {
			fmt.Fprintf(b, "| %s | %s%s |%s | | | | | |\n", res.Name, res.Status, r.notes.ref(res.Reason), map[bool]string{true: " |", false: ""}[multi])
			continue
		}
		name := res.Name
		if res.Reason != "" { // some rounds failed
			name += r.notes.ref(res.Name + ": " + res.Reason)
		}
		rps := Thousands(s.Median)
		if multi && s.N > 1 {
			rps += fmt.Sprintf(" ± %.0f%%", 100*s.Spread())
		}
		if s.Median == best {
			rps = "**" + rps + "**"
		}
		rel := ""
		if base.N > 0 {
			rel = fmt.Sprintf("%.0f%%", 100*s.Median/base.Median)
		}
		if multi {
			rng := Thousands(s.Min) + "–" + Thousands(s.Max)
			if s.N < n {
				rng += fmt.Sprintf(" (%d of %d rounds)", s.N, n)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %.3f | %.3f | %.2f MB/s | %s | %d |\n", name, rps, rng, res.AvgMs, res.P99Ms, res.TransferMB, rel, res.Errors)
		} else {
			fmt.Fprintf(b, "| %s | %s | %.3f | %.3f | %.2f MB/s | %s | %d |\n", name, rps, res.AvgMs, res.P99Ms, res.TransferMB, rel, res.Errors)
		}
	}
	b.WriteString("\n")
	for _, line := range r.e2eVerdicts() {
		fmt.Fprintf(b, "> %s\n\n", line)
	}
	if multi && len(e.Orders) > 0 {
		b.WriteString("Order of the rounds:")
		for i, o := range e.Orders {
			fmt.Fprintf(b, " %d. %s.", i+1, strings.Join(o, " → "))
		}
		b.WriteString("\n\n")
	}
	if e.Versions != "" {
		fmt.Fprintf(b, "%s\n\n", e.Versions)
	}
	fmt.Fprintf(b, "Command: `%s`", e.Command)
	if multi {
		fmt.Fprintf(b, ", %d times per server (one per round)", n)
	}
	b.WriteString("\n\n")
}

// e2eVerdicts are the sentences under the end-to-end table: who serves the
// most, by medians, and whether the difference is within the spread.
func (r *Report) e2eVerdicts() []string {
	e := r.E2E
	n := e.rounds()
	within := fmt.Sprintf("within the spread of %d rounds", n)
	medians := fmt.Sprintf("medians of %d rounds", n)
	by := e.byName()
	type entry struct {
		name string
		s    E2EStat
	}
	var ok []entry
	for _, res := range e.Results {
		if s := res.Stat(); s.N > 0 {
			ok = append(ok, entry{res.Name, s})
		}
	}
	sort.SliceStable(ok, func(i, j int) bool { return ok[i].s.Median > ok[j].s.Median })
	vane := by["vane"].Stat()
	var lines []string
	switch {
	case vane.N == 0:
		lines = append(lines, "vane's typed service has no number yet.")
	case n == 1:
		if ok[0].name == "vane" {
			lines = append(lines, "vane serves the most requests per second (one round: no spread known).")
		} else {
			lines = append(lines, fmt.Sprintf("**vane loses this row**: %s serves %.1f%% more requests per second (one round: no spread known).", ok[0].name, 100*(ok[0].s.Median/vane.Median-1)))
		}
	default:
		top := ok[0]
		if top.name == "vane" {
			if len(ok) > 1 && vane.Overlaps(ok[1].s) {
				lines = append(lines, fmt.Sprintf("vane has the highest median, but ≈ %s, %s: %s's median is %.1f%% lower and the ranges overlap.", ok[1].name, within, ok[1].name, 100*(1-ok[1].s.Median/vane.Median)))
			} else {
				lines = append(lines, fmt.Sprintf("vane serves the most requests per second (%s; its range overlaps no other's).", medians))
			}
		} else if top.s.Overlaps(vane) {
			lines = append(lines, fmt.Sprintf("vane ≈ %s, the highest median, %s: %s's median is %.1f%% higher but the ranges overlap.", top.name, within, top.name, 100*(top.s.Median/vane.Median-1)))
		} else {
			lines = append(lines, fmt.Sprintf("**vane loses this row**: %s serves %.1f%% more requests per second (%s; the ranges do not overlap).", top.name, 100*(top.s.Median/vane.Median-1), medians))
		}
		var ahead, tied, behind []string
		for _, x := range ok {
			switch {
			case x.name == "vane":
			case x.s.Overlaps(vane):
				tied = append(tied, x.name)
			case x.s.Median > vane.Median:
				ahead = append(ahead, x.name)
			default:
				behind = append(behind, x.name)
			}
		}
		var parts []string
		if len(ahead) > 0 {
			parts = append(parts, "ahead (ranges apart): "+strings.Join(ahead, ", "))
		}
		if len(tied) > 0 {
			parts = append(parts, "≈, "+within+": "+strings.Join(tied, ", "))
		}
		if len(behind) > 0 {
			parts = append(parts, "behind (ranges apart): "+strings.Join(behind, ", "))
		}
		if len(parts) > 0 {
			lines = append(lines, "Against vane: "+strings.Join(parts, "; ")+".")
		}
	}
	if nh := by["net/http"].Stat(); nh.N > 0 {
		for _, name := range []string{"vane", "vane-router"} {
			v := by[name].Stat()
			if v.N == 0 {
				continue
			}
			how := "one round: no spread known"
			if n > 1 {
				how = medians + "; the ranges do not overlap"
				if v.Overlaps(nh) {
					how = medians + "; ≈, " + within
				}
			}
			lines = append(lines, fmt.Sprintf("%s serves %.1f%% of bare net/http's requests per second (%s; the brief's bound: within 5%%).", name, 100*v.Median/nh.Median, how))
		}
	}
	return lines
}

// e2eTargets checks the brief's end-to-end bounds: a peer is ahead of
// vane only when its median is higher and the ranges do not overlap;
// overlapping ranges give "≈" rather than a verdict.
func (r *Report) e2eTargets(add func(target, result, verdict string)) {
	e := r.E2E
	if e == nil {
		return
	}
	n := e.rounds()
	within := fmt.Sprintf("within the spread of %d rounds", n)
	by := e.byName()
	vane := by["vane"].Stat()
	var ahead, tied []string
	for _, p := range []string{"gin", "echo", "chi", "huma", "fiber"} {
		o := by[p].Stat()
		switch {
		case o.N == 0 || vane.N == 0:
		case o.Overlaps(vane):
			tied = append(tied, p)
		case o.Median >= vane.Median:
			ahead = append(ahead, p)
		}
	}
	var parts []string
	if len(ahead) > 0 {
		parts = append(parts, "ahead of vane: "+strings.Join(ahead, ", "))
	}
	if len(tied) > 0 {
		parts = append(parts, "≈ vane, "+within+": "+strings.Join(tied, ", "))
	}
	result := "vane serves the most"
	if len(parts) > 0 {
		result = strings.Join(parts, "; ")
	}
	if n > 1 {
		result += fmt.Sprintf(" (medians of %d rounds)", n)
	}
	verdict := "not measured"
	switch {
	case vane.N == 0:
	case len(ahead) > 0:
		verdict = "**missed**"
	case len(tied) > 0:
		verdict = "≈ (" + within + ")"
	default:
		verdict = "met"
	}
	add("end to end: more requests/s than gin, echo, chi, huma and fiber", result, verdict)

	nh := by["net/http"].Stat()
	verdict, result = "not measured", ""
	if vane.N > 0 && nh.N > 0 {
		share := vane.Median / nh.Median
		result = fmt.Sprintf("%.1f%% of net/http's requests/s", 100*share)
		if n > 1 {
			result += fmt.Sprintf(" (medians of %d rounds; range %.1f%%–%.1f%%)", n, 100*vane.Min/nh.Max, 100*vane.Max/nh.Min)
		}
		switch {
		case share >= 0.95:
			verdict = "met"
		case n > 1 && vane.Max >= 0.95*nh.Min:
			verdict = "≈ (" + within + ")"
		default:
			verdict = "**missed**"
		}
	}
	add("end to end: within 5% of bare net/http", result, verdict)
}
