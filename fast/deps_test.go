package fast

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestRootDoesNotLinkFasthttp: the default stays net/http. No package of
// vane's root module links fasthttp (go list -deps of all of them, tests
// aside), and the root's go.mod does not name it: only a program that
// imports this module gets it.
func TestRootDoesNotLinkFasthttp(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the root module")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	cmd := exec.Command(goTool, "list", "-deps", "github.com/vane-http/vane/...")
	cmd.Dir = ".." // the root module
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) < 50 {
		t.Fatalf("go list -deps listed %d packages: %s", len(pkgs), out)
	}
	for _, pkg := range pkgs {
		if strings.Contains(pkg, "valyala") || strings.HasPrefix(pkg, "github.com/vane-http/vane/fast") {
			t.Errorf("the root module links %s", pkg)
		}
	}
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mod), "valyala") {
		t.Errorf("the root's go.mod names fasthttp:\n%s", mod)
	}
}
