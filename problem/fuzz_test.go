package problem

import (
	"bytes"
	"testing"
)

// FuzzParse: Parse never panics, and what it reads is written back (as
// Write writes it) into a body that Parse reads to the same problem.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"type":"https://example.com/p","title":"T","status":403,"detail":"d","balance":30,"accounts":["/a"]}`))
	f.Add([]byte(`{"status":422,"errors":[{"location":"body.x","message":"m","value":{"a":1}}]}`))
	f.Add([]byte(`{"type":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		if err != nil {
			return
		}
		first, err := marshal(p)
		if err != nil {
			t.Fatalf("marshal of a parsed problem: %v", err)
		}
		q, err := Parse(first)
		if err != nil {
			t.Fatalf("Parse of %s: %v", first, err)
		}
		second, err := marshal(q)
		if err != nil || !bytes.Equal(first, second) {
			t.Fatalf("not stable:\n%s\n%s (%v)", first, second, err)
		}
	})
}
