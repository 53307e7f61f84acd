//go:build !unix

package filelock

import "os"

// lockFile does not lock where flock is missing: concurrent first uses may
// install twice, which is slow but harmless.
func lockFile(f *os.File) (unlock func(), err error) { return func() {}, nil }
