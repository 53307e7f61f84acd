package testtool

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Skip and Fatalf and stops the
// goroutine as they do.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// call runs f with a recorder, as a test function would run.
func call(f func(testing.TB)) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name, env  string
		skip, fail bool
	}{
		{"unset skips", "", true, false},
		{"0 skips", "0", true, false},
		{"1 fails", "1", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(RequireEnv, tc.env)
			r := call(func(tb testing.TB) { Unavailable(tb, "wrk is not installed") })
			if (r.skipped != "") != tc.skip || (r.failed != "") != tc.fail {
				t.Fatalf("skipped %q, failed %q; want skip %v, fail %v", r.skipped, r.failed, tc.skip, tc.fail)
			}
			msg := r.skipped + r.failed
			for _, want := range []string{"wrk is not installed", "run scripts/setup"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
		})
	}
}

func TestFindRoot(t *testing.T) {
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Dir(filepath.Dir(here)) // internal/testtool
	t.Run("from a package of the root module", func(t *testing.T) {
		if got, err := FindRoot(here); err != nil || got != repo {
			t.Fatalf("FindRoot(%s) = %q, %v; want %s", here, got, err, repo)
		}
	})
	t.Run("from a nested module", func(t *testing.T) {
		// A directory tree like the repository's: the root go.mod, and a
		// module of its own below it.
		dir := t.TempDir()
		write(t, filepath.Join(dir, "go.mod"), "// vane\nmodule   github.com/vane-http/vane\n\ngo 1.26\n")
		sub := filepath.Join(dir, "conformance", "client")
		write(t, filepath.Join(dir, "conformance", "go.mod"), "module github.com/vane-http/vane/conformance\n")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if got, err := FindRoot(sub); err != nil || got != dir {
			t.Fatalf("FindRoot(%s) = %q, %v; want %s", sub, got, err, dir)
		}
	})
	t.Run("outside the repository", func(t *testing.T) {
		if got, err := FindRoot(t.TempDir()); err == nil {
			t.Fatalf("FindRoot found %q outside the repository", got)
		}
	})
	t.Run("Root from the working directory", func(t *testing.T) {
		t.Chdir(filepath.Join(repo, "internal"))
		if got := Root(t); got != repo {
			t.Fatalf("Root() = %q, want %s", got, repo)
		}
	})
}

func TestFindVenv(t *testing.T) {
	venv := t.TempDir()
	tool := filepath.Join(venv, "bin", "schemathesis")
	write(t, tool, "#!/bin/sh\n")
	if err := os.Chmod(tool, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := findVenv(venv, "schemathesis"); err == nil {
		t.Error("a venv without its completion marker counts as installed")
	}
	write(t, filepath.Join(venv, "installed-requirements.txt"), "schemathesis==1\n")
	if got, err := findVenv(venv, "schemathesis"); err != nil || got != tool {
		t.Errorf("findVenv = %q, %v; want %s", got, err, tool)
	}
	if _, err := findVenv(venv, "nothing-of-that-name"); err == nil {
		t.Error("a missing executable was found")
	}
}

func TestFindPostgres(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "postgres.url")
	if _, err := findPostgres("", file); err == nil {
		t.Error("found a URL with neither the variable nor the file")
	}
	write(t, file, "  \n")
	if _, err := findPostgres("", file); err == nil {
		t.Error("an empty file gave a URL")
	}
	write(t, file, "postgres://vane@127.0.0.1:5432/vane_test\n")
	if got, err := findPostgres("", file); err != nil || got != "postgres://vane@127.0.0.1:5432/vane_test" {
		t.Errorf("from the file: %q, %v", got, err)
	}
	if got, _ := findPostgres("postgres://other/db", file); got != "postgres://other/db" {
		t.Errorf("the variable does not win over the file: %q", got)
	}
}

func TestFindChromium(t *testing.T) {
	if _, err := findChromium(filepath.Join(t.TempDir(), "no-chromium")); err == nil {
		t.Error("a VANE_CHROMIUM that does not exist was accepted")
	}
	t.Run("missing from PATH", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		if _, err := findChromium(""); err == nil || !strings.Contains(err.Error(), "chromium") {
			t.Errorf("err = %v, want one naming chromium", err)
		}
	})
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
