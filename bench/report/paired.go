package report

import (
	"fmt"
	"math"
	"sort"

	"golang.org/x/perf/benchmath"
)

// Confidence is the level of every interval the report states.
const Confidence = 0.95

// MinRounds is the fewest paired rounds whose median has a finite 95%
// interval: with n rounds, the interval from the smallest to the largest
// ratio covers the median with probability 1 - 2·0.5^n, at least 0.95
// from n = 6 on.
const MinRounds = 6

// Paired summarises the ratios a ÷ b of one unit, taken round by round:
// each ratio compares two runs made within moments of each other, so a
// burst of load on a shared machine slows both and cancels out. Center is
// the median ratio; Lo and Hi bound the 95% confidence interval of that
// median from order statistics (benchmath.AssumeNothing, as benchstat
// computes it), which assumes nothing of the ratios' distribution. With
// fewer than MinRounds ratios Lo and Hi are infinite: no verdict.
type Paired struct {
	Rounds   []int     // the rounds in which both ran, ascending
	Ratios   []float64 // a ÷ b in each of those rounds
	Center   float64
	Lo, Hi   float64
	Min, Max float64
}

// N is the number of paired rounds.
func (p Paired) N() int { return len(p.Ratios) }

// Known reports whether the interval is finite: enough rounds for a verdict.
func (p Paired) Known() bool {
	return p.N() > 0 && !math.IsInf(p.Lo, 0) && !math.IsInf(p.Hi, 0)
}

// Below reports whether the whole interval lies below x.
func (p Paired) Below(x float64) bool { return p.Known() && p.Hi < x }

// Above reports whether the whole interval lies above x.
func (p Paired) Above(x float64) bool { return p.Known() && p.Lo > x }

// AtMost reports whether the whole interval lies at or below x.
func (p Paired) AtMost(x float64) bool { return p.Known() && p.Hi <= x }

// AtLeast reports whether the whole interval lies at or above x.
func (p Paired) AtLeast(x float64) bool { return p.Known() && p.Lo >= x }

// String renders "0.62× [0.60–0.65]": the median ratio and its 95%
// interval; "0.62× (3 rounds, no interval)" when too few rounds.
func (p Paired) String() string {
	switch {
	case p.N() == 0:
		return "no paired rounds"
	case !p.Known():
		return fmt.Sprintf("%s× (%d %s: no 95%% interval below %d)", ratioText(p.Center), p.N(), plural(p.N(), "round", "rounds"), MinRounds)
	}
	return fmt.Sprintf("%s× [%s–%s]", ratioText(p.Center), ratioText(p.Lo), ratioText(p.Hi))
}

// ratioText prints a ratio with enough digits to tell it from 1.
func ratioText(x float64) string {
	if x != 0 && math.Abs(x) < 0.1 {
		return fmt.Sprintf("%.3f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// PairRatios pairs a and b (values by round) into the ratios a ÷ b of the
// rounds both have, and summarises them. Rounds where b is 0 are left out.
func PairRatios(a, b map[int]float64) Paired {
	var p Paired
	for r := range a {
		if y, ok := b[r]; ok && y != 0 {
			p.Rounds = append(p.Rounds, r)
		}
	}
	sort.Ints(p.Rounds)
	for _, r := range p.Rounds {
		p.Ratios = append(p.Ratios, a[r]/b[r])
	}
	return p.summarise()
}

func (p Paired) summarise() Paired {
	if len(p.Ratios) == 0 {
		p.Center, p.Lo, p.Hi = math.NaN(), math.Inf(-1), math.Inf(1)
		return p
	}
	vals := append([]float64(nil), p.Ratios...)
	s := benchmath.NewSample(vals, &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, Confidence)
	p.Center, p.Lo, p.Hi = sum.Center, sum.Lo, sum.Hi
	p.Min, p.Max = s.Values[0], s.Values[len(s.Values)-1]
	return p
}

// Paired is the per-round ratio a ÷ b of unit in one row.
func (d *Data) Paired(category, caseName, a, b, unit string) Paired {
	return PairRatios(d.ByRound(Key{category, caseName, a}, unit), d.ByRound(Key{category, caseName, b}, unit))
}

// Verdict is the outcome of comparing vane with one peer in one row,
// from the paired ratios vane ÷ peer.
type Verdict int

const (
	NoVerdict  Verdict = iota // fewer than MinRounds paired rounds
	VaneFaster                // the whole interval is below 1 (above 1 where more is better)
	Tie                       // the interval contains 1
	PeerFaster                // the whole interval is on the peer's side of 1
)

// Compare turns the ratios vane ÷ peer into a verdict; higherBetter is
// true for units where more is better (requests per second).
func Compare(p Paired, higherBetter bool) Verdict {
	switch {
	case !p.Known():
		return NoVerdict
	case !higherBetter && p.Below(1), higherBetter && p.Above(1):
		return VaneFaster
	case !higherBetter && p.Above(1), higherBetter && p.Below(1):
		return PeerFaster
	}
	return Tie
}

// Text is the verdict in words, with peer's name.
func (v Verdict) Text(peer string) string {
	switch v {
	case VaneFaster:
		return "vane faster"
	case Tie:
		return "tie"
	case PeerFaster:
		return "**" + peer + " faster**"
	}
	return "no verdict"
}

// Outcome of a target: its bound checked against a paired interval, or a
// deterministic count.
type Outcome int

const (
	NotMeasured Outcome = iota
	Met
	Missed
	Unresolved // the 95% interval contains the bound
	TooFew     // fewer than MinRounds paired rounds
)

func (o Outcome) String() string {
	switch o {
	case Met:
		return "met"
	case Missed:
		return "**missed**"
	case Unresolved:
		return "**not shown**: the 95% interval contains the bound"
	case TooFew:
		return fmt.Sprintf("no verdict: fewer than %d rounds", MinRounds)
	}
	return "not measured"
}

// AtMostBound checks "a ÷ b ≤ bound" (strict: "< bound") on paired ratios.
func AtMostBound(p Paired, bound float64, strict bool) Outcome {
	switch {
	case p.N() == 0:
		return NotMeasured
	case !p.Known():
		return TooFew
	case strict && p.Below(bound), !strict && p.AtMost(bound):
		return Met
	case strict && p.Lo >= bound, !strict && p.Above(bound):
		return Missed
	}
	return Unresolved
}

// AtLeastBound checks "a ÷ b ≥ bound" (strict: "> bound") on paired ratios.
func AtLeastBound(p Paired, bound float64, strict bool) Outcome {
	switch {
	case p.N() == 0:
		return NotMeasured
	case !p.Known():
		return TooFew
	case strict && p.Above(bound), !strict && p.AtLeast(bound):
		return Met
	case strict && p.Hi <= bound, !strict && p.Below(bound):
		return Missed
	}
	return Unresolved
}

// Worst combines the outcomes of the parts of one target: missed if any
// part is missed, then not shown, too few, not measured; met only when
// every part is met.
func Worst(os ...Outcome) Outcome {
	if len(os) == 0 {
		return NotMeasured
	}
	rank := map[Outcome]int{Met: 0, NotMeasured: 1, TooFew: 2, Unresolved: 3, Missed: 4}
	w := Met
	for _, o := range os {
		if rank[o] > rank[w] {
			w = o
		}
	}
	return w
}
