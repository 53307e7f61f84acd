// Package oasvalidate checks OpenAPI documents in tests with an independent
// validator: openapi-spec-validator, from PyPI, which checks a document
// against the OpenAPI 3.1 schema, its JSON Schema 2020-12 dialect, and the
// rules a schema cannot say (unique operationIds, declared path parameters,
// resolvable $refs).
//
// The first use installs the pinned version into a virtual environment
// under the user's cache directory (or $VANE_TEST_CACHE), once, under a file
// lock, so parallel test binaries share it. A test is skipped, saying why,
// when Python is missing, except under CI ($CI set), where that fails.
// $VANE_OPENAPI_VALIDATOR names an already installed validator instead.
package oasvalidate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/vane-http/vane/internal/filelock"
)

// Requirement is the pinned validator.
const Requirement = "openapi-spec-validator==0.9.0"

var (
	once    sync.Once
	command string
	errFind error
)

// Validate runs the validator over the documents (JSON or YAML, by name:
// the file name it reports) and fails t with the validator's own report for
// each invalid one.
func Validate(t testing.TB, docs map[string][]byte) {
	t.Helper()
	once.Do(func() { command, errFind = find() })
	if errFind != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("OpenAPI validator unavailable: %v", errFind)
		}
		t.Skipf("OpenAPI validator unavailable (needs python3 with venv and PyPI access): %v", errFind)
	}
	dir := t.TempDir()
	names := make([]string, 0, len(docs))
	for name := range docs {
		names = append(names, name)
	}
	sort.Strings(names)
	var files []string
	for _, name := range names {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, docs[name], 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	args := append([]string{"--schema", "3.1", "--validation-errors", "all"}, files...)
	out, err := exec.Command(command, args...).CombinedOutput()
	report := strings.ReplaceAll(string(out), dir+string(filepath.Separator), "")
	if err != nil {
		t.Errorf("OpenAPI validator (%s) rejects the document:\n%s", Requirement, report)
		return
	}
	for _, name := range names {
		if !strings.Contains(report, name+": OK") {
			t.Errorf("OpenAPI validator did not report %s as OK:\n%s", name, report)
		}
	}
}

// find returns the validator's command, installing it if needed.
func find() (string, error) {
	if c := os.Getenv("VANE_OPENAPI_VALIDATOR"); c != "" {
		return c, nil
	}
	base := os.Getenv("VANE_TEST_CACHE")
	if base == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir() // no $HOME: still one place for every run
		}
		base = filepath.Join(cache, "vane-test")
	}
	venv := filepath.Join(base, strings.ReplaceAll(Requirement, "==", "-"))
	bin := filepath.Join(venv, "bin", "openapi-spec-validator")
	done := filepath.Join(venv, "installed") // written last: the venv is complete
	if _, err := os.Stat(done); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", err
	}
	// One installer at a time; the others wait, then find it installed.
	unlock, err := filelock.Lock(venv + ".lock")
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(done); err == nil {
		return bin, nil
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		return "", errors.New("python3 not found")
	}
	os.RemoveAll(venv) // a half-made one
	if out, err := exec.Command(python, "-m", "venv", venv).CombinedOutput(); err != nil {
		return "", fmt.Errorf("python3 -m venv: %v\n%s", err, out)
	}
	pip := exec.Command(filepath.Join(venv, "bin", "pip"), "install", "--quiet", "--disable-pip-version-check", Requirement)
	var out bytes.Buffer
	pip.Stdout, pip.Stderr = &out, &out
	if err := pip.Run(); err != nil {
		return "", fmt.Errorf("pip install %s: %v\n%s", Requirement, err, out.String())
	}
	if err := os.WriteFile(done, []byte(Requirement+"\n"), 0o644); err != nil {
		return "", err
	}
	return bin, nil
}
