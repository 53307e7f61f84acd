//go:build !race

package hazard

// raceEnabled reports whether the race detector is on: without it the load
// cases check answers only.
const raceEnabled = false
