// Package guidesample keeps the Go samples of a guide page true: each
// ```go block of the page is preceded by a comment naming the tested file
// it is taken from,
//
//	<!-- sample: cli/example_test.go -->
//
// and [Check] fails the test unless the block's lines appear, in order and
// together, in that file (blank lines and the indentation of each line
// aside). The file is compiled and run by its package's tests, so the
// sample cannot rot. A ```go block without the comment fails too.
package guidesample

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var source = regexp.MustCompile(`^<!--\s*sample:\s*(\S+)\s*-->$`)

// Check checks the samples of the page at path, relative to the root of
// the repository (the directory of vane's root go.mod), as are the files
// the page names.
func Check(t testing.TB, page string) {
	t.Helper()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	samples, err := Samples(b)
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	if len(samples) == 0 {
		t.Fatalf("%s has no Go samples", page)
	}
	for _, s := range samples {
		src, err := os.ReadFile(filepath.Join(root, s.File))
		if err != nil {
			t.Errorf("%s:%d: the sample's source: %v", page, s.Line, err)
			continue
		}
		if !In(src, s.Code) {
			t.Errorf("%s:%d: the sample is not in %s as it is written there:\n%s", page, s.Line, s.File, s.Code)
		}
	}
}

// A Sample is a ```go block of a page and the file it is taken from.
type Sample struct {
	File string // relative to the repository's root
	Line int    // of the block's opening fence, from 1
	Code string
}

// Samples returns the ```go blocks of a Markdown page, each with the file
// its preceding sample comment names; a block without one is an error.
func Samples(page []byte) ([]Sample, error) {
	var out []Sample
	var cur *Sample
	file := ""
	sc := bufio.NewScanner(bytes.NewReader(page))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.Code += line + "\n"
		case trimmed == "```go":
			if file == "" {
				return nil, fmt.Errorf("line %d: a Go sample without a <!-- sample: file --> comment before it", n)
			}
			cur = &Sample{File: file, Line: n}
			file = ""
		case source.MatchString(trimmed):
			file = source.FindStringSubmatch(trimmed)[1]
		case trimmed != "":
			file = "" // the comment must come right before its block
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: a Go sample that does not end", cur.Line)
	}
	return out, sc.Err()
}

// In reports whether the lines of sample appear in src, in order and
// together, blank lines and the indentation of each line aside: the rule
// by which Check finds a page's sample in its file, for samples kept
// elsewhere (a package's doc comment).
func In(src []byte, sample string) bool {
	return contains(lines(src), lines([]byte(sample)))
}

// lines returns the non-blank lines of b, without their indentation.
func lines(b []byte) []string {
	var out []string
	for l := range strings.SplitSeq(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// contains reports whether want appears in have, in order and together.
func contains(have, want []string) bool {
	for i := 0; i+len(want) <= len(have); i++ {
		j := 0
		for j < len(want) && have[i+j] == want[j] {
			j++
		}
		if j == len(want) {
			return true
		}
	}
	return false
}

// Root returns the repository's root: the nearest enclosing directory
// whose go.mod is vane's root module.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module github.com/vane-http/vane\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no enclosing directory holds vane's root go.mod")
		}
		dir = parent
	}
}
