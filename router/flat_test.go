package router

import (
	"bytes"
	"testing"
	"unsafe"
)

// TestEqualBytes compares equalBytes with bytes.Equal for every length up
// to three words and a difference at every position.
func TestEqualBytes(t *testing.T) {
	for n := 0; n <= 24; n++ {
		a := make([]byte, n)
		for i := range a {
			a[i] = byte('a' + i)
		}
		for diff := -1; diff < n; diff++ {
			b := bytes.Clone(a)
			if diff >= 0 {
				b[diff] ^= 0x20
			}
			got := equalBytes(unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), n)
			if want := bytes.Equal(a, b); got != want {
				t.Errorf("n=%d, difference at %d: equalBytes = %v, want %v", n, diff, got, want)
			}
		}
	}
}
