//go:build race

package bind

// raceEnabled: the race detector is on; it slows code down several times
// and makes sync.Pool drop items at random.
const raceEnabled = true
