package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/vane-http/vane/internal/addr"
	"reflect"
	"strings"
	"testing"
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

// linearSentLine has an omitempty property with a rule: sent at its zero
// value, the raw body's scanner checks it.
type linearSentLine struct {
	Name string `json:"name" minLength:"1"`
	Qty  int    `json:"qty,omitempty" maximum:"10"`
}

type linearSent struct {
	Lines []linearSentLine `json:"lines"`
}

// linearCase builds an input of size n, its raw JSON when the case scans
// one, and says whether it should fail. bounded: the work does not grow
// with n at all (a list refused on its length). scanned: the raw body's
// scanner visits every item, and each visit allocates (an escaped key,
// which the scanner decodes), so that the allocations count its visits.
type linearCase struct {
	name    string
	typ     reflect.Type
	make    func(n int) (any, []byte)
	fail    bool
	bounded bool
	scanned bool
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
	}, true, false, false},
	{"uniqueItems ints with minimum on items", reflect.TypeFor[linearInts](), func(n int) (any, []byte) {
		s := make([]int64, n)
		for i := range s {
			s[i] = int64(i) * 7
		}
		return &linearInts{Items: s}, nil
	}, false, false, false},
	{"uniqueItems floats, repeat at the end", reflect.TypeFor[linearFloats](), func(n int) (any, []byte) {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(i) / 3
		}
		s[n-1] = s[1]
		return &linearFloats{Items: s}, nil
	}, true, false, false},
	{"uniqueItems structs", reflect.TypeFor[linearStructs](), func(n int) (any, []byte) {
		s := make([]linearPoint, n)
		for i := range s {
			s[i] = linearPoint{X: i, Y: "p"}
		}
		return &linearStructs{Items: s}, nil
	}, false, false, false},
	{"maxItems before uniqueItems", reflect.TypeFor[linearCapped](), func(n int) (any, []byte) {
		return &linearCapped{Items: uniqueStrings(n)}, nil
	}, true, true, false},
	{"minLength, maxLength, pattern", reflect.TypeFor[linearText](), func(n int) (any, []byte) {
		return &linearText{Text: strings.Repeat("abcdefgh", n)}, nil
	}, false, false, false},
	{"items' keywords and the raw body's required scan", reflect.TypeFor[linearLines](), func(n int) (any, []byte) {
		v := &linearLines{Lines: make([]linearLine, n)}
		for i := range v.Lines {
			v.Lines[i] = linearLine{Name: "n", Qty: i + 1}
		}
		v.Lines[n-1].Qty = 0
		raw, _ := json.Marshal(v)
		return v, bytes.ReplaceAll(raw, []byte(`"name":`), []byte(`"n\u0061me":`))
	}, true, false, true},
	{"maxProperties and the values' keywords", reflect.TypeFor[linearMap](), func(n int) (any, []byte) {
		v := &linearMap{Scores: make(map[string]linearLine, n)}
		for i := 0; i < n; i++ {
			v.Scores[fmt.Sprint(i)] = linearLine{Name: "n", Qty: i + 1}
		}
		return v, nil
	}, false, false, false},
	{"omitempty properties sent at zero, checked by the raw body's scanner", reflect.TypeFor[linearSent](), func(n int) (any, []byte) {
		v := &linearSent{Lines: make([]linearSentLine, n)}
		var raw strings.Builder
		raw.WriteString(`{"lines":[`)
		for i := range v.Lines {
			v.Lines[i].Name = "n"
			if i > 0 {
				raw.WriteByte(',')
			}
			raw.WriteString(`{"n\u0061me":"n","qty":0}`)
		}
		raw.WriteString(`]}`)
		return v, []byte(raw.String())
	}, false, false, true},
}

// work counts what validations do, in the units their cost grows with:
// the checks of compiled nodes (every item, field and map value checked,
// by the checkers or by the raw body's scanner), the comparisons and keys
// of uniqueItems, and the bytes of the strings checked and of the keys
// made; the raw body's scanner's visits are counted by the allocations of
// the escaped keys it decodes (linearCase.scanned). Past limit (when not
// 0), counting panics with errOverLimit: a validation made quadratic
// stops there instead of running for minutes.
type work struct {
	checks, compares, keys, bytes int
	limit                         int
}

var errOverLimit = errors.New("over the work limit")

func (w *work) total() int { return w.checks + w.compares + w.keys + w.bytes }

func (w *work) add(n *int, k int) {
	*n += k
	if w.limit > 0 && w.total() > w.limit {
		panic(errOverLimit)
	}
}

// countedNode counts the checks of the node it wraps.
type countedNode struct {
	n node
	w *work
}

func (c *countedNode) check(p addr.Addr, col *collector) bool {
	c.w.add(&c.w.checks, 1)
	if _, ok := c.n.(*stringNode); ok {
		c.w.add(&c.w.bytes, len(*addr.As[string](p)))
	}
	return c.n.check(p, col)
}

// countWork makes v's compiled checkers count their work in w: every node
// is wrapped in a countedNode, and uniqueItems' comparison and key
// functions count their calls.
func countWork(v *Validator, w *work) {
	seen := map[any]bool{}
	var wrap func(n node) node
	var scan func(sn *scanNode)
	wrap = func(n node) node {
		if n == nil {
			return nil
		}
		if seen[n] {
			return n
		}
		seen[n] = true
		switch n := n.(type) {
		case *structNode:
			for i := range n.fields {
				n.fields[i].n = wrap(n.fields[i].n)
			}
			return n // its fields count
		case *ptrNode:
			n.elem = wrap(n.elem)
		case *listNode:
			n.elem = wrap(n.elem)
			if n.unique {
				equal, key := n.equal, n.key
				n.equal = func(a, b addr.Addr) bool { w.add(&w.compares, 1); return equal(a, b) }
				n.key = func(p addr.Addr) string {
					k := key(p)
					w.add(&w.keys, 1)
					w.add(&w.bytes, len(k))
					return k
				}
			}
		case *mapNode:
			n.elem = wrap(n.elem)
		}
		c := &countedNode{n: n, w: w}
		seen[c] = true
		return c
	}
	scan = func(sn *scanNode) {
		if sn == nil || seen[sn] {
			return
		}
		seen[sn] = true
		scan(sn.elem)
		for i := range sn.props {
			sn.props[i].check = wrap(sn.props[i].check)
			scan(sn.props[i].child)
		}
	}
	if v.root != nil {
		wrap(v.root)
	}
	scan(v.body)
}

// TestLinearWork shows that every keyword's cost grows linearly with the
// input, by counting the work (see work) and the allocations of
// validating inputs of n and 16n items or bytes. Per byte of the input's
// JSON, the larger input may cost at most twice the work and the
// allocations of the smaller: linear work costs the same per byte
// (numbers with more digits make the sizes grow a little more than 16×),
// a quadratic check, such as uniqueItems comparing every pair, about 16
// times as much. The counts do not depend on the machine or its load. A
// case whose list is refused on its length does the same work at both
// sizes, exactly.
func TestLinearWork(t *testing.T) {
	const n = 256 // above smallList, where uniqueItems switches to a set
	ctx := context.Background()
	for _, c := range linearCases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Compile(c.typ, nil, "body")
			if err != nil {
				t.Fatal(err)
			}
			var w work
			countWork(v, &w)
			// validate validates once within limit (0: none) and
			// returns the work it counted, or reports the limit passed.
			validate := func(ptr any, raw []byte, limit int) (got work, over bool) {
				defer func() {
					if p := recover(); p != nil {
						if p != errOverLimit {
							panic(p)
						}
						got, over = w, true
						got.limit = 0
					}
				}()
				w = work{limit: limit}
				if errs := v.Validate(ctx, ptr, raw); (len(errs) > 0) != c.fail {
					t.Fatalf("failures %v, want failing %v", errs, c.fail)
				}
				got = w
				got.limit = 0
				return got, false
			}
			input := func(size int) (ptr any, raw []byte, bytes int) {
				ptr, raw = c.make(size)
				enc, err := json.Marshal(ptr)
				if err != nil {
					t.Fatal(err)
				}
				return ptr, raw, len(enc)
			}

			ptr, raw, smallBytes := input(n)
			small, _ := validate(ptr, raw, 0)
			smallAllocs := testing.AllocsPerRun(1, func() { validate(ptr, raw, 0) })
			ptr, raw, largeBytes := input(16 * n)
			growth := float64(largeBytes) / float64(smallBytes)
			limit := int(2 * growth * float64(small.total()))
			if c.bounded {
				limit = small.total()
			}
			large, over := validate(ptr, raw, limit)
			largeAllocs := testing.AllocsPerRun(1, func() { validate(ptr, raw, 0) })
			t.Logf("%d bytes: %+v, %.0f allocations; %d bytes: %+v, %.0f allocations (limit %d)",
				smallBytes, small, smallAllocs, largeBytes, large, largeAllocs, limit)
			// Every item is seen: the counting reaches the work.
			if !c.bounded && small.total() < n {
				t.Fatalf("%+v counted for %d items: the count misses the work", small, n)
			}
			if c.scanned && smallAllocs < n {
				t.Fatalf("%.0f allocations for %d items: the allocations miss the scanner's visits", smallAllocs, n)
			}
			if over {
				t.Errorf("%.1f× the input cost more than %d units of work, %.1f× the %d of the smaller: not linear",
					growth, limit, float64(limit)/float64(small.total()), small.total())
			}
			if c.bounded && large != small {
				t.Errorf("the work grows with the input (%+v against %+v): its items were read", large, small)
			}
			// The allocations of the whole process while the validation
			// runs: a goroutine of the runtime or of an earlier test may add
			// a few, which the 16 of slack absorb.
			if largeAllocs > 2*growth*smallAllocs+16 {
				t.Errorf("%.1f× the input made %.0f allocations against %.0f: not linear", growth, largeAllocs, smallAllocs)
			}
		})
	}
}
