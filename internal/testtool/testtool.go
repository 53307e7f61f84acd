// Package testtool finds, for tests, the tools that Go does not fetch
// itself: Chromium, the Python tools of the repository's virtual
// environment, a PostgreSQL server. scripts/setup installs them all; this
// package never installs anything.
//
// A test that asks for a missing tool is skipped with a message that names
// the tool and says how to get it ("run scripts/setup"). When the
// environment variable VANE_REQUIRE_TOOLS is 1 (CI sets it) the same test
// fails instead, so that a machine without the tools cannot pass by
// skipping.
//
// The package is importable from every module of the repository (root,
// bench, conformance, examples): their import paths all start with the root
// module's.
package testtool

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RequireEnv is the environment variable that turns a missing tool from a
// skip into a failure when it is "1".
const RequireEnv = "VANE_REQUIRE_TOOLS"

// Module is the root module's path, by which Root recognises the
// repository's root directory.
const Module = "github.com/vane-http/vane"

// Required reports whether a missing tool fails the test ($VANE_REQUIRE_TOOLS=1).
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Unavailable stops t because a tool is missing: a skip, or a failure when
// [Required]. The message is why, followed by how to get the tool.
func Unavailable(t testing.TB, why string) {
	t.Helper()
	msg := why + " (run scripts/setup to install it)"
	if Required() {
		t.Fatalf("%s; %s=1, so a missing tool is a failure", msg, RequireEnv)
	}
	t.Skip(msg)
}

// Root returns the repository's root directory, the directory of the root
// module's go.mod, found upwards from the working directory (a test's
// package directory, in any module of the repository).
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := FindRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// FindRoot returns the nearest directory at or above dir whose go.mod
// declares [Module].
func FindRoot(dir string) (string, error) {
	for d := dir; ; {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && modulePath(b) == Module {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("testtool: no go.mod of module %s at or above %s", Module, dir)
		}
		d = parent
	}
}

// modulePath returns the path of a go.mod's module directive.
func modulePath(gomod []byte) string {
	for line := range strings.SplitSeq(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// Tools returns the directory scripts/setup installs into: <root>/.tools.
func Tools(t testing.TB) string {
	t.Helper()
	return filepath.Join(Root(t), ".tools")
}

// Chromium returns the path of a Chromium (or Chrome) binary: $VANE_CHROMIUM,
// else the first of chromium, chromium-browser, google-chrome on PATH.
func Chromium(t testing.TB) string {
	t.Helper()
	p, err := findChromium(os.Getenv("VANE_CHROMIUM"))
	if err != nil {
		Unavailable(t, err.Error())
	}
	return p
}

func findChromium(env string) (string, error) {
	if env != "" {
		if _, err := exec.LookPath(env); err != nil {
			return "", fmt.Errorf("VANE_CHROMIUM=%s is not an executable: %v", env, err)
		}
		return env, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("headless Chromium is not installed (Debian's package chromium)")
}

// Venv returns the path of the executable name (such as "python",
// "schemathesis" or "openapi-spec-validator") in the repository's Python
// virtual environment, <root>/.tools/venv. The environment counts as
// installed once scripts/setup has completed it.
func Venv(t testing.TB, name string) string {
	t.Helper()
	p, err := findVenv(filepath.Join(Tools(t), "venv"), name)
	if err != nil {
		Unavailable(t, err.Error())
	}
	return p
}

func findVenv(venv, name string) (string, error) {
	if _, err := os.Stat(filepath.Join(venv, "installed-requirements.txt")); err != nil {
		return "", fmt.Errorf("the Python tools (scripts/requirements.txt) are not installed in %s", venv)
	}
	p := filepath.Join(venv, "bin", name)
	if _, err := exec.LookPath(p); err != nil {
		return "", fmt.Errorf("%s is not in the Python environment %s: %v", name, venv, err)
	}
	return p, nil
}

// PostgresURL returns the URL of a PostgreSQL database the test may use:
// $VANE_TEST_POSTGRES_URL, else the one scripts/setup wrote to
// <root>/.tools/postgres.url.
func PostgresURL(t testing.TB) string {
	t.Helper()
	u, err := findPostgres(os.Getenv("VANE_TEST_POSTGRES_URL"), filepath.Join(Tools(t), "postgres.url"))
	if err != nil {
		Unavailable(t, err.Error())
	}
	return u
}

func findPostgres(env, file string) (string, error) {
	if env != "" {
		return env, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("no PostgreSQL for tests: VANE_TEST_POSTGRES_URL is not set and %s cannot be read", file)
	}
	u := strings.TrimSpace(string(b))
	if u == "" {
		return "", fmt.Errorf("no PostgreSQL for tests: %s is empty", file)
	}
	return u, nil
}
