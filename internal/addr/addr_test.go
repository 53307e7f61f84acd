package addr

import (
	"reflect"
	"testing"
)

// OfPointer gives the address that reflect gives for every kind of pointer
// an interface can hold, a typed nil included.
func TestOfPointer(t *testing.T) {
	type pair struct{ a, b int64 }
	var empty struct{}
	n := 7
	pn := &n
	cases := []any{&n, &pn, &pair{1, 2}, &empty, (*pair)(nil), new([0]byte), new(string), new([]byte)}
	for _, c := range cases {
		got, want := OfPointer(c), OfValue(reflect.ValueOf(c))
		if got != want {
			t.Errorf("%T: OfPointer %p, reflect %p", c, got.p, want.p)
		}
		if got.IsNil() != reflect.ValueOf(c).IsNil() {
			t.Errorf("%T: IsNil %v", c, got.IsNil())
		}
	}
	if *As[int](OfPointer(&n)) != 7 {
		t.Error("OfPointer(&n) does not point at n")
	}
}
