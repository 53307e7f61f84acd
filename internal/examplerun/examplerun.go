// Package examplerun builds the example service (examples/petstore) as a
// user would, with go build from its own module wherever it lives, and runs
// it for a test on 127.0.0.1, bounded in time and stopped at the test's end.
// Conformance tests (the generated client, schemathesis) drive it over real
// HTTP.
package examplerun

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vane-http/vane/internal/syncbuf"
	"github.com/vane-http/vane/internal/testtool"
)

// Token is the bearer token the service is started with (PETSTORE_TOKEN).
const Token = "conformance-token"

// CursorKey is the key the service signs its list cursors with
// (PETSTORE_CURSOR_KEY): the same for every service started, so that a
// cursor made by one replica is read by another, or after a restart.
const CursorKey = "conformance-cursor-key-of-32-characters-or-more"

// Service is a running example service.
type Service struct {
	// URL is its base URL, http://127.0.0.1:PORT, without a trailing slash.
	URL string
	// Token is the bearer token its writing operations accept.
	Token string

	bin  string
	addr string
	dir  string
	env  []string
	out  *syncbuf.Buffer

	cmd     *exec.Cmd
	done    chan error
	running bool
}

// Options tune Start.
type Options struct {
	// Race builds the service with the race detector, so that a data race
	// the requests provoke kills it (and fails the test) rather than going
	// unseen.
	Race bool
	// Env adds variables to the service's environment.
	Env []string
	// Seed, if not 0, is how many generated pets `petstore seed` adds to
	// the store before the service starts.
	Seed int
	// Engine is the server under the service (PETSTORE_ENGINE): "" or
	// "net/http", or "fast" (package github.com/vane-http/vane/fast).
	Engine string
}

// Engines are the servers the example runs on; a conformance suite runs
// against each (Options.Engine).
var Engines = []string{"net/http", "fast"}

// Start builds the example service and starts it on a free port of
// 127.0.0.1, in a temporary working directory, and returns once it answers
// GET /openapi.json. It is stopped (SIGTERM, then killed after a minute) when
// the test ends, and the test fails if it exited with an error or reported
// a data race.
func Start(t testing.TB, o Options) *Service {
	t.Helper()
	bin := build(t, o.Race)

	s := &Service{
		Token: Token,
		bin:   bin,
		dir:   t.TempDir(),
		out:   &syncbuf.Buffer{},
	}
	// The service's defaults (SQLite in the working directory), whatever
	// the test's environment says.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PETSTORE_") && !strings.HasPrefix(kv, "DATABASE_URL=") {
			s.env = append(s.env, kv)
		}
	}
	s.env = append(s.env, "PETSTORE_TOKEN="+Token, "PETSTORE_CURSOR_KEY="+CursorKey)
	if o.Engine != "" {
		s.env = append(s.env, "PETSTORE_ENGINE="+o.Engine)
	}
	s.env = append(s.env, o.Env...)
	t.Cleanup(func() {
		if s.running {
			s.Stop(t)
		}
	})
	if o.Seed > 0 {
		s.seed(t, o.Seed)
	}
	s.launch(t)
	return s
}

// seed runs `petstore seed n` on the service's store, within 15 minutes.
func (s *Service) seed(t testing.TB, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.bin, "-log", "text", "seed", strconv.Itoa(n))
	cmd.Dir, cmd.Env = s.dir, s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("petstore seed %d: %v\n%s", n, err, tail(string(out)))
	}
}

// launch starts the built service on its address and waits until it
// answers GET /openapi.json. The first launch listens on a port the
// system picks (-addr 127.0.0.1:0) and reads it from what the service
// prints, so that no other process can take the port between its choice
// and the service's listen (and answer in the service's place).
func (s *Service) launch(t testing.TB) {
	t.Helper()
	addr := s.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	s.cmd = exec.Command(s.bin, "-addr", addr)
	s.cmd.Dir, s.cmd.Env = s.dir, s.env
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	s.done = make(chan error, 1)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.running = true
	done := s.done
	go func() { done <- s.cmd.Wait() }()

	deadline := time.Now().Add(60 * time.Second)
	for {
		if s.addr == "" {
			s.addr = listening(s.out.String())
		}
		if s.addr != "" {
			s.URL = "http://" + s.addr
			res, err := http.Get(s.URL + "/openapi.json")
			if err == nil {
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					return
				}
			}
		}
		select {
		case err := <-s.done:
			s.done <- err
			t.Fatalf("the example service exited before answering: %v\n%s", err, s.out.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the example service did not answer GET /openapi.json on %q within 60 s:\n%s", s.addr, s.out.String())
		}
	}
}

// listening returns the address the service printed that it serves on
// ("pet store: http://127.0.0.1:PORT/pets"), or "" before it did.
func listening(out string) string {
	const prefix = "pet store: http://"
	i := strings.Index(out, prefix)
	if i < 0 {
		return ""
	}
	rest := out[i+len(prefix):]
	j := strings.Index(rest, "/pets\n")
	if j < 0 {
		return ""
	}
	return rest[:j]
}

// Restart starts the service again on the same address, after Stop or
// Kill, and waits until it answers.
func (s *Service) Restart(t testing.TB) {
	t.Helper()
	if s.running {
		t.Fatal("examplerun: Restart of a service that runs")
	}
	s.launch(t)
}

// Kill ends the service with SIGKILL, as a crash or an OOM kill would, and
// waits for it to exit.
func (s *Service) Kill(t testing.TB) {
	t.Helper()
	s.cmd.Process.Kill()
	<-s.done
	s.running = false
}

// Pid is the process ID of the running service, for a test that reads
// what the system says of it (its memory, under /proc).
func (s *Service) Pid() int { return s.cmd.Process.Pid }

// Output returns what the service printed so far.
func (s *Service) Output() string { return s.out.String() }

// Stop ends the service as an orchestrator does, with SIGTERM, and waits
// for it to exit (killing it after a minute, a generous limit for a
// process built with the race detector on a loaded machine; it stops at
// once, or after its drain delay); t fails if it did not stop in time,
// exited with an error or reported a data race.
func (s *Service) Stop(t testing.TB) {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	var err error
	select {
	case err = <-s.done:
	case <-time.After(time.Minute):
		s.cmd.Process.Kill()
		err = <-s.done
		t.Errorf("the example service did not stop within a minute of SIGTERM")
	}
	s.running = false
	out := s.out.String()
	if err != nil {
		t.Errorf("the example service exited with %v:\n%s", err, tail(out))
	} else if bytes.Contains([]byte(out), []byte("WARNING: DATA RACE")) {
		t.Errorf("the example service reported a data race:\n%s", out)
	}
}

// build compiles the example into a temporary directory and returns the
// binary's path. (Go's build cache makes a second build of the same code a
// link.)
func build(t testing.TB, race bool) string {
	t.Helper()
	dir, pkg := Package(testtool.Root(t))
	bin := filepath.Join(t.TempDir(), "petstore")
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append(args, pkg)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s (in %s): %v\n%s", pkg, dir, err, out)
	}
	return bin
}

// Package returns where the example service is built from: the directory
// to run go build in (the examples module when it has a go.mod of its own,
// else the repository's root) and the package path.
func Package(root string) (dir, pkg string) {
	if _, err := os.Stat(filepath.Join(root, "examples", "go.mod")); err == nil {
		return filepath.Join(root, "examples"), "./petstore"
	}
	return root, "./examples/petstore"
}

func tail(s string) string {
	if len(s) > 8000 {
		return "…" + s[len(s)-8000:]
	}
	return s
}

// Get fetches url and returns its body, failing t unless the answer is
// 200 OK.
func Get(t testing.TB, url string) []byte {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, res.StatusCode, err)
	}
	return b
}
