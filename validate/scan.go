package validate

import (
	"encoding/json"
	"github.com/vane-http/vane/internal/addr"
	"reflect"

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
//
// The scanner also records which optional properties were present: the
// decoded value cannot tell an omitempty count sent as 0 from an absent
// one, and the checkers skip such a field at its zero value. So the
// scanner walks the decoded Go value alongside the JSON (offsets compiled
// from the type, items by index), keeps a presence bitset per object, and
// at the object's end applies the rules of every property that was sent
// (not as null) and is at its zero value. Present non-zero values were
// checked by the checkers already; absent ones are not checked at all.

// scanNode is the compiled shape of a JSON value with required or
// non-nullable properties somewhere inside.
type scanNode struct {
	kind     byte       // scanObject, scanArray or scanMap
	props    []scanProp // scanObject: the properties worth a look
	elem     *scanNode  // scanArray, scanMap: the shape of every item/value; nil: nothing inside
	elemNull string     // scanArray, scanMap: the failure of a null item/value; "" when allowed

	// scanArray: the Go items, to follow the decoded value (maps are not
	// followed: their values are not addressable).
	elemSize   uintptr
	alen       int // a Go array's length; -1 for a slice
	elemDerefs int // pointers to follow from an item to what elem describes
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

	// Where the field is in the decoded struct.
	offset uintptr
	embed  []uintptr // offsets of embedded pointers to follow first (rare)
	derefs int       // pointers to follow from the field to what child describes

	// An omitempty property with rules: check runs on its zero value when
	// the property was present (bit pbit of the object's presence mask; 0
	// past 64, where a zero value counts as absent).
	check node
	omit  reflect.Kind
	pbit  uint64
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
		var bit, pbit uint64 = 1, 1
		for _, f := range schema.Fields(t) {
			fs, err := c.reg.FieldSchema(&f)
			if err != nil {
				continue // reported by compile
			}
			p := scanProp{name: f.Name, nullMsg: c.nullMsg(fs), child: c.scan(f.Type, fs, memo), derefs: derefs(f.Type)}
			p.embed, p.offset = fieldOffset(t, f.Index)
			if f.Required() && f.Tag.Get("readOnly") != "true" {
				p.required = true
				p.bit = bit
				bit <<= 1
			}
			if f.OmitEmpty && pbit != 0 {
				if fn, err := c.compile(f.Type, fs); err == nil && fn != nil {
					p.check, p.omit, p.pbit = fn, f.Type.Kind(), pbit
					pbit <<= 1
				}
			}
			if p.required || p.nullMsg != "" || p.child != nil || p.check != nil {
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
		n := &scanNode{kind: scanArray, elem: c.scan(t.Elem(), s.Items, memo), elemNull: c.nullMsg(s.Items),
			elemSize: t.Elem().Size(), alen: -1, elemDerefs: derefs(t.Elem())}
		if t.Kind() == reflect.Array {
			n.alen = t.Len()
		}
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

// derefs counts the pointers in front of t's element type.
func derefs(t reflect.Type) int {
	n := 0
	for ; t.Kind() == reflect.Pointer; t = t.Elem() {
		n++
	}
	return n
}

// deref follows n pointers from p, or returns nil at a nil one.
func deref(p addr.Addr, n int) addr.Addr {
	for ; n > 0 && !p.IsNil(); n-- {
		p = p.Deref()
	}
	return p
}

// fieldOffset returns where the field at index lies in a struct of type t:
// the offsets of embedded pointers to follow first, then the offset from
// the last one.
func fieldOffset(t reflect.Type, index []int) (embed []uintptr, off uintptr) {
	for k, i := range index {
		sf := t.Field(i)
		off += sf.Offset
		if k == len(index)-1 {
			break
		}
		t = sf.Type
		if t.Kind() == reflect.Pointer {
			embed = append(embed, off)
			off = 0
			t = t.Elem()
		}
	}
	return embed, off
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
// document ("" when null is allowed). gp is the Go value data was decoded
// into (what n describes; nil: not followed).
func scanOK(n *scanNode, nullMsg string, data []byte, gp addr.Addr) bool {
	s := jscan{data: data, ok: true}
	if s.peek() == 'n' {
		return nullMsg == ""
	}
	s.value(n, gp)
	return s.ok
}

func scanCollect(n *scanNode, nullMsg string, data []byte, gp addr.Addr, c *collector) {
	s := jscan{data: data, ok: true, c: c}
	if s.peek() == 'n' {
		if nullMsg != "" {
			c.add(nullMsg, nil)
		}
		return
	}
	s.value(n, gp)
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

// value scans the value at s.i against n (nil: skip it); gp is its
// decoded Go value (nil: unknown).
func (s *jscan) value(n *scanNode, gp addr.Addr) {
	if n == nil {
		s.skip()
		return
	}
	switch s.peek() {
	case '{':
		if n.kind == scanObject {
			s.object(n, gp)
		} else if n.kind == scanMap {
			s.mapValues(n)
		} else {
			s.skip()
		}
	case '[':
		if n.kind == scanArray {
			s.array(n, gp)
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

func (s *jscan) object(n *scanNode, gp addr.Addr) {
	s.i++ // {
	var seen, present uint64
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
			if s.peek() == 'n' {
				if p.nullMsg != "" {
					s.fail(p.name, p.nullMsg)
				}
			} else {
				present |= p.pbit
			}
			var q addr.Addr
			if p.child != nil && !gp.IsNil() {
				q = deref(p.field(gp), p.derefs)
			}
			if s.c != nil && p.child != nil {
				m := s.c.push(p.name)
				s.value(p.child, q)
				s.c.pop(m)
			} else {
				s.value(p.child, q)
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
	if gp.IsNil() || present == 0 {
		return
	}
	// Properties sent at their zero value, which the checkers took for
	// absent: their rules apply.
	for i := range n.props {
		p := &n.props[i]
		if p.pbit&present == 0 {
			continue
		}
		q := p.field(gp)
		if q.IsNil() || !isEmpty(p.omit, q) {
			continue // checked with the value
		}
		if s.c == nil {
			if !p.check.check(q, nil) {
				s.ok = false
				return
			}
			continue
		}
		m := s.c.push(p.name)
		if !p.check.check(q, s.c) {
			s.ok = false
		}
		s.c.pop(m)
	}
}

// field returns the address of p's field in the struct at gp, or nil
// behind a nil embedded pointer.
func (p *scanProp) field(gp addr.Addr) addr.Addr {
	if p.embed != nil {
		if gp = followEmbedded(gp, p.embed); gp.IsNil() {
			return addr.Addr{}
		}
	}
	return gp.Field(p.offset)
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

// match finds the property named by the raw key, exactly as the decoder
// does: a key that differs in case names no property.
func (n *scanNode) match(raw []byte, esc bool) *scanProp {
	if esc {
		var key string
		if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &key) != nil {
			return nil
		}
		raw = []byte(key)
	}
	for i := range n.props {
		if n.props[i].name == string(raw) { // compared without a copy
			return &n.props[i]
		}
	}
	return nil
}

func (s *jscan) array(n *scanNode, gp addr.Addr) {
	s.i++ // [
	data, length := gp, n.alen
	if !gp.IsNil() && n.alen < 0 {
		data, length = gp.Slice()
	}
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
		var q addr.Addr
		if !data.IsNil() && idx < length && n.elem != nil {
			q = deref(data.Index(idx, n.elemSize), n.elemDerefs)
		}
		if s.c != nil {
			m := s.c.pushIndex(idx)
			if null {
				s.failHere(n.elemNull)
			}
			s.value(n.elem, q)
			s.c.pop(m)
		} else {
			if null {
				s.ok = false
				return
			}
			s.value(n.elem, q)
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
			s.value(n.elem, addr.Addr{})
			s.c.pop(m)
		} else {
			if null {
				s.ok = false
				return
			}
			s.value(n.elem, addr.Addr{})
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
