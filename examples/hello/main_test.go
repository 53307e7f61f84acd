package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestHello(t *testing.T) {
	srv := httptest.NewServer(newRouter())
	defer srv.Close()
	for path, want := range map[string]string{
		"/hello/gopher":         `{"message":"hello, gopher!"}`,
		"/hello/gopher?times=2": `{"message":"hello, gopher! hello, gopher!"}`,
		"/hello/gopher?times=9": `"location":"query.times"`,
		"/openapi.json":         `"/hello/{name}"`,
	} {
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d %s, want %s", path, res.StatusCode, body, want)
		}
	}
}

// TestMain runs main itself in a child process that TestShutdownExitsZero
// starts, with the address in VANE_HELLO_ADDR.
func TestMain(m *testing.M) {
	if addr := os.Getenv("VANE_HELLO_ADDR"); addr != "" {
		os.Args = []string{"hello", addr}
		main()
		os.Exit(0) // main returned: what a graceful shutdown does
	}
	os.Exit(m.Run())
}

// Ctrl-C stops the program gracefully with exit status 0, not a logged
// "<nil>" and status 1.
func TestShutdownExitsZero(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VANE_HELLO_ADDR="+addr)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// A real process: a generous bound, for a busy machine, on how long it
	// takes to listen.
	deadline := time.Now().Add(time.Minute)
	for {
		res, err := http.Get("http://" + addr + "/hello/gopher")
		if err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the program does not serve: %v\n%s", err, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGINT: %v\n%s", err, out.String())
	}
}
