package vane

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRetainRule shows that breaking the rule of Param and Retain fails
// loudly: a goroutine that reads a request's parameters after its handler
// returned, without Retain, is reported by the race detector.
func TestRetainRule(t *testing.T) {
	checkRaceRule(t, "TestRetainViolation", "VANE_RETAIN_VIOLATION", "VANE_RETAIN")
}

// checkRaceRule runs the test child in a `go test -race` of this package
// twice, with env set to 1: once breaking a reuse rule, which must end in a
// reported DATA RACE and a failure, and once with keep=1 also set, keeping
// to the rule, which must pass without one.
func checkRaceRule(t *testing.T, child, env, keep string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the package with -race")
	}
	if os.Getenv(env) != "" {
		t.Skip("inside the child")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	for _, kept := range []bool{false, true} {
		cmd := exec.Command(goTool, "test", "-race", "-count=1", "-run", "^"+child+"$", ".")
		cmd.Env = append(os.Environ(), env+"=1")
		if kept {
			cmd.Env = append(cmd.Env, keep+"=1")
		}
		out, err := cmd.CombinedOutput()
		raced := strings.Contains(string(out), "WARNING: DATA RACE")
		if raced == kept || (err == nil) == !kept {
			t.Errorf("%s with %s=%v: race reported %v, err %v; output:\n%s", child, keep, kept, raced, err, out)
		}
	}
}

// TestRetainViolation is run by TestRetainRule: a handler leaks its request
// to a goroutine that reads a parameter after the handler returned and after
// another request reused the routing context.
func TestRetainViolation(t *testing.T) {
	if os.Getenv("VANE_RETAIN_VIOLATION") == "" {
		t.Skip("run by TestRetainRule")
	}
	retain := os.Getenv("VANE_RETAIN") != ""
	r := New()
	var wg sync.WaitGroup
	leaked := make(chan string, 1)
	r.Get("/leak/{id}", func(w http.ResponseWriter, req *http.Request) {
		if Param(req, "id") != "1" {
			return
		}
		if retain {
			Retain(req)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(100 * time.Millisecond) // no synchronisation with the router
			leaked <- Param(req, "id")
		}()
	})
	r.Get("/other/{id}", func(http.ResponseWriter, *http.Request) {})
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/leak/1", nil))
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/other/2", nil))
	wg.Wait()
	if got := <-leaked; retain && got != "1" {
		t.Errorf("retained parameter = %q, want 1", got)
	}
}
