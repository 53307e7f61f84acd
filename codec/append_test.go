package codec

import (
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAppendMarshalIsMarshal: AppendMarshal appends exactly what Marshal
// returns (no newline), after what dst holds; a value that cannot be
// encoded leaves dst as it was and fails as Marshal does.
func TestAppendMarshalIsMarshal(t *testing.T) {
	a := JSON.(Appender)
	values := []any{
		sample{Embedded: Embedded{E: "x"}, B: 3, T: time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC), D: time.Second, Raw: json.RawMessage(`{"z":1}`)},
		map[string]any{"html": "<a&b>", "bad utf8": "\xff", "n": nil},
		[]int{1, 2, 3},
		"text\n",
		nil,
		&custom{},
	}
	for _, v := range values {
		want, werr := JSON.Marshal(v)
		got, err := a.AppendMarshal([]byte("prefix:"), v)
		if err != nil || werr != nil || string(got) != "prefix:"+string(want) {
			t.Errorf("%T: %q %v, want prefix:%q %v", v, got, err, want, werr)
		}
	}
	for _, bad := range []any{math.NaN(), map[bool]int{true: 1}, make(chan int)} {
		_, werr := JSON.Marshal(bad)
		got, err := a.AppendMarshal([]byte("keep"), bad)
		if err == nil || werr == nil || err.Error() != werr.Error() || string(got) != "keep" {
			t.Errorf("%T: %q %v, want keep and %v", bad, got, err, werr)
		}
	}
}

// TestAppendMarshalConcurrent: the pooled encoders are not shared (run
// with -race): each caller gets its own value's encoding.
func TestAppendMarshalConcurrent(t *testing.T) {
	a := JSON.(Appender)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				v := map[string]int{"g": g, "i": i}
				got, err := a.AppendMarshal(nil, v)
				want, _ := json.Marshal(v)
				if err != nil || string(got) != string(want) {
					t.Errorf("%s %v, want %s", got, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestAppendMarshalReusesItsBuffer: into a buffer large enough, encoding
// a struct allocates nothing.
func TestAppendMarshalReusesItsBuffer(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	a := JSON.(Appender)
	type reply struct {
		ID   int64    `json:"id"`
		Tags []string `json:"tags"`
	}
	v := &reply{ID: 7, Tags: []string{"a", "b"}}
	buf := make([]byte, 0, 256)
	a.AppendMarshal(buf, v) // warm the pools
	if n := testing.AllocsPerRun(100, func() { buf, _ = a.AppendMarshal(buf[:0], v) }); n != 0 {
		t.Errorf("%.0f allocations", n)
	}
	if !strings.HasPrefix(string(buf), `{"id":7,`) {
		t.Errorf("%s", buf)
	}
}
