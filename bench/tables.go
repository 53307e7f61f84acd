// Package bench is vane's benchmark system: it measures vane and the routers
// and frameworks its users would pick instead, side by side, and writes
// BENCHMARKS.md. See README.md for the layout.
package bench

import "embed"

// Tables holds the real-API route tables (testdata/routes/*.txt), one
// "METHOD /path" a line.
//
//go:embed testdata/routes/*.txt
var Tables embed.FS
