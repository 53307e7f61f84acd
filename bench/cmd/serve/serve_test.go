package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/vane-http/vane/bench/e2e"
)

// TestEveryImplementation: each implementation the end-to-end run
// measures answers the service's contract (e2e.CheckAnswer, which the run
// applies before measuring): handlers on a test server, and the
// implementations with servers of their own (fiber, humafiber, vane-fast,
// the vane-fasthttp prototype) on a loopback port, stopped by their
// context.
func TestEveryImplementation(t *testing.T) {
	for name, mk := range impls {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(mk())
			defer srv.Close()
			if err := e2e.CheckAnswer(srv.URL + "/items/123?verbose=true"); err != nil {
				t.Error(err)
			}
		})
	}
	for name, serve := range ownServers {
		t.Run(name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			ln.Close()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- serve(ctx, addr) }()
			defer func() {
				cancel()
				select {
				case err := <-done:
					if err != nil {
						t.Errorf("after its context ended: %v", err)
					}
				case <-time.After(time.Minute): // a hang, not a bound: it stops at once
					t.Error("did not stop")
				}
			}()
			url := "http://" + addr + "/items/123?verbose=true"
			for range 600 { // until it listens
				if res, gerr := http.Get(url); gerr == nil {
					res.Body.Close()
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if err := e2e.CheckAnswer(url); err != nil {
				t.Error(err)
			}
		})
	}
}
