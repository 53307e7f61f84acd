//go:build !unix

package bind_test

import "time"

// cpuTime is not measured here: the spin check passes.
func cpuTime() time.Duration { return 0 }
