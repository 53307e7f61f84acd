//go:build unix

package filelock

import (
	"os"
	"syscall"
)

// lockFile holds an exclusive lock on f until unlock is called.
func lockFile(f *os.File) (unlock func(), err error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
}
