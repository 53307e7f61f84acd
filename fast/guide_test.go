package fast

import (
	"testing"

	"github.com/vane-http/vane/internal/guidesample"
)

// The samples of docs/guide/fast-engine.md are taken from example_test.go.
func TestGuideSamples(t *testing.T) { guidesample.Check(t, "docs/guide/fast-engine.md") }
