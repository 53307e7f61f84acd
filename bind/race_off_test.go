//go:build !race

package bind

const raceEnabled = false
