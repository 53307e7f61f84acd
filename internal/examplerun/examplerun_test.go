package examplerun

import (
	"os"
	"path/filepath"
	"testing"
)

// The example is built from its own module once it has one, else from the
// root module.
func TestPackage(t *testing.T) {
	root := t.TempDir()
	if dir, pkg := Package(root); dir != root || pkg != "./examples/petstore" {
		t.Errorf("without examples/go.mod: %s %s", dir, pkg)
	}
	if err := os.MkdirAll(filepath.Join(root, "examples"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "examples", "go.mod"), []byte("module github.com/vane-http/vane/examples\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if dir, pkg := Package(root); dir != filepath.Join(root, "examples") || pkg != "./petstore" {
		t.Errorf("with examples/go.mod: %s %s", dir, pkg)
	}
}

// The service's address is read from what it prints once it listens,
// and from nothing before.
func TestListening(t *testing.T) {
	for out, want := range map[string]string{
		"":                             "",
		"pet store: http://127.0.0.1:": "",
		"{\"level\":\"INFO\"}\npet store: http://127.0.0.1:41234/pets\ndocs page: http://127.0.0.1:41234/docs\n": "127.0.0.1:41234",
		"pet store: http://[::1]:8080/pets\n": "[::1]:8080",
	} {
		if got := listening(out); got != want {
			t.Errorf("listening(%q) = %q, want %q", out, got, want)
		}
	}
}
