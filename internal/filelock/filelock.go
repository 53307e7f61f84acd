// Package filelock serialises one-time installs (Chromium, a Python venv)
// across the test binaries of several packages running at once.
package filelock

import "os"

// Lock creates the file at path if needed and holds an exclusive lock on it
// until unlock is called. Where the platform has no flock it does not lock:
// concurrent first uses may then install twice, which is slow but harmless.
func Lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	release, err := lockFile(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { release(); f.Close() }, nil
}
