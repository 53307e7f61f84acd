package openapi

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// valueGen makes a JSON value from fuzz input, byte by byte: objects,
// arrays, strings of any bytes (invalid UTF-8 included), numbers, booleans
// and nulls, and writes it to a sink.
type valueGen struct {
	data []byte
	i    int
}

func (g *valueGen) next() byte {
	if g.i >= len(g.data) {
		return 0
	}
	b := g.data[g.i]
	g.i++
	return b
}

func (g *valueGen) str() string {
	n := int(g.next())
	long := n >= 0xf0 // now and then, past YAML's limit on implicit keys
	n %= 48
	if g.i+n > len(g.data) {
		n = len(g.data) - g.i
	}
	s := string(g.data[g.i : g.i+n])
	g.i += n
	if long {
		s = strings.Repeat(s+"x", 1100/(len(s)+1)+1)
	}
	return s
}

func (g *valueGen) value(s sink, depth int) {
	op := g.next()
	if depth > 6 {
		op %= 4
	}
	switch op % 8 {
	case 0, 6:
		s.str(g.str())
	case 1:
		var buf [8]byte
		for i := range buf {
			buf[i] = g.next()
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(buf[:]))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = float64(int64(binary.LittleEndian.Uint64(buf[:])))
		}
		if op&0x80 != 0 {
			s.number(strconv.FormatInt(int64(binary.LittleEndian.Uint64(buf[:]))>>(op&0x3f), 10))
			return
		}
		b, _ := appendFloat(nil, f)
		s.number(string(b))
	case 2:
		s.boolean(op&0x10 != 0)
	case 3:
		s.null()
	case 4, 7:
		s.beginObject()
		seen := map[string]bool{}
		for n := int(g.next() % 5); n > 0; n-- {
			k := g.str()
			if seen[k] || seen[string([]rune(k))] {
				continue // a YAML mapping's keys are unique
			}
			seen[k], seen[string([]rune(k))] = true, true
			s.key(k)
			g.value(s, depth+1)
		}
		s.endObject()
	case 5:
		s.beginArray()
		for n := int(g.next() % 5); n > 0; n-- {
			g.value(s, depth+1)
		}
		s.endArray()
	}
}

// FuzzYAMLWriter checks that whatever a document's strings, keys and
// numbers hold, go-yaml reads the YAML the writer makes as the same value
// as encoding/json reads the JSON it makes.
func FuzzYAMLWriter(f *testing.F) {
	f.Add([]byte{4, 3, 5, 'h', 'e', 'l', 'l', 'o', 0, 4, 't', 'r', 'u', 'e', 5, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{4, 2, 0xf3, 'a', ':', ' ', 0, 2, 'a', '\n', 5, 2, 4, 1, 1, 'k', 0, 3, 'x', '\n', 'y', 0})
	for _, s := range []string{"a: b", "- x", "#c", "multi\nline\n", "\tx\ny", "x\n \ny", "\xff", "\u2028", "3.1.0", "1e5", "~", "'", "\"", "\\", "a #b", "a:"} {
		f.Add(append([]byte{7, 2, byte(len(s))}, append([]byte(s), 0, byte(len(s)))...))
		f.Add(append([]byte{5, 1, 0, byte(len(s))}, s...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var y yamlWriter
		var j jsonWriter
		(&valueGen{data: data}).value(&y, 0)
		(&valueGen{data: data}).value(&j, 0)
		jb, yb := j.bytes(), y.bytes()
		var fromJSON, fromYAML any
		if err := json.Unmarshal(jb, &fromJSON); err != nil {
			t.Fatalf("the JSON does not parse: %v\n%s", err, jb)
		}
		if err := yaml.Unmarshal(yb, &fromYAML); err != nil {
			t.Fatalf("the YAML does not parse: %v\n%s\nJSON: %s", err, yb, jb)
		}
		// Numbers as JSON reads them: YAML gives ints and floats.
		b, err := json.Marshal(fromYAML)
		if err != nil {
			t.Fatalf("the YAML's value has no JSON form: %v\n%s", err, yb)
		}
		var normalised any
		if err := json.Unmarshal(b, &normalised); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(normalised, fromJSON) {
			t.Fatalf("the YAML reads as another value\nYAML:\n%s\nJSON: %s\nfrom YAML: %#v\nfrom JSON: %#v", yb, jb, normalised, fromJSON)
		}
	})
}
