package respond

import (
	"fmt"
	"testing"
)

func TestAccepts(t *testing.T) {
	for _, c := range []struct {
		accept []string
		mt     string
		want   bool
	}{
		{nil, "image/png", true},
		{[]string{""}, "image/png", true},
		{[]string{"*/*"}, "image/png", true},
		{[]string{"image/*"}, "image/png", true},
		{[]string{"IMAGE/PNG"}, "image/png", true},
		{[]string{"image/png"}, "image/jpeg", false},
		{[]string{"application/json"}, "image/png", false},
		{[]string{"text/event-stream"}, "text/event-stream", true},
		{[]string{"application/json, text/*;q=0.5"}, "text/event-stream", true},
		{[]string{"image/*;q=0, image/png"}, "image/png", true},
		{[]string{"image/png;q=0, image/*"}, "image/png", false},
		{[]string{"image/png;q=0, image/*"}, "image/gif", true},
		{[]string{"*/*;q=0"}, "image/png", false},
		{[]string{"text/html", "image/webp"}, "image/webp", true},
		{[]string{"image/pngx"}, "image/png", false},
		{[]string{"image/png;q=0.000"}, "image/png", false},
		{[]string{"image/png;q=0.001"}, "image/png", true},
		{[]string{"image/png;q=2"}, "image/png", false}, // out of the grammar: not a range
		{[]string{"image/png;q=high, */*;q=0.1"}, "image/png", true},
	} {
		if got := Accepts(c.accept, c.mt); got != c.want {
			t.Errorf("Accepts(%q, %q) = %v, want %v", c.accept, c.mt, got, c.want)
		}
	}
	accept := []string{"text/html, application/xhtml+xml;q=0.9, image/*;q=0.8, */*;q=0.1"}
	if n := testing.AllocsPerRun(100, func() { Accepts(accept, "image/png") }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func ExampleAccepts() {
	fmt.Println(Accepts([]string{"image/*"}, "image/png"))
	fmt.Println(Accepts([]string{"application/json"}, "image/png"))
	// Output:
	// true
	// false
}
