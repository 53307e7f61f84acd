//go:build !race

package vane

const raceEnabled = false
