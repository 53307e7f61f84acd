package guide_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/vane-http/vane/internal/guidesample"
)

// Every page of docs/guide with Go samples has each sample as it is
// written in the tested file it names.
func TestGuidePages(t *testing.T) {
	root, err := guidesample.Root()
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "guide", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no guide pages: %v", err)
	}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte("```go")) {
			continue
		}
		rel, _ := filepath.Rel(root, page)
		t.Run(filepath.Base(page), func(t *testing.T) { guidesample.Check(t, filepath.ToSlash(rel)) })
	}
}
