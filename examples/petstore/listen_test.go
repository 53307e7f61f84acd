package main

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"
)

// The wait before listening again doubles while attempts fail, and starts
// again from the shortest once a connection has listened: after a
// database restart, however many attempts failed before, the feed listens
// again listenRetryMin after the database's return.
func TestListenBackoffResetsOnceListening(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Each attempt's outcome: false fails to connect, true listens
		// and then loses its connection.
		script := []bool{false, false, false, false, true, false, false, true, false}
		var at []time.Time
		ctx, cancel := context.WithCancel(context.Background())
		f := &feed{logger: slog.New(slog.DiscardHandler)}
		f.listenFn = func(ctx context.Context) (bool, error) {
			at = append(at, time.Now())
			if len(at) == len(script) {
				cancel()
				return false, ctx.Err()
			}
			return script[len(at)-1], errors.New("connection refused")
		}
		f.done.Add(1)
		go f.listenLoop(ctx)
		f.done.Wait()

		var waits []time.Duration
		for i := 1; i < len(at); i++ {
			waits = append(waits, at[i].Sub(at[i-1]))
		}
		ms := time.Millisecond
		want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 100 * ms, 200 * ms, 400 * ms, 100 * ms}
		if len(waits) != len(want) {
			t.Fatalf("waits %v, want %v", waits, want)
		}
		for i := range want {
			if waits[i] != want[i] {
				t.Fatalf("waits %v, want %v", waits, want)
			}
		}
	})
}

// The waits grow to listenRetryMax and no further while the database
// stays away.
func TestListenBackoffIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var at []time.Time
		ctx, cancel := context.WithCancel(context.Background())
		f := &feed{logger: slog.New(slog.DiscardHandler)}
		f.listenFn = func(ctx context.Context) (bool, error) {
			at = append(at, time.Now())
			if len(at) == 12 {
				cancel()
			}
			return false, errors.New("connection refused")
		}
		f.done.Add(1)
		go f.listenLoop(ctx)
		f.done.Wait()
		if last := at[len(at)-1].Sub(at[len(at)-2]); last != listenRetryMax {
			t.Fatalf("the wait after 11 failures is %v, want %v", last, listenRetryMax)
		}
	})
}
