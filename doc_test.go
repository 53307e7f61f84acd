package vane_test

import (
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/vane-http/vane/internal/guidesample"
)

// Every code block of the package overview (doc.go) is taken from
// example_test.go, whose examples compile and run, so that the overview's
// service cannot rot.
func TestPackageDocSamples(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	blocks := docCodeBlocks(f.Doc.Text())
	if len(blocks) < 2 {
		t.Fatalf("the package doc has %d code blocks, want the service and how to serve it", len(blocks))
	}
	for _, b := range blocks {
		if !guidesample.In(src, b) {
			t.Errorf("this block of doc.go is not in example_test.go as it is written there:\n%s", b)
		}
	}
}

// docCodeBlocks returns the code blocks of a doc comment's text: its runs
// of indented lines, blank lines inside them included.
func docCodeBlocks(text string) []string {
	var blocks []string
	var cur []string
	flush := func() {
		for len(cur) > 0 && strings.TrimSpace(cur[len(cur)-1]) == "" {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			blocks = append(blocks, strings.Join(cur, "\n"))
		}
		cur = nil
	}
	for line := range strings.SplitSeq(text, "\n") {
		switch {
		case strings.HasPrefix(line, "\t"):
			cur = append(cur, line)
		case line == "" && cur != nil:
			cur = append(cur, line)
		default:
			flush()
		}
	}
	flush()
	return blocks
}
