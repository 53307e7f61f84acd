//go:build race

package main

// raceDetector reports whether the tests run with the race detector.
const raceDetector = true
