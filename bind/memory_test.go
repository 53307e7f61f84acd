package bind

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Memory follows the bytes received, never the Content-Length a client
// declares: with no limit, a request declaring 4 TiB and sending a few
// bytes costs a few kilobytes.
func TestDeclaredLengthDoesNotSizeMemory(t *testing.T) {
	body := `{"name":"x"}`
	cases := []struct {
		name     string
		limit    int64
		declared int64
	}{
		{"no limit, 1 GiB declared", -1, 1 << 30},
		{"no limit, 4 TiB declared", -1, 4 << 40},
		{"no limit, 2^62 declared", -1, 1 << 62},
		{"1 MiB limit, 1 MiB declared", 1 << 20, 1 << 20},
		{"64 MiB limit, 60 MiB declared", 64 << 20, 60 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := Compile(reflect.TypeFor[createInput](), Config{Method: "POST", Pattern: "/items", BodyLimit: c.limit})
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest("POST", "/items", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.ContentLength = c.declared
			var in createInput
			var st State
			var prob error
			n := allocated(func() {
				if p := b.Bind(req, nil, &in, &st); p != nil {
					prob = p
				}
				st.Release()
			})
			if prob != nil || in.Body.Name != "x" {
				t.Fatalf("%v %+v", prob, in)
			}
			if n > 128<<10 { // the 64 KiB a declared length may presize, and change
				t.Errorf("%d bytes allocated for a %d-byte body", n, len(body))
			}
		})
	}
}

// The buffer grows with the bytes as they arrive, up to the limit and not
// past it.
func TestBufferGrowsWithTheBody(t *testing.T) {
	for _, size := range []int{10, 5000, 300 << 10} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			type raw struct{ Body []byte }
			b, err := Compile(reflect.TypeFor[raw](), Config{Method: "POST", Pattern: "/raw"})
			if err != nil {
				t.Fatal(err)
			}
			data := strings.Repeat("x", size)
			req := httptest.NewRequest("POST", "/raw", io.MultiReader(strings.NewReader(data))) // length unknown
			var r raw
			var st State
			n := allocated(func() {
				if p := b.Bind(req, nil, &r, &st); p != nil {
					t.Error(p)
				}
				st.Release()
			})
			if len(r.Body) != size {
				t.Fatalf("%d bytes bound", len(r.Body))
			}
			// The copy handed to the handler, and at most the doublings
			// of the buffer on the way.
			if max := uint64(size + 4*size + 2*initialBuffer + 4096); n > max {
				t.Errorf("%d bytes allocated for a %d-byte body, want at most %d", n, size, max)
			}
		})
	}
	// Over the limit, the buffer stops at limit+1 bytes.
	b, err := Compile(reflect.TypeFor[createInput](), Config{Method: "POST", Pattern: "/items", BodyLimit: 100 << 10})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", "/items", io.MultiReader(strings.NewReader(strings.Repeat(" ", 10<<20))))
	req.Header.Set("Content-Type", "application/json")
	var st State
	var prob error
	n := allocated(func() {
		if p := b.Bind(req, nil, &createInput{}, &st); p != nil {
			prob = p
		}
		st.Release()
	})
	if prob == nil || !strings.Contains(prob.Error(), "413") {
		t.Fatalf("got %v", prob)
	}
	if n > 3*(100<<10) {
		t.Errorf("%d bytes allocated refusing a 10 MiB body over a 100 KiB limit", n)
	}
}

// A buffer that grew for a large body is not kept for later ones.
func TestLargeBuffersAreNotPooled(t *testing.T) {
	type raw struct{ Body []byte }
	b, err := Compile(reflect.TypeFor[raw](), Config{Method: "POST", Pattern: "/raw"})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		req := httptest.NewRequest("POST", "/raw", strings.NewReader(strings.Repeat("x", 512<<10)))
		var st State
		if p := b.Bind(req, nil, &raw{}, &st); p != nil {
			t.Fatal(p)
		}
		st.Release()
	}
	for range 20 {
		bp := getBuffer()
		if cap(*bp) > maxPooled {
			t.Fatalf("a pooled buffer of %d bytes", cap(*bp))
		}
		defer putBuffer(bp)
	}
}

// stalled is a body whose reads return nothing, forever.
type stalled struct{ reads int }

func (s *stalled) Read([]byte) (int, error) { s.reads++; return 0, nil }
func (s *stalled) Close() error             { return nil }

// A body that makes no progress is refused, not spun on.
func TestStalledBodyIsRefused(t *testing.T) {
	b := compile(t, reflect.TypeFor[createInput](), "POST", "/items")
	req := httptest.NewRequest("POST", "/items", nil)
	s := &stalled{}
	req.Body, req.ContentLength = s, -1
	req.Header.Set("Content-Type", "application/json")
	prob := b.Bind(req, nil, &createInput{}, &State{})
	if prob == nil || prob.Status != 400 || s.reads > maxEmptyReads {
		t.Errorf("%v after %d reads", prob, s.reads)
	}
}

type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }
func (f failing) Close() error             { return nil }

func TestReadErrors(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		status int
	}{
		{"deadline", os.ErrDeadlineExceeded, 408},
		{"too large", &http.MaxBytesError{Limit: 10}, 413},
		{"short", io.ErrUnexpectedEOF, 400},
		{"reset", io.ErrClosedPipe, 400},
	}
	b := compile(t, reflect.TypeFor[createInput](), "POST", "/items")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/items", nil)
			req.Body, req.ContentLength = failing{c.err}, -1
			req.Header.Set("Content-Type", "application/json")
			if prob := b.Bind(req, nil, &createInput{}, &State{}); prob == nil || prob.Status != c.status {
				t.Errorf("got %v, want %d", prob, c.status)
			}
		})
	}
}
