package largeapi

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A generated program builds, and measures its variant: 3 types over 6
// operations, in packages of typesPerPackage.
func TestGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	dir := filepath.Join("_distinct_test")
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := Generate(dir, "github.com/vane-http/vane/bench/largeapi/_distinct_test", 3); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "distinct3")
	if out, err := exec.Command("go", "build", "-o", bin, "./"+dir).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, fw := range []string{"vane", "huma"} {
		out, err := exec.Command(bin, "-framework", fw, "-n", "6").Output()
		if err != nil {
			t.Fatalf("%s: %v", fw, err)
		}
		if !strings.Contains(string(out), `"Types":3`) {
			t.Errorf("%s: %s", fw, out)
		}
	}
}
