// Package oapigen keeps a client that oapi-codegen generated from a
// document true to it: the document is kept beside the client as
// openapi-3.0.json, and the client is exactly what the generator (a tool
// directive of the conformance module) makes of it with the directory's
// oapi-codegen.yaml.
package oapigen

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Check fails t unless dir/openapi-3.0.json holds doc, the document the
// service serves, and dir/client.gen.go is what oapi-codegen generates
// from it. With update it first writes doc there and regenerates the
// client. regenerate says, in the failure, how to update.
func Check(t *testing.T, dir string, doc []byte, update bool, regenerate string) {
	t.Helper()
	kept := filepath.Join(dir, "openapi-3.0.json")
	// Kept indented, so that a change of the document reads as a diff.
	var indented bytes.Buffer
	if err := json.Indent(&indented, bytes.TrimSpace(doc), "", "  "); err != nil {
		t.Fatalf("the served document is not JSON: %v", err)
	}
	doc = append(indented.Bytes(), '\n')
	if update {
		if err := os.WriteFile(kept, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		Generate(t, dir, "client.gen.go")
	}
	if b, err := os.ReadFile(kept); err != nil || !bytes.Equal(b, doc) {
		t.Fatalf("%s is not the document the service serves (%v): %s regenerates the client; then review the diff", kept, err, regenerate)
	}
	// The committed client is the generator's output, untouched.
	fresh := Generate(t, dir, filepath.Join(t.TempDir(), "client.gen.go"))
	committed, err := os.ReadFile(filepath.Join(dir, "client.gen.go"))
	if err != nil || !bytes.Equal(fresh, committed) {
		t.Fatalf("%s/client.gen.go is not what oapi-codegen generates from %s (%v): go generate ./%s", dir, kept, err, dir)
	}
}

// Generate runs oapi-codegen on dir/openapi-3.0.json with
// dir/oapi-codegen.yaml, writing out (relative to dir, or absolute), and
// returns what it wrote.
func Generate(t *testing.T, dir, out string) []byte {
	t.Helper()
	abs := out
	if !filepath.IsAbs(out) {
		var err error
		if abs, err = filepath.Abs(filepath.Join(dir, out)); err != nil {
			t.Fatal(err)
		}
	}
	// Generous: the first run compiles the generator.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "tool", "oapi-codegen", "-config", "oapi-codegen.yaml", "-o", abs, "openapi-3.0.json")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, b)
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
