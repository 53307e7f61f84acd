// Package oasvalidate checks OpenAPI documents in tests with an independent
// validator: openapi-spec-validator, from PyPI, which checks a document
// against the official schema of its OpenAPI version (3.0 or 3.1, with 3.1's
// JSON Schema 2020-12 dialect) and the rules a schema cannot say (unique
// operationIds, declared path parameters, resolvable $refs).
//
// The validator is the one scripts/setup installs into the repository's
// Python environment (.tools/venv, pinned in scripts/requirements.txt);
// $VANE_OPENAPI_VALIDATOR names another. Where it is missing the test is
// skipped, saying how to install it, or fails when VANE_REQUIRE_TOOLS=1 (see
// package testtool). Nothing here installs anything.
package oasvalidate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/vane-http/vane/internal/testtool"
)

// Validate runs the validator over the documents (JSON or YAML, by name:
// the file name it reports), each against the schema of the OpenAPI version
// its "openapi" field states, which must be 3.0.x or 3.1.x, and fails t with
// the validator's own report for each invalid one.
func Validate(t testing.TB, docs map[string][]byte) {
	t.Helper()
	command := os.Getenv("VANE_OPENAPI_VALIDATOR")
	if command == "" {
		command = testtool.Venv(t, "openapi-spec-validator")
	}
	dir := t.TempDir()
	byVersion := map[string][]string{} // "3.0" or "3.1" → file names
	for name, doc := range docs {
		v, err := Version(doc)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), doc, 0o644); err != nil {
			t.Fatal(err)
		}
		byVersion[v] = append(byVersion[v], name)
	}
	for _, v := range []string{"3.0", "3.1"} {
		names := byVersion[v]
		if len(names) == 0 {
			continue
		}
		sort.Strings(names)
		args := []string{"--schema", v, "--validation-errors", "all"}
		for _, n := range names {
			args = append(args, filepath.Join(dir, n))
		}
		out, err := exec.Command(command, args...).CombinedOutput()
		report := strings.ReplaceAll(string(out), dir+string(filepath.Separator), "")
		if err != nil {
			t.Errorf("OpenAPI validator (--schema %s) rejects a document:\n%s", v, report)
			continue
		}
		for _, name := range names {
			if !strings.Contains(report, name+": OK") {
				t.Errorf("OpenAPI validator did not report %s as OK:\n%s", name, report)
			}
		}
	}
}

var (
	versionField = regexp.MustCompile(`(?m)^\s*"?openapi"?\s*:\s*["']?(3\.[01])\.\d+["']?\s*,?\s*$`)
	// compactVersion is the field first in a compact JSON document.
	compactVersion = regexp.MustCompile(`^\s*\{\s*"openapi"\s*:\s*"(3\.[01])\.\d+"`)
)

// Version returns the "3.0" or "3.1" of a JSON or YAML document's openapi
// field (3.0.3, 3.1.0, …).
func Version(doc []byte) (string, error) {
	m := versionField.FindSubmatch(doc)
	if m == nil {
		m = compactVersion.FindSubmatch(doc)
	}
	if m == nil {
		return "", fmt.Errorf("no openapi field of version 3.0.x or 3.1.x")
	}
	return string(m[1]), nil
}
