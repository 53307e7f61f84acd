package router

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRouterOnlySize checks that a program that only routes links nothing
// but the standard library and this package (no YAML, no JSON codec, no
// templates, no docs bundle), and that it is at most 1.15 times the size
// of the same program on net/http.ServeMux (testdata/size).
func TestRouterOnlySize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", "./testdata/size/router").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		first, _, _ := strings.Cut(pkg, "/")
		if strings.Contains(first, ".") && !strings.HasPrefix(pkg, "github.com/vane-http/vane/router") {
			t.Errorf("a router-only program links %s", pkg)
		}
	}
	dir := t.TempDir()
	size := func(prog string) int64 {
		bin := filepath.Join(dir, prog)
		if out, err := exec.Command(goTool, "build", "-o", bin, "./testdata/size/"+prog).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", prog, err, out)
		}
		fi, err := os.Stat(bin)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	r, m := size("router"), size("servemux")
	t.Logf("router-only program %d bytes, ServeMux program %d bytes: %.3f×", r, m, float64(r)/float64(m))
	if float64(r) > 1.15*float64(m) {
		t.Errorf("router-only program is %d bytes, %.2f× the ServeMux program's %d (at most 1.15×)", r, float64(r)/float64(m), m)
	}
}
