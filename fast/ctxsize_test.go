package fast

import (
	"context"
	"runtime"
	"testing"
	"unsafe"
)

// TestRequestMemSizes: a request's context and its arena, allocated as
// one, fill a size class of Go's allocator with at most 32 bytes spare,
// and every arena length up to the largest shared one gets its own.
func TestRequestMemSizes(t *testing.T) {
	if s := unsafe.Sizeof(requestContext{}); s != 72 {
		t.Fatalf("requestContext is %d bytes; newRequest's arena sizes are for 72", s)
	}
	allocs := testing.AllocsPerRun(10, func() { newRequest(context.Background(), 200) })
	if allocs != 1 {
		t.Errorf("a request of 200 bytes of target and header: %v allocations, want 1", allocs)
	}
	for n := 0; n <= 248; n++ {
		ctx, arena := newRequest(context.Background(), n)
		if cap(arena) != n || ctx.Context == nil {
			t.Fatalf("n %d: arena capacity %d", n, cap(arena))
		}
		if got := allocated(n); got > 72+uint64(n)+32 {
			t.Errorf("n %d: %d bytes allocated; want at most 72+n+32", n, got)
		}
	}
}

var keep *requestContext

// allocated is the bytes a newRequest of n allocates, the least of a few
// trials (another goroutine's allocations can only add).
func allocated(n int) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	least := ^uint64(0)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 100 {
			keep, _ = newRequest(context.Background(), n)
		}
		runtime.ReadMemStats(&after)
		least = min(least, (after.TotalAlloc-before.TotalAlloc)/100)
	}
	return least
}
