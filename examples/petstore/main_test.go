package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/cli"
	"github.com/vane-http/vane/internal/syncbuf"
)

var update = flag.Bool("update", false, "rewrite openapi.yaml with the document generated now")

// noEnv is an empty environment.
func noEnv(string) string { return "" }

// envOf is an environment holding vars.
func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestOpenAPICommand checks `petstore openapi`, and that openapi.yaml, the
// copy of the document kept beside the code for client generators, is up
// to date. After a change to the API: go test ./petstore -update (in
// examples/), then review the diff.
func TestOpenAPICommand(t *testing.T) {
	var yaml, js bytes.Buffer
	if err := app.Run(context.Background(), []string{"openapi"}, noEnv, &yaml, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := app.Run(context.Background(), []string{"openapi", "json"}, noEnv, &js, io.Discard); err != nil {
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
		t.Error("examples/petstore/openapi.yaml is out of date: go test ./petstore -update (in examples/), and review the diff")
	}
	if err := app.Run(context.Background(), []string{"frobnicate"}, noEnv, io.Discard, io.Discard); err == nil {
		t.Error("unknown command accepted")
	}
	if err := app.Run(context.Background(), []string{"-log", "xml"}, noEnv, io.Discard, io.Discard); err == nil {
		t.Error("unknown log format accepted")
	}
}

// Every setting is read from the flag and the variable operators know it
// by (the README's table, internal/examplerun, deployments), the secrets
// from the environment only, and the help shows no secret.
func TestSettings(t *testing.T) {
	read := func(args []string, env map[string]string) (*settings, string, error) {
		a := *app
		var got *settings
		a.Serve = func(_ context.Context, s *settings, _ *cli.Env) error { got = s; return nil }
		var out bytes.Buffer
		err := a.Run(t.Context(), args, envOf(env), &out, io.Discard)
		return got, out.String(), err
	}
	if got, _, err := read(nil, nil); err != nil || !reflect.DeepEqual(*got,
		settings{Addr: ":8080", Data: "petstore-data", Engine: "net/http", Timeout: 15 * time.Second, Log: "json"}) {
		t.Errorf("the defaults: %+v, %v", got, err)
	}
	want := settings{Addr: ":9000", Data: "/var/lib/petstore", DatabaseURL: "postgres://db/pets", Engine: "fast",
		CORSOrigins: []string{"https://a.example", "https://b.example"}, TrustedProxies: []string{"10.0.0.0/8", "192.168.1.7"},
		Timeout: 3 * time.Second, DrainDelay: 5 * time.Second, Log: "text", Token: "t0ken", CursorKey: "k3y"}
	secrets := map[string]string{"PETSTORE_TOKEN": "t0ken", "PETSTORE_CURSOR_KEY": "k3y"}
	vars := map[string]string{"PETSTORE_ADDR": ":9000", "PETSTORE_DATA": "/var/lib/petstore", "DATABASE_URL": "postgres://db/pets",
		"PETSTORE_ENGINE": "fast", "PETSTORE_CORS_ORIGINS": "https://a.example,https://b.example",
		"PETSTORE_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7", "PETSTORE_TIMEOUT": "3s", "PETSTORE_DRAIN_DELAY": "5s", "PETSTORE_LOG": "text"}
	maps.Copy(vars, secrets)
	flags := []string{"-addr", ":9000", "-data", "/var/lib/petstore", "-database-url", "postgres://db/pets", "-engine", "fast",
		"-cors-origins", "https://a.example,https://b.example", "-trusted-proxies", "10.0.0.0/8, 192.168.1.7",
		"-timeout", "3s", "-drain-delay", "5s", "-log", "text"}
	for name, src := range map[string]struct {
		args []string
		env  map[string]string
	}{"variables": {nil, vars}, "flags": {flags, secrets}} {
		if got, _, err := read(src.args, src.env); err != nil || !reflect.DeepEqual(*got, want) {
			t.Errorf("from the %s: %+v, %v; want %+v", name, got, err, want)
		}
	}
	for _, secret := range []string{"-token", "-cursor-key"} {
		if got, _, err := read([]string{secret, "x"}, nil); err == nil {
			t.Errorf("%s is a flag (%+v): a secret is read from the environment only", secret, got)
		}
	}
	_, help, err := read([]string{"-h"}, vars)
	if err != nil || !strings.Contains(help, "$PETSTORE_TOKEN") || !strings.Contains(help, "$PETSTORE_CURSOR_KEY") ||
		strings.Contains(help, "t0ken") || strings.Contains(help, "k3y") || strings.Contains(help, "db/pets") {
		t.Errorf("the help names each secret's variable and shows no variable's value (%v):\n%s", err, help)
	}
}

// running is the command started as `go run` would start it.
type running struct {
	printed map[string]string // what it printed at start: "pet store", "docs page", "token"…
	base    string            // http://127.0.0.1:port
	token   string            // the bearer token: PETSTORE_TOKEN, or the one it printed
	logs    *syncbuf.Buffer   // its standard error
	stop    func() error      // cancels its context and returns the command's result
}

// start runs the command with args (and -addr 127.0.0.1:0) in env, and
// returns once it serves.
func start(t *testing.T, args []string, env map[string]string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	logs := &syncbuf.Buffer{}
	done := make(chan error, 1)
	go func() {
		done <- app.Run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), envOf(env), pw, logs)
		pw.Close()
	}()
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
	if _, ok := printed["token"]; !ok {
		cancel()
		t.Fatalf("the command did not start: %v\n%s", <-done, logs.String())
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute): // generous for a loaded machine; it stops at once
			t.Fatal("the command did not stop")
			return nil
		}
	}
	t.Cleanup(func() { stop() })
	base := strings.TrimSuffix(printed["pet store"], "/pets")
	token := env["PETSTORE_TOKEN"]
	if token == "" {
		token = strings.Fields(printed["token"])[0]
	}
	return &running{printed, base, token, logs, stop}
}

// engines are the servers the command runs on (-engine), each test of the
// command as operated running on each: the same service, the same answers.
var engines = []string{"net/http", "fast"}

// eachEngine runs test as a subtest for each engine, with the -engine
// flag that selects it.
func eachEngine(t *testing.T, test func(t *testing.T, engine []string)) {
	for _, e := range engines {
		t.Run(strings.ReplaceAll(e, "/", ""), func(t *testing.T) { test(t, []string{"-engine", e}) })
	}
}

// TestRunServesUntilCancelled starts the command, uses every URL it prints,
// and stops it.
func TestRunServesUntilCancelled(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine []string) {
		r := start(t, append([]string{"-data", t.TempDir()}, engine...), nil)
		if !strings.HasSuffix(r.printed["docs page"], "/docs") || !strings.HasPrefix(r.printed["database"], "sqlite ") {
			t.Fatalf("printed %v", r.printed)
		}
		for _, url := range append([]string{r.printed["docs page"], r.printed["pet store"], r.printed["OpenAPI"]},
			strings.Fields(r.printed["health"])...) {
			res, err := http.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Errorf("%s: %d", url, res.StatusCode)
			}
			if strings.HasSuffix(url, "/docs") && !bytes.Contains(body, []byte("<html")) {
				t.Errorf("%s is not the docs page: %.200q", url, body)
			}
		}
		if err := r.stop(); err != nil {
			t.Errorf("the command returned %v after its context ended", err)
		}
		if strings.Contains(engine[1], "fast") != strings.Contains(r.logs.String(), `"msg":"fast: routes"`) {
			t.Errorf("-engine %s: the fast engine's record of its routes is missing or extra:\n%s", engine[1], r.logs.String())
		}
	})
}

// The engine is named: the environment's PETSTORE_ENGINE chooses it as
// the flag does, and a name that is not an engine is refused.
func TestRunEngineChoice(t *testing.T) {
	r := start(t, []string{"-data", t.TempDir()}, map[string]string{"PETSTORE_ENGINE": "fast"})
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.logs.String(), `"msg":"fast: routes"`) {
		t.Errorf("PETSTORE_ENGINE=fast did not start the fast engine:\n%s", r.logs.String())
	}
	err := app.Run(context.Background(), []string{"-engine", "fasthttp", "-data", t.TempDir()}, noEnv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "fasthttp") {
		t.Errorf("-engine fasthttp: %v, want an error naming it", err)
	}
}

// createPet adds a pet through the running service and returns its URL.
func createPet(t *testing.T, r *running, body string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", r.base+"/pets", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+r.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 201 {
		t.Fatalf("creating a pet: %d", res.StatusCode)
	}
	return r.base + res.Header.Get("Location")
}

// TestRestartKeepsPets creates a pet, restarts the service on the same
// database, and finds the pet there: on SQLite (the data directory) and on
// PostgreSQL (DATABASE_URL).
func TestRestartKeepsPets(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		loc := db.fresh(t)
		args, env := []string{"-data", loc}, map[string]string{"PETSTORE_TOKEN": "secret"}
		if db.name == "postgres" {
			args, env["DATABASE_URL"] = nil, loc
		}
		first := start(t, args, env)
		if !strings.HasPrefix(first.printed["database"], db.name+" ") {
			t.Fatalf("database %q", first.printed["database"])
		}
		url := createPet(t, first, `{"name":"Nemo","species":"fish","tags":["orange"]}`)
		if err := first.stop(); err != nil {
			t.Fatal(err)
		}

		second := start(t, args, env)
		res, err := http.Get(strings.Replace(url, first.base, second.base, 1))
		if err != nil {
			t.Fatal(err)
		}
		var p Pet
		json.NewDecoder(res.Body).Decode(&p)
		res.Body.Close()
		if res.StatusCode != 200 || p.Name != "Nemo" || len(p.Tags) != 1 {
			t.Errorf("after the restart: %d %+v", res.StatusCode, p)
		}
		var page Page[Pet]
		res, err = http.Get(second.base + "/pets?total=true")
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(res.Body).Decode(&page)
		res.Body.Close()
		if page.Total == nil || *page.Total != 8 {
			t.Errorf("%v pets after the restart, want 8", page.Total)
		}
	})
}

// TestRunAsOperated checks what an operator sees from the outside: gzip,
// request IDs, health and readiness, CORS for the configured origin, the
// client's address behind a trusted proxy, and one JSON log line per
// request.
func TestRunAsOperated(t *testing.T) { eachEngine(t, testRunAsOperated) }

func testRunAsOperated(t *testing.T, engine []string) {
	r := start(t, append([]string{"-data", t.TempDir(), "-cors-origins", "https://app.example", "-trusted-proxies", "127.0.0.1"}, engine...), nil)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	send := func(method, path string, header http.Header) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, r.base+path, nil)
		for k, v := range header {
			req.Header[k] = v
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res, b
	}

	res, body := send("GET", "/pets", http.Header{"Accept-Encoding": {"gzip"}, "X-Forwarded-For": {"203.0.113.9"}})
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" || len(res.Header.Get("X-Request-Id")) != 26 {
		t.Errorf("GET /pets: %d, Content-Encoding %q, X-Request-Id %q", res.StatusCode, res.Header.Get("Content-Encoding"), res.Header.Get("X-Request-Id"))
	}
	if zr, err := gzip.NewReader(bytes.NewReader(body)); err != nil {
		t.Errorf("not gzip: %v", err)
	} else if plain, err := io.ReadAll(zr); err != nil || !json.Valid(plain) {
		t.Errorf("gunzipped body: %v %.80q", err, plain)
	}

	for _, path := range []string{"/healthz", "/readyz"} {
		if res, body := send("GET", path, nil); res.StatusCode != 200 || !json.Valid(body) {
			t.Errorf("%s: %d %s", path, res.StatusCode, body)
		}
	}

	res, _ = send("OPTIONS", "/pets", http.Header{"Origin": {"https://app.example"}, "Access-Control-Request-Method": {"POST"},
		"Access-Control-Request-Headers": {"authorization,content-type"}})
	if res.Header.Get("Access-Control-Allow-Origin") != "https://app.example" || !strings.Contains(res.Header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("preflight from the configured origin: %d %v", res.StatusCode, res.Header)
	}
	// The headers the operations read and answer, as the document says
	// (vane.Router.CORSHeaders): a page can make a conditional write,
	// resume a stream, and read versions and next links.
	for _, h := range []string{"if-unmodified-since", "if-match", "last-event-id", "content-encoding"} {
		res, _ = send("OPTIONS", "/pets/1", http.Header{"Origin": {"https://app.example"}, "Access-Control-Request-Method": {"PUT"},
			"Access-Control-Request-Headers": {h}})
		if !strings.Contains(strings.ToLower(res.Header.Get("Access-Control-Allow-Headers")), h) { // names in any case
			t.Errorf("preflight asking for %s: Access-Control-Allow-Headers %q", h, res.Header.Get("Access-Control-Allow-Headers"))
		}
	}
	res, _ = send("GET", "/pets?limit=1", http.Header{"Origin": {"https://app.example"}})
	for _, h := range []string{"ETag", "Link", "Retry-After", "WWW-Authenticate", "X-Request-Id"} {
		if !strings.Contains(strings.ToLower(res.Header.Get("Access-Control-Expose-Headers")), strings.ToLower(h)) {
			t.Errorf("%s is not exposed: Access-Control-Expose-Headers %q", h, res.Header.Get("Access-Control-Expose-Headers"))
		}
	}
	res, _ = send("GET", "/pets/1", http.Header{"Origin": {"https://evil.example"}})
	if res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("another origin: %d %v", res.StatusCode, res.Header)
	}

	res, _ = send("GET", "/pets/1", http.Header{"X-Request-Id": {"abc-123"}})
	if res.Header.Get("X-Request-Id") != "abc-123" {
		t.Errorf("X-Request-Id %q, want the client's", res.Header.Get("X-Request-Id"))
	}

	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	var requests []map[string]any
	for line := range strings.Lines(r.logs.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if rec["msg"] == "request" {
			requests = append(requests, rec)
		}
	}
	if len(requests) != 11 {
		t.Fatalf("%d request log lines for 11 requests:\n%s", len(requests), r.logs.String())
	}
	first := requests[0]
	for k, want := range map[string]any{"method": "GET", "route": "/pets", "path": "/pets", "status": 200.0, "client": "203.0.113.9"} {
		if first[k] != want {
			t.Errorf("%s = %v, want %v, in %v", k, first[k], want, first)
		}
	}
	if id, _ := first["request_id"].(string); len(id) != 26 {
		t.Errorf("request_id %v", first["request_id"])
	}
	if b, _ := first["bytes"].(float64); b <= 0 {
		t.Errorf("bytes %v", first["bytes"])
	}
	if last := requests[len(requests)-1]; last["request_id"] != "abc-123" || last["route"] != "/pets/{id}" {
		t.Errorf("last request's line: %v", last)
	}
}

// At shutdown the service fails readiness at once, and keeps serving
// until the drain delay has passed.
func TestRunFailsReadinessWhileDraining(t *testing.T) {
	eachEngine(t, testRunFailsReadinessWhileDraining)
}

func testRunFailsReadinessWhileDraining(t *testing.T, engine []string) {
	r := start(t, append([]string{"-data", t.TempDir(), "-drain-delay", "1s"}, engine...), nil)
	stopped := make(chan error, 1)
	go func() { stopped <- r.stop() }()
	// Real time: the command serves on a real socket. The limit is
	// generous for a loaded machine; readiness fails at once.
	deadline := time.Now().Add(time.Minute)
	for {
		res, err := http.Get(r.base + "/readyz")
		if err != nil {
			t.Fatalf("the listener closed before readiness failed: %v", err)
		}
		res.Body.Close()
		if res.StatusCode == 503 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("readiness still 200 a minute after shutdown began")
		}
		time.Sleep(5 * time.Millisecond)
	}
	res, err := http.Get(r.base + "/pets/1")
	if err != nil || res.StatusCode != 200 {
		t.Errorf("while draining, GET /pets/1: %v %v", res, err)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}

// Readiness reports the database: 503 with a problem body once it stops
// answering.
func TestReadinessReportsTheDatabase(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		store := db.freshStore(t)
		srv := &vane.Server{Logger: slog.New(slog.DiscardHandler)}
		h := newService(store, nil, options{ready: readiness(srv, store)})
		get := func() (int, string, string) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", "/readyz", nil))
			return w.Code, w.Header().Get("Content-Type"), w.Body.String()
		}
		if code, _, body := get(); code != 200 || !strings.Contains(body, `"database":"ok"`) {
			t.Errorf("database up: %d %s", code, body)
		}
		store.Close()
		if code, ctype, body := get(); code != 503 || ctype != "application/problem+json" || !strings.Contains(body, "database check failed") {
			t.Errorf("database down: %d %q %s", code, ctype, body)
		}
		// Liveness does not depend on the database.
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/healthz", nil))
		if w.Code != 200 {
			t.Errorf("healthz with the database down: %d", w.Code)
		}
	})
}
