// Package e2e runs the end-to-end workload: each implementation of the
// service serves on 127.0.0.1 in turn and wrk loads it.
package e2e

import (
	"errors"
	"io"
	"time"

	"github.com/vane-http/vane/bench/report"
)

// Options bound the run.
type Options struct {
	Dir              string // where raw wrk output is kept
	Duration, Warmup time.Duration
	Conns, Threads   int
	Log              io.Writer
}

// Run measures every server in turn.
func Run(o Options) (*report.E2E, error) { return nil, errors.New("not yet") }
