package fast

import (
	"context"
	"sync"
)

// requestContext is a request's context: the server's base context's
// values, done (with context.Canceled) once the handler has returned.
// It is new for each request and never reused, so that a handler may
// keep it, or context.WithoutCancel of it, as long as it likes.
//
// It is what context.WithCancel(base) gives, in one allocation where
// that takes two, and with no parent to watch: base is never done (the
// server's end reaches handlers through vane's shutdown signal, not
// through base). A context derived from it (context.WithTimeout, as
// middleware.Timeout makes) is told of its end through AfterFunc, as
// the context package does for contexts of its own, with no goroutine.
type requestContext struct {
	context.Context // base: values, no deadline, never done

	mu     sync.Mutex
	done   chan struct{} // made by the first Done; closed by cancel
	err    error         // context.Canceled once cancelled
	afters []*afterFunc  // to run when cancelled
}

// afterFunc is a function AfterFunc registered: run (in a goroutine of
// its own) when the context ends, unless stopped first.
type afterFunc struct {
	f    func()
	once sync.Once
}

// newContext returns a request's context, and the function that ends
// it, which the engine calls when the handler has returned.
func newContext(base context.Context) (context.Context, func()) {
	c, _ := newRequest(base, 0)
	return c, c.cancel
}

// newRequest returns a new request's context, and an empty arena of
// capacity n for its strings (its target and header lines). An arena of
// an API client's few headers shares the context's allocation, of a
// size that, with the context's 72 bytes, is one of the size classes of
// Go's allocator: the collector's work grows with the bytes a request
// allocates, and no more than 32 of them are spare.
func newRequest(base context.Context, n int) (*requestContext, []byte) {
	switch {
	case n <= 24:
		return inline(base, n, func(a *[24]byte) []byte { return a[:] })
	case n <= 56:
		return inline(base, n, func(a *[56]byte) []byte { return a[:] })
	case n <= 88:
		return inline(base, n, func(a *[88]byte) []byte { return a[:] })
	case n <= 120:
		return inline(base, n, func(a *[120]byte) []byte { return a[:] })
	case n <= 152:
		return inline(base, n, func(a *[152]byte) []byte { return a[:] })
	case n <= 184:
		return inline(base, n, func(a *[184]byte) []byte { return a[:] })
	case n <= 216:
		return inline(base, n, func(a *[216]byte) []byte { return a[:] })
	case n <= 248:
		return inline(base, n, func(a *[248]byte) []byte { return a[:] })
	}
	return &requestContext{Context: base}, make([]byte, 0, n)
}

// withArena is a request's context with an arena of type A (a byte
// array) in the same allocation.
type withArena[A any] struct {
	requestContext
	arena A
}

// inline allocates a context with an arena of type A and returns the
// arena as an empty slice of capacity n (bytes turns A into a slice).
func inline[A any](base context.Context, n int, bytes func(*A) []byte) (*requestContext, []byte) {
	m := &withArena[A]{requestContext: requestContext{Context: base}}
	return &m.requestContext, bytes(&m.arena)[:0:n]
}

func (c *requestContext) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.err != nil {
			close(c.done)
		}
	}
	return c.done
}

func (c *requestContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// cancel ends the context: Err is context.Canceled, Done is closed and
// each function AfterFunc registered, and not stopped, runs.
func (c *requestContext) cancel() {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = context.Canceled
	if c.done != nil {
		close(c.done)
	}
	afters := c.afters
	c.afters = nil
	c.mu.Unlock()
	for _, a := range afters {
		a.once.Do(func() { go a.f() })
	}
}

// AfterFunc arranges to call f in its own goroutine once the context has
// ended, as context.AfterFunc does; stop ends the arrangement and
// reports whether it stopped f from being run. The context package calls
// it for a context derived from this one.
func (c *requestContext) AfterFunc(f func()) (stop func() bool) {
	a := &afterFunc{f: f}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		a.once.Do(func() { go f() })
	} else {
		c.afters = append(c.afters, a)
		c.mu.Unlock()
	}
	return func() bool {
		stopped := false
		a.once.Do(func() { stopped = true })
		if stopped {
			c.mu.Lock()
			for i, b := range c.afters {
				if b == a {
					c.afters = append(c.afters[:i], c.afters[i+1:]...)
					break
				}
			}
			c.mu.Unlock()
		}
		return stopped
	}
}

func (c *requestContext) String() string { return "fast.requestContext" }
