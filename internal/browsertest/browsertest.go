// Package browsertest loads pages in headless Chromium for tests: the
// document object model after the page's scripts ran, and screenshots.
//
// Chromium is Debian's package "chromium", installed by scripts/setup;
// $VANE_CHROMIUM names another Chromium or Chrome binary. Where it is
// missing the test is skipped, saying how to install it, or fails when
// VANE_REQUIRE_TOOLS=1 (see package testtool). Nothing here installs
// anything.
//
// The browser is started with a fresh profile and everything that would
// reach the network on its own turned off, and with every host name except
// the loopback addresses resolving to nothing, so a page that needed the
// network would show it.
package browsertest

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/vane-http/vane/internal/testtool"
)

// Chromium returns the browser's path; it skips t (or fails it, under
// VANE_REQUIRE_TOOLS=1) when there is none. Call it before starting
// anything the test would have to stop.
func Chromium(t testing.TB) string {
	t.Helper()
	return testtool.Chromium(t)
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
