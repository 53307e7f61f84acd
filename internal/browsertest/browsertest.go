// Package browsertest loads pages in headless Chromium for tests: the
// document object model after the page's scripts ran, and screenshots.
//
// Chromium is Debian's package "chromium". When it is missing and the test
// runs as root with apt-get, the first use installs it (apt-get update and
// install, waiting for the package lock); otherwise the test is skipped with
// a message that says how to install it. $VANE_CHROMIUM names another
// Chromium or Chrome binary.
//
// The browser is started with a fresh profile and everything that would
// reach the network on its own turned off, and with every host name except
// the loopback addresses resolving to nothing, so a page that needed the
// network would show it.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/vane-http/vane/internal/filelock"
)

var (
	once    sync.Once
	binary  string
	errFind error
)

// Chromium returns the browser's path, installing it if it can; it skips t
// when it cannot.
func Chromium(t testing.TB) string {
	t.Helper()
	once.Do(func() { binary, errFind = find() })
	if errFind != nil {
		t.Skipf("headless Chromium unavailable, so the docs page is not tested in a browser: %v "+
			"(install Debian's package: apt-get install chromium)", errFind)
	}
	return binary
}

func find() (string, error) {
	if c := os.Getenv("VANE_CHROMIUM"); c != "" {
		return c, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	if os.Geteuid() != 0 {
		return "", errors.New("chromium is not installed and the test does not run as root to install it")
	}
	aptGet, err := exec.LookPath("apt-get")
	if err != nil {
		return "", errors.New("chromium is not installed and there is no apt-get")
	}
	// Test binaries of several packages may get here at once: one installs,
	// the others wait for it and then find chromium.
	unlock, err := filelock.Lock(filepath.Join(os.TempDir(), "vane-chromium-install.lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if p, err := exec.LookPath("chromium"); err == nil {
		return p, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	aptLock := "-oDPkg::Lock::Timeout=600"
	env := append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	for _, args := range [][]string{
		{aptLock, "update", "-qq"},
		{aptLock, "install", "-y", "-qq", "--no-install-recommends", "chromium"},
	} {
		cmd := exec.CommandContext(ctx, aptGet, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("apt-get %v: %v\n%s", args, err, tail(out))
		}
	}
	return exec.LookPath("chromium")
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}

// flags are the options of every run: headless, no sandbox (tests run as
// root in containers), and nothing that talks to the network by itself.
func flags(t testing.TB) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--disable-dev-shm-usage",
		"--no-default-browser-check", "--hide-scrollbars", "--mute-audio",
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
		"--user-data-dir=" + t.TempDir(),
	}
}

// run starts Chromium with args and returns its standard output.
func run(t testing.TB, args ...string) []byte {
	t.Helper()
	bin := Chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(flags(t), args...)...)
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.b)
	}
	return out
}

// DOM loads url and returns the serialised DOM once the page's scripts have
// run for up to budget of virtual time (network waits included).
func DOM(t testing.TB, url string, budget time.Duration) string {
	t.Helper()
	return string(run(t, "--virtual-time-budget="+strconv.FormatInt(budget.Milliseconds(), 10), "--dump-dom", url))
}

// Screenshot loads url and writes a PNG of a width×height window to file.
func Screenshot(t testing.TB, url, file string, width, height int, budget time.Duration) {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	run(t, "--virtual-time-budget="+strconv.FormatInt(budget.Milliseconds(), 10),
		fmt.Sprintf("--window-size=%d,%d", width, height), "--screenshot="+abs, url)
}

// limitedBuffer keeps the first 16 KiB written to it.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 16<<10 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
