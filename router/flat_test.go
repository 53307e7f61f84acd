package router

import (
	"bytes"
	"strings"
	"testing"
	"unsafe"
)

// TestEqualBytes compares equalBytes, and equalLong from a word on, with
// bytes.Equal for every length up to three words and a difference at
// every position.
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
			pa, pb := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b))
			want := bytes.Equal(a, b)
			if got := equalBytes(pa, pb, n); got != want {
				t.Errorf("n=%d, difference at %d: equalBytes = %v, want %v", n, diff, got, want)
			}
			if n < 8 {
				continue
			}
			if got := equalLong(pa, pb, n); got != want {
				t.Errorf("n=%d, difference at %d: equalLong = %v, want %v", n, diff, got, want)
			}
		}
	}
}

// TestSegmentEnd compares segmentEnd with strings.IndexByte for every
// length up to three words and a '/' at every position, alone or with
// another after it, and with bytes that differ from '/' in one bit.
func TestSegmentEnd(t *testing.T) {
	for n := 0; n <= 24; n++ {
		for slash := -1; slash < n; slash++ {
			for _, fill := range []byte{'a', '/' ^ 1, '/' ^ 0x80, 0} {
				b := bytes.Repeat([]byte{fill}, n)
				if slash >= 0 {
					b[slash] = '/'
					if slash+2 < n {
						b[slash+2] = '/'
					}
				}
				want := strings.IndexByte(string(b), '/')
				if want < 0 {
					want = n
				}
				if got := segmentEnd(unsafe.Pointer(unsafe.SliceData(b)), n); got != want {
					t.Errorf("%q: segmentEnd = %d, want %d", b, got, want)
				}
			}
		}
	}
}
