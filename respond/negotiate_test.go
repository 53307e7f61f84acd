package respond

import (
	"testing"

	"github.com/vane-http/vane/codec"
)

func TestQuality(t *testing.T) {
	for _, tc := range []struct {
		accept string
		q      float64
		spec   int
	}{
		{"application/cbor", 1, 2},
		{"APPLICATION/CBOR", 1, 2},
		{" application/cbor ; q=0.5", 0.5, 2},
		{"application/*;q=0.3", 0.3, 1},
		{"*/*;q=0.1, application/cbor;q=0.7", 0.7, 2},
		{"application/cbor;q=0.7, */*;q=0.1", 0.7, 2},
		{"application/cbor;q=0.2, application/cbor;q=0.6", 0.6, 2}, // equally specific: the last
		{"application/cbor;Q=1.000", 1, 2},
		{"application/cbor;q=0", 0, 2},
		// A weight out of the grammar: the range is left out, neither
		// accepting at full weight nor refusing.
		{"application/cbor;q=2", 0, -1},
		{"application/cbor;q=0.1234", 0, -1}, // more than three decimals
		{"application/cbor;q=", 0, -1},
		{"application/cbor;q=high", 0, -1},
		{"application/cbor;q=2, */*;q=0.5", 0.5, 0},
		{"application/cbor;q=0.4, application/cbor;q=1.5", 0.4, 2},
		{"text/html, application/xml;q=0.9", 0, -1},
		{"application/cbor+json", 0, -1},
		{"applicatio/*", 0, -1},
		{",,;;", 0, -1},
	} {
		t.Run(tc.accept, func(t *testing.T) {
			if q, spec := quality([]string{tc.accept}, "application/cbor"); q != tc.q || spec != tc.spec {
				t.Errorf("quality = %v, %d; want %v, %d", q, spec, tc.q, tc.spec)
			}
		})
	}
}

// A browser's Accept, or any other a client sends, is read without
// allocating.
func TestNegotiateAllocatesNothing(t *testing.T) {
	e := NewEncoders(codec.JSON, Encoder{MediaType: "application/cbor", Codec: codec.JSON})
	for _, accept := range []string{
		"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
		"application/cbor;q=0.9, application/json;q=0.5",
		"APPLICATION/*;Q=bad, text/plain;q=.5",
	} {
		fields := []string{accept}
		if n := testing.AllocsPerRun(100, func() { e.negotiate(fields) }); n != 0 {
			t.Errorf("%q: %v allocations", accept, n)
		}
	}
}

func FuzzNegotiate(f *testing.F) {
	f.Add("text/*;q=0.5, application/json;q=0.25")
	f.Add(";q=1.0000,*/*;Q=0.")
	e := NewEncoders(codec.JSON, Encoder{MediaType: "application/cbor", Codec: codec.JSON})
	f.Fuzz(func(t *testing.T, accept string) {
		if i := e.negotiate([]string{accept}); i < -1 || i > 1 {
			t.Fatalf("negotiate(%q) = %d", accept, i)
		}
		if q, spec := quality([]string{accept}, "application/json"); q < 0 || q > 1 || spec < -1 || spec > 2 {
			t.Fatalf("quality(%q) = %v, %d", accept, q, spec)
		}
	})
}
