package fast

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

type ctxKey struct{}

// TestRequestContext: a request's context has the base's values, is not
// done until the engine ends it, and then is done with context.Canceled,
// its Done closed whether asked for before or after.
func TestRequestContext(t *testing.T) {
	base := context.WithValue(context.Background(), ctxKey{}, "v")
	ctx, cancel := newContext(base)
	early := ctx.Done()
	if ctx.Err() != nil || ctx.Value(ctxKey{}) != "v" {
		t.Fatalf("before its end: Err %v, value %v", ctx.Err(), ctx.Value(ctxKey{}))
	}
	if _, ok := ctx.Deadline(); ok {
		t.Fatal("a request's context has no deadline")
	}
	select {
	case <-early:
		t.Fatal("Done closed before the end")
	default:
	}
	cancel()
	cancel() // twice is once
	for _, done := range []<-chan struct{}{early, ctx.Done()} {
		select {
		case <-done:
		default:
			t.Fatal("Done open after the end")
		}
	}
	if !errors.Is(ctx.Err(), context.Canceled) || context.Cause(ctx) != context.Canceled {
		t.Fatalf("Err %v, Cause %v; want context.Canceled", ctx.Err(), context.Cause(ctx))
	}
}

// TestRequestContextChildren: contexts derived from a request's (as
// middleware.Timeout derives one) end when it ends, and waiting for that
// starts no goroutine.
func TestRequestContextChildren(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := newContext(context.Background())
		var children []context.Context
		for range 50 {
			c, stop := context.WithTimeout(ctx, time.Hour)
			defer stop()
			children = append(children, c)
			c2, stop2 := context.WithCancel(ctx)
			defer stop2()
			children = append(children, c2)
		}
		// Each child is told through AfterFunc; the context package starts
		// a goroutine for each child of a parent without it.
		if n := len(ctx.(*requestContext).afters); n != len(children) {
			t.Errorf("%d of %d children registered with AfterFunc; the rest are watched by goroutines", n, len(children))
		}
		// One child ended on its own is told apart.
		early, stopEarly := context.WithCancel(ctx)
		stopEarly()
		cancel()
		synctest.Wait()
		for i, c := range children {
			if !errors.Is(c.Err(), context.Canceled) {
				t.Fatalf("child %d: Err %v after the request's end; want context.Canceled", i, c.Err())
			}
		}
		if !errors.Is(early.Err(), context.Canceled) {
			t.Fatal(early.Err())
		}
	})
}

// TestRequestContextAfterFunc: AfterFunc's function runs once, after
// the end, unless stopped before; stop reports which.
func TestRequestContextAfterFunc(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := newContext(context.Background())
		var ran, stoppedRan atomic.Int32
		stop := context.AfterFunc(ctx, func() { ran.Add(1) })
		stopped := context.AfterFunc(ctx, func() { stoppedRan.Add(1) })
		if !stopped() {
			t.Fatal("stop before the end reports false")
		}
		cancel()
		synctest.Wait()
		if ran.Load() != 1 || stoppedRan.Load() != 0 {
			t.Fatalf("ran %d, stopped one ran %d; want 1 and 0", ran.Load(), stoppedRan.Load())
		}
		if stop() {
			t.Fatal("stop after the function ran reports true")
		}
		late := atomic.Int32{}
		context.AfterFunc(ctx, func() { late.Add(1) })
		synctest.Wait()
		if late.Load() != 1 {
			t.Fatal("AfterFunc after the end does not run its function")
		}
	})
}

// TestRequestContextRace: ending a request's context while functions are
// registered and stopped runs each one at most once and never a stopped
// one (run with -race).
func TestRequestContextRace(t *testing.T) {
	for range 200 {
		ctx, cancel := newContext(context.Background())
		var runs [8]atomic.Int32
		var stopped [8]atomic.Bool
		var wg sync.WaitGroup
		for i := range runs {
			stop := context.AfterFunc(ctx, func() { runs[i].Add(1); wg.Done() })
			wg.Add(1)
			go func() {
				if stop() {
					stopped[i].Store(true)
					wg.Done()
				}
			}()
		}
		cancel()
		wg.Wait()
		for i := range runs {
			if n := runs[i].Load(); n > 1 || n == 1 && stopped[i].Load() || n == 0 && !stopped[i].Load() {
				t.Fatalf("function %d ran %d times, stopped %v", i, n, stopped[i].Load())
			}
		}
	}
}
