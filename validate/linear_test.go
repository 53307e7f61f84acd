package validate

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

type linearStrings struct {
	Items []string `json:"items" uniqueItems:"true"`
}

type linearInts struct {
	Items []int64 `json:"items" uniqueItems:"true" minimum:"0"`
}

type linearFloats struct {
	Items []float64 `json:"items" uniqueItems:"true"`
}

type linearPoint struct {
	X int    `json:"x"`
	Y string `json:"y"`
}

type linearStructs struct {
	Items []linearPoint `json:"items" uniqueItems:"true"`
}

type linearCapped struct {
	Items []string `json:"items" uniqueItems:"true" maxItems:"100"`
}

type linearText struct {
	Text string `json:"text" minLength:"1" maxLength:"100000000" pattern:"^[a-z]+$"`
}

type linearLine struct {
	Name string `json:"name" minLength:"1"`
	Qty  int    `json:"qty" minimum:"1"`
}

type linearLines struct {
	Lines []linearLine `json:"lines"`
}

type linearMap struct {
	Scores map[string]linearLine `json:"scores" maxProperties:"100000000"`
}

// linearCase builds an input of size n, its raw JSON when the case scans
// one, and says whether it should fail.
type linearCase struct {
	name string
	typ  reflect.Type
	make func(n int) (any, []byte)
	fail bool
}

func uniqueStrings(n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("item-%08d", i)
	}
	return s
}

var linearCases = []linearCase{
	{"uniqueItems strings, repeat at the end", reflect.TypeFor[linearStrings](), func(n int) (any, []byte) {
		s := uniqueStrings(n)
		s[n-1] = s[0]
		return &linearStrings{Items: s}, nil
	}, true},
	{"uniqueItems ints with minimum on items", reflect.TypeFor[linearInts](), func(n int) (any, []byte) {
		s := make([]int64, n)
		for i := range s {
			s[i] = int64(i) * 7
		}
		return &linearInts{Items: s}, nil
	}, false},
	{"uniqueItems floats, repeat at the end", reflect.TypeFor[linearFloats](), func(n int) (any, []byte) {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(i) / 3
		}
		s[n-1] = s[1]
		return &linearFloats{Items: s}, nil
	}, true},
	{"uniqueItems structs", reflect.TypeFor[linearStructs](), func(n int) (any, []byte) {
		s := make([]linearPoint, n)
		for i := range s {
			s[i] = linearPoint{X: i, Y: "p"}
		}
		return &linearStructs{Items: s}, nil
	}, false},
	{"maxItems before uniqueItems", reflect.TypeFor[linearCapped](), func(n int) (any, []byte) {
		return &linearCapped{Items: uniqueStrings(n)}, nil
	}, true},
	{"minLength, maxLength, pattern", reflect.TypeFor[linearText](), func(n int) (any, []byte) {
		return &linearText{Text: strings.Repeat("abcdefgh", n)}, nil
	}, false},
	{"items' keywords and the raw body's required scan", reflect.TypeFor[linearLines](), func(n int) (any, []byte) {
		v := &linearLines{Lines: make([]linearLine, n)}
		for i := range v.Lines {
			v.Lines[i] = linearLine{Name: "n", Qty: i + 1}
		}
		v.Lines[n-1].Qty = 0
		raw, _ := json.Marshal(v)
		return v, raw
	}, true},
	{"maxProperties and the values' keywords", reflect.TypeFor[linearMap](), func(n int) (any, []byte) {
		v := &linearMap{Scores: make(map[string]linearLine, n)}
		for i := 0; i < n; i++ {
			v.Scores[fmt.Sprint(i)] = linearLine{Name: "n", Qty: i + 1}
		}
		return v, nil
	}, false},
}

// TestLinearTime shows that every keyword's cost grows linearly with the
// input: validating 16 times the input takes well under 16² times as long
// (the bound is 64×, room for caches and a loaded machine; a quadratic
// check takes about 256×). Each time is the fastest of several runs.
func TestLinearTime(t *testing.T) {
	if testing.Short() {
		t.Skip("times validations of large inputs")
	}
	const n = 2048
	ctx := context.Background()
	for _, c := range linearCases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Compile(c.typ, nil, "body")
			if err != nil {
				t.Fatal(err)
			}
			measure := func(size int) time.Duration {
				ptr, raw := c.make(size)
				if errs := v.Validate(ctx, ptr, raw); (len(errs) > 0) != c.fail {
					t.Fatalf("size %d: failures %v, want failing %v", size, errs, c.fail)
				}
				runtime.GC()
				best := time.Duration(1 << 62)
				for range 7 {
					start := time.Now()
					v.Validate(ctx, ptr, raw)
					if d := time.Since(start); d < best {
						best = d
					}
				}
				return best
			}
			small, large := measure(n), measure(16*n)
			ratio := float64(large) / float64(max(small, time.Microsecond))
			t.Logf("n=%d: %v; 16n: %v; ratio %.1f", n, small, large, ratio)
			// Linear is 16×, quadratic 256×: 100× leaves room for a
			// machine that is busy with other tests (71× was seen with
			// a fuzzer on both cores) and still catches a quadratic walk.
			if ratio > 100 {
				t.Errorf("16× the input took %.0f× the time (%v against %v): not linear", ratio, large, small)
			}
		})
	}
}
