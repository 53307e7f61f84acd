//go:build race

package codec

// raceEnabled: the race detector is on; it slows code down several times
// and makes sync.Pool drop items at random.
const raceEnabled = true
