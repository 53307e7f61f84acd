package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite openapi.yaml with the document generated now")

// TestOpenAPICommand checks `petstore openapi`, and that openapi.yaml, the
// copy of the document kept beside the code for client generators, is up
// to date. After a change to the API: go test ./examples/petstore -update,
// then review the diff.
func TestOpenAPICommand(t *testing.T) {
	var yaml, js bytes.Buffer
	if err := run(context.Background(), []string{"openapi"}, &yaml); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"openapi", "json"}, &js); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(js.Bytes()) || !strings.HasPrefix(yaml.String(), "openapi: 3.1.0\n") {
		t.Fatalf("json valid: %v; yaml starts %.40q", json.Valid(js.Bytes()), yaml.String())
	}
	if *update {
		if err := os.WriteFile("openapi.yaml", yaml.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kept, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(kept, yaml.Bytes()) {
		t.Error("examples/petstore/openapi.yaml is out of date: go test ./examples/petstore -update, and review the diff")
	}
	if err := run(context.Background(), []string{"frobnicate"}, io.Discard); err == nil {
		t.Error("unknown command accepted")
	}
}

// TestRunServesUntilCancelled starts the command as `go run` would, on a
// free port, uses it, and stops it.
func TestRunServesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, pw)
		pw.Close()
	}()

	// The command prints where everything is.
	printed := map[string]string{}
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		printed[k] = strings.TrimSpace(v)
		if k == "token" {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	docs := printed["docs page"]
	if !strings.HasSuffix(docs, "/docs") {
		t.Fatalf("printed %v", printed)
	}
	for _, url := range []string{docs, printed["pet store"], printed["OpenAPI"]} {
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("%s: %d", url, res.StatusCode)
		}
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run returned %v after its context ended", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop")
	}
}
