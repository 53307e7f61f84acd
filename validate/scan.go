package validate

import (
	"encoding/json"
	"reflect"
	"strings"
	"unsafe"

	"github.com/vane-http/vane/schema"
)

// The presence of required properties cannot be read from a decoded Go
// value (an absent string and an empty one look alike), nor can a null
// (encoding/json leaves the field as it was), so both are checked on the
// raw JSON: a scanner compiled from the type walks the document once,
// descending only where some required or non-nullable property lies below,
// and skips the rest. JSON property names match fields as encoding/json
// matches them: exactly, or else case-insensitively.
//
// A null is accepted exactly where the schema the document shows accepts
// it: a nullable schema (the nullable tag; OpenAPI's type union with
// "null"), or one with no type at all (any, json.RawMessage, custom JSON).
// A pointer is not nullable by itself: its schema is its element's.

// scanNode is the compiled shape of a JSON value with required or
// non-nullable properties somewhere inside.
type scanNode struct {
	kind     byte       // scanObject, scanArray or scanMap
	props    []scanProp // scanObject: the properties worth a look
	elem     *scanNode  // scanArray, scanMap: the shape of every item/value; nil: nothing inside
	elemNull string     // scanArray, scanMap: the failure of a null item/value; "" when allowed
}

const (
	scanObject = iota + 1
	scanArray
	scanMap
)

type scanProp struct {
	name     string
	required bool
	nullMsg  string // the failure of a null value ("expected integer, not null"); "" when null is allowed
	bit      uint64 // for required properties, their bit in the seen mask (0 past 64)
	child    *scanNode
}

// nullMsg returns the failure of a null where schema s is expected, or ""
// when s accepts null.
func (c *compiler) nullMsg(s *schema.Schema) string {
	if s == nil || s.Nullable {
		return ""
	}
	if s.Ref != "" {
		r := c.reg.Resolve(s)
		if r == s || r == nil || r.Nullable {
			return ""
		}
		s = r
	}
	if s.Type == "" || s.Type == schema.TypeNull {
		return ""
	}
	return "expected " + s.Type + ", not null"
}

// scanner compiles the scan node of a value of type t with schema s, or
// returns nil when nothing inside t is required or non-nullable.
func (c *compiler) scanner(t reflect.Type, s *schema.Schema) *scanNode {
	memo := map[reflect.Type]*scanNode{}
	return c.scan(t, s, memo)
}

func (c *compiler) scan(t reflect.Type, s *schema.Schema, memo map[reflect.Type]*scanNode) *scanNode {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if n, ok := memo[t]; ok {
			return n // in progress (recursion) or done
		}
		if isOpaque(t) || implementsJSON(t) {
			return nil
		}
		n := &scanNode{kind: scanObject}
		memo[t] = n
		var bit uint64 = 1
		for _, f := range schema.Fields(t) {
			fs, err := c.reg.FieldSchema(&f)
			if err != nil {
				continue // reported by compile
			}
			p := scanProp{name: f.Name, nullMsg: c.nullMsg(fs), child: c.scan(f.Type, fs, memo)}
			if f.Required() && f.Tag.Get("readOnly") != "true" {
				p.required = true
				p.bit = bit
				bit <<= 1
			}
			if p.required || p.nullMsg != "" || p.child != nil {
				n.props = append(n.props, p)
			}
		}
		if len(n.props) == 0 {
			memo[t] = nil
			return nil
		}
		return n
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 || implementsJSON(t) || s == nil || s.Type != schema.TypeArray || s.Items == nil {
			return nil
		}
		n := &scanNode{kind: scanArray, elem: c.scan(t.Elem(), s.Items, memo), elemNull: c.nullMsg(s.Items)}
		if n.elem != nil || n.elemNull != "" {
			return n
		}
	case reflect.Map:
		if implementsJSON(t) || s == nil || s.AdditionalProperties == nil {
			return nil
		}
		n := &scanNode{kind: scanMap, elem: c.scan(t.Elem(), s.AdditionalProperties, memo), elemNull: c.nullMsg(s.AdditionalProperties)}
		if n.elem != nil || n.elemNull != "" {
			return n
		}
	}
	return nil
}

var jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()

func implementsJSON(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(jsonUnmarshalerType)
}

// jscan walks one JSON document. With c nil it stops at the first missing
// property; otherwise it records every one at its location.
type jscan struct {
	data []byte
	i    int
	c    *collector
	ok   bool
}

// scanOK reports whether data passes n; nullMsg is the failure of a null
// document ("" when null is allowed).
func scanOK(n *scanNode, nullMsg string, data []byte) bool {
	s := jscan{data: data, ok: true}
	if s.peek() == 'n' {
		return nullMsg == ""
	}
	s.value(n)
	return s.ok
}

func scanCollect(n *scanNode, nullMsg string, data []byte, c *collector) {
	s := jscan{data: data, ok: true, c: c}
	if s.peek() == 'n' {
		if nullMsg != "" {
			c.add(nullMsg, nil)
		}
		return
	}
	s.value(n)
}

func (s *jscan) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jscan) peek() byte {
	s.ws()
	if s.i < len(s.data) {
		return s.data[s.i]
	}
	return 0
}

func (s *jscan) stop() bool { return !s.ok && s.c == nil }

// value scans the value at s.i against n (nil: skip it).
func (s *jscan) value(n *scanNode) {
	if n == nil {
		s.skip()
		return
	}
	switch s.peek() {
	case '{':
		if n.kind == scanObject {
			s.object(n)
		} else if n.kind == scanMap {
			s.mapValues(n)
		} else {
			s.skip()
		}
	case '[':
		if n.kind == scanArray {
			s.array(n)
		} else {
			s.skip()
		}
	default:
		s.skip()
	}
}

// str returns the raw bytes of the string at s.i, without quotes, and
// whether it holds escapes.
func (s *jscan) str() ([]byte, bool) {
	if s.peek() != '"' {
		return nil, false
	}
	s.i++
	start, esc := s.i, false
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case '\\':
			esc = true
			s.i += 2
			continue
		case '"':
			raw := s.data[start:s.i]
			s.i++
			return raw, esc
		}
		s.i++
	}
	return s.data[start:], esc
}

func (s *jscan) object(n *scanNode) {
	s.i++ // {
	var seen uint64
	for !s.stop() {
		if s.peek() == '}' {
			s.i++
			break
		}
		if s.i >= len(s.data) {
			break
		}
		raw, esc := s.str()
		if s.peek() != ':' {
			break
		}
		s.i++
		p := n.match(raw, esc)
		if p == nil {
			s.skip()
		} else {
			if p.required {
				seen |= p.bit
			}
			if p.nullMsg != "" && s.peek() == 'n' {
				s.fail(p.name, p.nullMsg)
			}
			if s.c != nil && p.child != nil {
				m := s.c.push(p.name)
				s.value(p.child)
				s.c.pop(m)
			} else {
				s.value(p.child)
			}
		}
		if s.peek() == ',' {
			s.i++
		}
	}
	for i := range n.props {
		p := &n.props[i]
		if p.required && p.bit != 0 && seen&p.bit == 0 {
			s.fail(p.name, "required property is missing")
			if s.stop() {
				return
			}
		}
	}
}

// failHere records a failure at the current location.
func (s *jscan) failHere(msg string) {
	s.ok = false
	if s.c != nil {
		s.c.add(msg, nil)
	}
}

func (s *jscan) fail(name, msg string) {
	s.ok = false
	if s.c != nil {
		m := s.c.push(name)
		s.c.add(msg, nil)
		s.c.pop(m)
	}
}

// match finds the property named by the raw key as encoding/json would:
// an exact match first, then a case-insensitive one.
func (n *scanNode) match(raw []byte, esc bool) *scanProp {
	key := unsafe.String(unsafe.SliceData(raw), len(raw))
	if esc {
		var k string
		if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &k) != nil {
			return nil
		}
		key = k
	}
	for i := range n.props {
		if n.props[i].name == key {
			return &n.props[i]
		}
	}
	for i := range n.props {
		if strings.EqualFold(n.props[i].name, key) {
			return &n.props[i]
		}
	}
	return nil
}

func (s *jscan) array(n *scanNode) {
	s.i++ // [
	for idx := 0; !s.stop(); idx++ {
		if s.peek() == ']' {
			s.i++
			return
		}
		if s.i >= len(s.data) {
			return
		}
		start := s.i
		null := n.elemNull != "" && s.peek() == 'n'
		if s.c != nil {
			m := s.c.pushIndex(idx)
			if null {
				s.failHere(n.elemNull)
			}
			s.value(n.elem)
			s.c.pop(m)
		} else {
			if null {
				s.ok = false
				return
			}
			s.value(n.elem)
		}
		if s.peek() == ',' {
			s.i++
		} else if s.i == start {
			return // not JSON this scanner understands; the decoder judged it
		}
	}
}

func (s *jscan) mapValues(n *scanNode) {
	s.i++ // {
	for !s.stop() {
		if s.peek() == '}' {
			s.i++
			return
		}
		if s.i >= len(s.data) {
			return
		}
		raw, _ := s.str()
		if s.peek() != ':' {
			return
		}
		s.i++
		null := n.elemNull != "" && s.peek() == 'n'
		if s.c != nil {
			m := s.c.push(string(raw))
			if null {
				s.failHere(n.elemNull)
			}
			s.value(n.elem)
			s.c.pop(m)
		} else {
			if null {
				s.ok = false
				return
			}
			s.value(n.elem)
		}
		if s.peek() == ',' {
			s.i++
		}
	}
}

// skip passes over one value of any kind.
func (s *jscan) skip() {
	depth := 0
	for s.i < len(s.data) {
		switch s.peek() {
		case '"':
			s.str()
		case '{', '[':
			depth++
			s.i++
		case '}', ']':
			if depth == 0 {
				return // the enclosing container's end
			}
			depth--
			s.i++
		case ',', ':':
			if depth == 0 {
				return
			}
			s.i++
		case 0:
			return
		default:
			// number, true, false, null: up to a delimiter
			for s.i < len(s.data) {
				c := s.data[s.i]
				if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == ':' {
					break
				}
				s.i++
			}
		}
		if depth == 0 {
			return
		}
	}
}
