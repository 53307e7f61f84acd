package vane_test

import (
	"bufio"
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/internal/memnet"
)

// serveInBubble runs s on an in-memory listener, for a test inside a
// testing/synctest bubble: the server's timeouts, drain delay and
// shutdown then run on the bubble's clock, exactly. stop cancels Serve's
// context and returns its result; call it, with the test's connections
// closed, before the bubble's function returns.
func serveInBubble(t *testing.T, s *vane.Server) (ln *memnet.Listener, stop func() error) {
	t.Helper()
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	if s.Signals == nil {
		s.NoSignals = true // a signal comes from outside the bubble
	}
	ln = memnet.Listen()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	return ln, func() error {
		cancel()
		return <-done
	}
}

// dialBubble connects to ln, failing t if it cannot.
func dialBubble(t *testing.T, ln *memnet.Listener) net.Conn {
	t.Helper()
	c, err := ln.Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readStatus returns the first final status line read from rd, and
// whether an interim 100 Continue came before it; "" when the connection
// ended first.
func readStatus(rd *bufio.Reader) (status string, sawContinue bool) {
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			return "", sawContinue
		}
		if strings.HasPrefix(line, "HTTP/1.1 100") {
			sawContinue = true
			continue
		}
		if strings.HasPrefix(line, "HTTP/") {
			return strings.TrimSpace(line), sawContinue
		}
	}
}
