// Package differential checks that vane refuses exactly the request bodies
// that its own OpenAPI document makes invalid, as judged by an independent
// JSON Schema 2020-12 validator (github.com/santhosh-tekuri/jsonschema/v6)
// reading the document vane serves.
package differential

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/fast"
	"github.com/vane-http/vane/internal/examplerun"
)

// An operation under test: where to send bodies, and the schema its
// document gives them.
type target struct {
	name    string
	send    func(body []byte) int // the status vane answers
	schema  *jsonschema.Schema
	raw     any // the body schema, in the document's JSON, for the generator
	doc     map[string]any
	invalid func(status int) bool // whether a status is vane's refusal of the body
}

// refusal is a 400 or 422: the statuses vane answers a body it refuses.
func refusal(status int) bool { return status == 400 || status == 422 }

// TestDifferential sends generated valid and mutated bodies to every
// operation with a JSON body of the routers below and of the running
// example service, and requires vane's verdict to equal the independent
// validator's on the published document, for every body.
func TestDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of requests")
	}
	var targets []target
	for _, policy := range []struct {
		name  string
		opt   []vane.Option
		other vane.UnknownPolicy
	}{
		{"lenient", nil, vane.RefuseUnknown},
		{"strict", []vane.Option{vane.UnknownProperties(vane.RefuseUnknown)}, vane.IgnoreUnknown},
	} {
		r := vane.New(policy.opt...)
		register(r, policy.other)
		vane.Docs(r, vane.DocsConfig{})
		docJSON := serveGet(t, r, "/openapi.json")
		targets = append(targets, targetsOf(t, policy.name, docJSON, func(method, path string, body []byte) int {
			req := httptest.NewRequest(method, path, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			return w.Code
		})...)
		// The same router on the fast engine, whose typed operations
		// it serves natively: the same verdicts.
		base := serveFast(t, r)
		targets = append(targets, targetsOf(t, policy.name+" fast", docJSON, func(method, path string, body []byte) int {
			return post(t, base, method, path, body, "")
		})...)
	}
	if !testing.Short() && os.Getenv("VANE_DIFFERENTIAL_NO_EXAMPLE") == "" {
		for _, engine := range examplerun.Engines {
			svc := examplerun.Start(t, examplerun.Options{Engine: engine})
			docJSON := examplerun.Get(t, svc.URL+"/openapi.json")
			prefix := "petstore"
			if engine != "net/http" {
				prefix += " " + engine
			}
			targets = append(targets, targetsOf(t, prefix, docJSON, func(method, path string, body []byte) int {
				return post(t, svc.URL, method, path, body, svc.Token)
			})...)
		}
	}

	formats := suiteFormats(t)
	const perTarget = 400
	bodies, valid, disagreements := 0, 0, 0
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(tg.name))))
			g := &generator{doc: tg.doc, rng: rng, formats: formats}
			for i := 0; i < perTarget; i++ {
				inst := g.value(tg.raw, 0)
				if i%2 == 1 {
					inst = g.mutate(inst, tg.raw, 0)
				}
				body, err := json.Marshal(inst)
				if err != nil {
					t.Fatal(err)
				}
				var generic any
				if err := json.Unmarshal(body, &generic); err != nil {
					t.Fatal(err)
				}
				want := tg.schema.Validate(generic) == nil
				status := tg.send(body)
				got := !tg.invalid(status)
				bodies++
				if want {
					valid++
				}
				if got != want {
					disagreements++
					if disagreements <= 20 {
						verr := tg.schema.Validate(generic)
						t.Errorf("%s: vane %d, the validator says valid=%v (%v)", body, status, want, verr)
					}
				}
			}
		})
	}
	t.Logf("%d operations (%d of them in the example service), %d bodies: %d valid, %d invalid by the validator; %d disagreements",
		len(targets), countPrefix(targets, "petstore"), bodies, valid, bodies-valid, disagreements)
	if disagreements > 0 {
		t.Errorf("%d disagreements", disagreements)
	}
	if valid < bodies/5 || bodies-valid < bodies/5 {
		t.Errorf("%d valid of %d bodies: the generator should give both verdicts at least a fifth of the time", valid, bodies)
	}
	if len(targets) < 8 {
		t.Errorf("only %d operations tried", len(targets))
	}
}

// post sends body to base+path with method, as JSON, with a bearer token
// when there is one, and returns the status.
func post(t *testing.T, base, method, path string, body []byte, token string) int {
	req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// serveFast serves h on the fast engine on a loopback port until the test
// ends, and returns its base URL.
func serveFast(t *testing.T, h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	srv := &vane.Server{Handler: h, NoSignals: true, Logger: slog.New(slog.DiscardHandler)}
	go func() { done <- fast.ServeListener(ctx, srv, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the fast engine: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

func countPrefix(ts []target, p string) int {
	n := 0
	for _, t := range ts {
		if strings.HasPrefix(t.name, p) {
			n++
		}
	}
	return n
}

// targetsOf lists the operations of a document that take a JSON body, with
// that body's schema compiled by the independent validator.
func targetsOf(t *testing.T, prefix string, docJSON []byte, send func(method, path string, body []byte) int) []target {
	var doc map[string]any
	if err := json.Unmarshal(docJSON, &doc); err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	docAny, err := jsonschema.UnmarshalJSON(bytes.NewReader(docJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("vane.json", docAny); err != nil {
		t.Fatal(err)
	}
	paths, _ := doc["paths"].(map[string]any)
	names := make([]string, 0, len(paths))
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	var out []target
	for _, p := range names {
		item, _ := paths[p].(map[string]any)
		for _, method := range []string{"post", "put", "patch"} {
			op, _ := item[method].(map[string]any)
			rb, _ := op["requestBody"].(map[string]any)
			content, _ := rb["content"].(map[string]any)
			mt, _ := content["application/json"].(map[string]any)
			if mt == nil || strings.Contains(p, "{") && !strings.HasPrefix(prefix, "petstore") {
				continue
			}
			ptr := "vane.json#/paths/" + escape(p) + "/" + method + "/requestBody/content/application~1json/schema"
			s, err := c.Compile(ptr)
			if err != nil {
				t.Fatalf("%s: %v", ptr, err)
			}
			path := strings.NewReplacer("{id}", "1").Replace(p)
			m := strings.ToUpper(method)
			out = append(out, target{
				name: prefix + " " + m + " " + p, schema: s, raw: mt["schema"], doc: doc,
				send:    func(body []byte) int { return send(m, path, body) },
				invalid: refusal,
			})
		}
	}
	return out
}

func escape(p string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(p) }

func serveGet(t *testing.T, h http.Handler, path string) []byte {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	if w.Code != 200 {
		t.Fatalf("GET %s: %d", path, w.Code)
	}
	return w.Body.Bytes()
}

// suiteFormats returns, per format, the strings of the official
// JSON-Schema-Test-Suite cases vane's validate package vendors, valid and
// invalid, for the generator to draw from: those on which the independent
// validator agrees with the suite. Where it does not, the suite is the
// specification (and vane follows it: validate's TestFormatSuite), so the
// value would test the reference, not vane; such values are counted and
// left out.
func suiteFormats(t *testing.T) map[string][]string {
	formatsOnce.Do(func() { suiteValues, suiteDropped = loadSuiteFormats(t) })
	if suiteDropped > 0 {
		t.Logf("%d JSON-Schema-Test-Suite format values left out: santhosh-tekuri/jsonschema decides them against the suite, or Go's time parser reads a date-time RFC 3339 refuses", suiteDropped)
	}
	return suiteValues
}

var (
	formatsOnce  sync.Once
	suiteValues  map[string][]string
	suiteDropped int
)

func loadSuiteFormats(t *testing.T) (map[string][]string, int) {
	files, err := filepath.Glob("../../validate/testdata/format/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("suite files: %v", err)
	}
	out, dropped := map[string][]string{}, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var groups []struct {
			Tests []struct {
				Data  any
				Valid bool
			}
		}
		if err := json.Unmarshal(b, &groups); err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource("f.json", map[string]any{"format": name}); err != nil {
			t.Fatal(err)
		}
		ref, err := c.Compile("f.json")
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			for _, tc := range g.Tests {
				s, ok := tc.Data.(string)
				if !ok {
					continue
				}
				if (ref.Validate(s) == nil) != tc.Valid {
					dropped++
					continue
				}
				if _, err := time.Parse(time.RFC3339, s); name == "date-time" && !tc.Valid && err == nil {
					// A time.Time field takes what Go's time parser reads,
					// which accepts an offset such as +10:60 (as +11:00)
					// that RFC 3339 refuses: a known difference of
					// time.Time fields (docs/design/typed-operations.md),
					// not of vane's date-time format on strings.
					dropped++
					continue
				}
				out[name] = append(out[name], s)
			}
		}
	}
	return out, dropped
}

var _ = fmt.Sprint
