package main

import (
	"fmt"
	"io"
	"time"
)

// estimator predicts the time a run has left from the times measured so
// far in this run, never from a figure fixed in advance. Every round runs
// the same benchmarks: in the first round, each benchmark still to run is
// expected to take the mean of those measured; from the second on, each
// is expected to take what it took in its latest round.
type estimator struct {
	rounds   int // rounds in the run
	perRound int // benchmarks in a round

	round int                      // the round under way, from 1
	done  map[string]bool          // benchmarks done in the round under way
	sum   time.Duration            // their time, first round only
	last  map[string]time.Duration // each benchmark's time in its latest round
	order []string                 // the benchmarks, as the first round ran them
}

func newEstimator(rounds, perRound int) *estimator {
	return &estimator{rounds: rounds, perRound: perRound, done: map[string]bool{}, last: map[string]time.Duration{}}
}

// observe records that benchmark name, of round (from 1), took d.
func (e *estimator) observe(round int, name string, d time.Duration) {
	if round != e.round {
		e.round, e.done, e.sum = round, map[string]bool{}, 0
	}
	e.done[name] = true
	if round == 1 {
		e.sum += d
		e.order = append(e.order, name)
	}
	e.last[name] = d
}

// left is the time the run has left; ok is false before anything was measured.
func (e *estimator) left() (time.Duration, bool) {
	if e.round == 0 || len(e.done) == 0 {
		return 0, false
	}
	roundsAfter := time.Duration(max(e.rounds-e.round, 0))
	if e.round == 1 {
		mean := e.sum / time.Duration(len(e.done))
		rest := time.Duration(max(e.perRound-len(e.done), 0))
		return mean*rest + mean*time.Duration(e.perRound)*roundsAfter, true
	}
	var thisRound, whole time.Duration
	for _, name := range e.order {
		whole += e.last[name]
		if !e.done[name] {
			thisRound += e.last[name]
		}
	}
	return thisRound + whole*roundsAfter, true
}

// guess is the estimate made before anything is timed: n benchmarks in
// each of rounds rounds, each taking about 1.3 times benchtime (go test's
// ramp-up to b.N), plus the setup the counting pass measured per round.
func guess(rounds, n int, benchtime time.Duration, setup time.Duration) time.Duration {
	per := time.Duration(float64(benchtime) * 1.3)
	return time.Duration(rounds) * (time.Duration(n)*per + setup)
}

// progress writes one progress line: on a terminal it replaces the last.
func progress(w io.Writer, tty bool, done, total int, elapsed time.Duration, e *estimator, what string) {
	left := "time left not known yet"
	if d, ok := e.left(); ok {
		left = "about " + d.Round(time.Second).String() + " left (from the times measured so far)"
	}
	pct := 0
	if total > 0 {
		pct = 100 * done / total
	}
	if len(what) > 60 {
		what = what[:60]
	}
	start, end := "\r\033[K", ""
	if !tty {
		start, end = "", "\n"
	}
	fmt.Fprintf(w, "%s[%d/%d] %d%%, elapsed %s, %s  %s%s", start, done, total, pct, elapsed.Round(time.Second), left, what, end)
}
