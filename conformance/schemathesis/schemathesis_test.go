package schemathesis

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane/internal/examplerun"
	"github.com/vane-http/vane/internal/testtool"
)

var (
	examples     = flag.Int("examples", 50, "schemathesis --max-examples: test cases per operation and phase")
	fastExamples = flag.Int("fast-examples", 25, "schemathesis --max-examples on the fast engine, whose run follows net/http's with fewer cases to keep CI's time")
	seed         = flag.Int("seed", 20261122, "schemathesis --seed (fixed, so that a failure can be replayed)")
)

// budget bounds the whole run of schemathesis, an external process, so
// that one that hangs fails with its output rather than at go test's own
// timeout: 8 minutes, as generous as that timeout (10 minutes for the
// package, the build and the service's start included) allows, for a
// loaded machine. With the default number of examples it ends well before.
const budget = 8 * time.Minute

// explicitOnly fetches the document at url and returns it without the
// "default" response of any operation, and without the Idempotency-Key
// header parameter: a key's answer depends on the requests made with it
// before (the same key with another body is rightly a 422), which
// schemathesis, drawing keys from the pattern, cannot model; the keys are
// tested by examples/petstore/idempotency_test.go.
func explicitOnly(t *testing.T, url string) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(examplerun.Get(t, url), &doc); err != nil {
		t.Fatal(err)
	}
	removed := 0
	paths, _ := doc["paths"].(map[string]any)
	for _, item := range paths {
		ops, _ := item.(map[string]any)
		for _, op := range ops {
			if o, ok := op.(map[string]any); ok {
				if params, ok := o["parameters"].([]any); ok {
					o["parameters"] = slices.DeleteFunc(params, func(p any) bool {
						m, _ := p.(map[string]any)
						return m["name"] == "Idempotency-Key"
					})
				}
			}
			if responses, ok := op.(map[string]any)["responses"].(map[string]any); ok {
				if _, ok := responses["default"]; ok {
					delete(responses, "default")
					removed++
				}
			}
		}
	}
	if removed == 0 {
		t.Fatal("the document has no default responses to remove: is this still vane's document?")
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSchemathesis runs every check of schemathesis against the example
// service's OpenAPI 3.1 document and requires no failure and no error: on
// net/http's server, and on the fast engine with fewer cases (-fast-examples),
// the same seed and checks.
func TestSchemathesis(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example service, then schemathesis for a few minutes")
	}
	st := testtool.Venv(t, "schemathesis")
	for _, engine := range examplerun.Engines {
		n := *examples
		if engine == "fast" {
			n = *fastExamples
		}
		t.Run(strings.ReplaceAll(engine, "/", ""), func(t *testing.T) { run(t, st, engine, n) })
	}
}

// run runs schemathesis with examples cases against the example served
// by engine.
func run(t *testing.T, st, engine string, examples int) {
	svc := examplerun.Start(t, examplerun.Options{Race: true, Engine: engine})
	reports := t.TempDir()

	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	config, err := filepath.Abs("schemathesis.toml")
	if err != nil {
		t.Fatal(err)
	}
	// The document without its "default" responses: every status the
	// service answers must be listed by its number, so that an answer the
	// document covers only by default fails status_code_conformance.
	spec := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(spec, explicitOnly(t, svc.URL+"/openapi.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, st, "--config-file", config, "run", spec, "--url", svc.URL,
		"--checks", "all",
		// An event stream lasts as long as its client listens: schemathesis
		// would wait for its end. Its own test is examples/petstore's.
		"--exclude-path", "/pets/events",
		"--header", "Authorization: Bearer "+svc.Token,
		"--max-examples", strconv.Itoa(examples),
		"--seed", strconv.Itoa(*seed),
		"--workers", "1",
		"--request-timeout", "10",
		"--generation-database", "none",
		"--report", "junit,ndjson",
		"--report-dir", reports,
		"--no-color",
	)
	cmd.Dir = t.TempDir() // reports and caches stay out of the repository
	cmd.Env = append(os.Environ(), "SCHEMATHESIS_TELEMETRY=false")
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("schemathesis did not finish within %v:\n%s", budget, tail(out))
	}

	requests, checks, failed := count(t, reports)
	t.Logf("schemathesis: %d requests, %d checks (%d failed) in %v; %s", requests, checks, failed, elapsed.Round(time.Second), summary(out))
	if err != nil {
		t.Fatalf("schemathesis reports failures (%v); replay one with the printed curl commands:\n%s", err, tail(out))
	}
	if requests == 0 || checks == 0 {
		t.Fatalf("schemathesis made %d requests and %d checks: nothing was tested\n%s", requests, checks, tail(out))
	}
	if failed > 0 {
		t.Fatalf("%d checks failed although schemathesis exited 0:\n%s", failed, tail(out))
	}
}

// count reads schemathesis's ndjson event log: the requests it sent and the
// checks it ran on their responses.
func count(t *testing.T, dir string) (requests, checks, failed int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	if len(files) != 1 {
		t.Fatalf("want one ndjson report in %s, found %v", dir, files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var ev map[string]json.RawMessage
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		raw, ok := ev["ScenarioFinished"]
		if !ok {
			continue
		}
		var sf struct {
			Recorder struct {
				Interactions map[string]json.RawMessage `json:"interactions"`
				Checks       map[string][]struct {
					Status string `json:"status"`
				} `json:"checks"`
			} `json:"recorder"`
		}
		if err := json.Unmarshal(raw, &sf); err != nil {
			t.Fatalf("ndjson report: %v", err)
		}
		requests += len(sf.Recorder.Interactions)
		for _, list := range sf.Recorder.Checks {
			for _, c := range list {
				checks++
				if c.Status != "success" {
					failed++
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return requests, checks, failed
}

// summary returns schemathesis's closing line ("== 0 failures in 95.12s ==").
func summary(out []byte) string {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	return strings.Trim(string(lines[len(lines)-1]), "= ")
}

func tail(b []byte) string {
	if len(b) > 20000 {
		return "…" + string(b[len(b)-20000:])
	}
	return string(b)
}
