//go:build unix

package vane_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/vane-http/vane"
)

func TestServeStopsOnSIGTERM(t *testing.T) {
	ctx := context.Background()
	listening := make(chan struct{})
	s := &vane.Server{
		Handler:  http.NotFoundHandler(),
		Signals:  []os.Signal{syscall.SIGTERM},
		OnListen: func(net.Addr) { close(listening) },
	}
	_, wait := startTestServer(t, ctx, s)
	<-listening
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := wait(); err != nil {
		t.Fatalf("Serve returned %v after SIGTERM", err)
	}
}

// A second signal ends the drain delay: Ctrl-C twice stops a server at once.
func TestServeSecondSignalEndsDrainDelay(t *testing.T) {
	listening := make(chan struct{})
	s := &vane.Server{
		Handler:    http.NotFoundHandler(),
		Signals:    []os.Signal{syscall.SIGUSR1},
		DrainDelay: time.Hour,
		OnListen:   func(net.Addr) { close(listening) },
	}
	_, wait := startTestServer(t, context.Background(), s)
	<-listening
	syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	// A signal comes from outside any synctest bubble, so these tests run
	// on real time: the limit of a minute is generous for a loaded machine,
	// and the loop ends as soon as the server drains.
	for deadline := time.Now().Add(time.Minute); !s.Draining(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not draining a minute after the first signal")
		}
	}
	syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	if err := wait(); err != nil { // wait gives up after a minute, long before the hour
		t.Fatalf("Serve returned %v", err)
	}
}
