//go:build unix

package vane_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"

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
