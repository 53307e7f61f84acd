package validate

import (
	"encoding"
	"encoding/json"
	"fmt"
	"github.com/vane-http/vane/internal/addr"
	"math"
	"reflect"
	"regexp"
	"strconv"

	"github.com/vane-http/vane/schema"
)

var textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()

type compiler struct {
	reg *schema.Registry
	// structs holds the node of each struct type being or already compiled,
	// so that recursive types point back to the node instead of recursing.
	structs map[reflect.Type]*structNode
	// busy marks the struct types whose compilation is under way.
	busy map[reflect.Type]bool
}

func newCompiler(reg *schema.Registry) *compiler {
	if reg == nil {
		reg = schema.NewRegistry("#/$defs/")
	}
	return &compiler{reg: reg, structs: map[reflect.Type]*structNode{}, busy: map[reflect.Type]bool{}}
}

// compile returns the node checking a value of type t against s (the
// keywords of the field holding it; nil for none beyond t's own), or nil
// when nothing needs checking.
func (c *compiler) compile(t reflect.Type, s *schema.Schema) (node, error) {
	if s == nil {
		var err error
		if s, err = c.reg.Schema(t); err != nil {
			return nil, err
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem, err := c.compile(t.Elem(), s)
		if elem == nil || err != nil {
			return nil, err
		}
		return &ptrNode{elem: elem}, nil
	case reflect.Struct:
		if isOpaque(t) {
			return nil, nil
		}
		return c.structType(t)
	case reflect.Slice, reflect.Array:
		if s.Type != schema.TypeArray || isOpaque(t) {
			return c.scalar(t, s)
		}
		return c.list(t, s)
	case reflect.Map:
		var elem node
		if s.AdditionalProperties != nil {
			var err error
			if elem, err = c.compile(t.Elem(), s.AdditionalProperties); err != nil {
				return nil, err
			}
		}
		if elem == nil && s.MinProperties == nil && s.MaxProperties == nil {
			return nil, nil
		}
		return &mapNode{typ: t, min: count(s.MinProperties), max: count(s.MaxProperties), elem: elem}, nil
	}
	return c.scalar(t, s)
}

// isOpaque reports types that bind as text (time.Time, netip.Addr …): their
// parser is their validation.
func isOpaque(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(textUnmarshalerType)
}

func (c *compiler) structType(t reflect.Type) (node, error) {
	if n, ok := c.structs[t]; ok {
		if c.busy[t] || len(n.fields) > 0 {
			return n, nil
		}
		return nil, nil // compiled, nothing to check
	}
	n := &structNode{}
	c.structs[t] = n
	c.busy[t] = true
	defer delete(c.busy, t)
	for _, f := range schema.Fields(t) {
		fs, err := c.reg.FieldSchema(&f)
		if err != nil {
			return nil, fmt.Errorf("%v.%s: %w", t, f.GoName, err)
		}
		fn, err := c.compile(f.Type, fs)
		if err != nil {
			return nil, fmt.Errorf("%v.%s: %w", t, f.GoName, err)
		}
		if fn == nil {
			continue
		}
		field := fieldNode{name: f.Name, n: fn}
		if f.OmitEmpty {
			field.omit = f.Type.Kind()
		}
		// Walk the index through embedded structs: offsets add up until
		// an embedded pointer, which must be followed at check time.
		st := t
		var off uintptr
		for k, i := range f.Index {
			sf := st.Field(i)
			off += sf.Offset
			if k == len(f.Index)-1 {
				break
			}
			st = sf.Type
			if st.Kind() == reflect.Pointer {
				field.embed = append(field.embed, off)
				off = 0
				st = st.Elem()
			}
		}
		field.offset = off
		n.fields = append(n.fields, field)
	}
	if len(n.fields) == 0 {
		// Nothing to check. A recursive reference made while compiling
		// holds this empty node, which checks nothing: harmless.
		return nil, nil
	}
	return n, nil
}

func (c *compiler) list(t reflect.Type, s *schema.Schema) (node, error) {
	n := &listNode{
		elemSize: t.Elem().Size(),
		minItems: count(s.MinItems),
		maxItems: count(s.MaxItems),
		unique:   s.UniqueItems,
		value:    valueOf(t.Elem()),
	}
	if t.Kind() == reflect.Array {
		n.array, n.alen = true, t.Len()
	}
	if n.unique {
		n.equal = equalFunc(t.Elem())
		n.key = keyFunc(t.Elem())
	}
	if s.Items != nil {
		elem, err := c.compile(t.Elem(), s.Items)
		if err != nil {
			return nil, err
		}
		n.elem = elem
	}
	if n.elem == nil && n.minItems < 0 && n.maxItems < 0 && !n.unique {
		return nil, nil
	}
	return n, nil
}

func equalFunc(t reflect.Type) func(a, b addr.Addr) bool {
	switch t.Kind() {
	case reflect.String:
		return equalAs[string]
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		// Equal integers (and booleans) have equal bits.
		return bySize(t, equalAs[uint8], equalAs[uint16], equalAs[uint32], equalAs[uint64])
	case reflect.Float32:
		return equalAs[float32]
	case reflect.Float64:
		return equalAs[float64]
	}
	key := keyFunc(t) // as JSON instances, like the sets of long lists
	return func(a, b addr.Addr) bool { return key(a) == key(b) }
}

// bySize returns the one of u8 … u64 for the size of t, an integer or
// boolean type: what reads its bits as an unsigned integer of that size.
func bySize[F any](t reflect.Type, u8, u16, u32, u64 F) F {
	switch t.Size() {
	case 1:
		return u8
	case 2:
		return u16
	case 4:
		return u32
	}
	return u64
}

// equalAs reports whether the values of type T at a and b are equal.
func equalAs[T comparable](a, b addr.Addr) bool { return *addr.As[T](a) == *addr.As[T](b) }

// keyFunc returns a function giving each value of type t a key such that
// two values have the same key exactly when equalFunc finds them equal (as
// JSON instances: 0 and -0 are one number). Integers and booleans are
// their bits in hexadecimal, strings themselves, anything else its JSON
// encoding (map keys sorted), which is what the document's uniqueItems
// compares.
func keyFunc(t reflect.Type) func(p addr.Addr) string {
	switch t.Kind() {
	case reflect.String:
		return func(p addr.Addr) string { return *addr.As[string](p) }
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return bySize(t, bitsKey[uint8], bitsKey[uint16], bitsKey[uint32], bitsKey[uint64])
	case reflect.Float32:
		return func(p addr.Addr) string { return floatKey(float64(*addr.As[float32](p))) }
	case reflect.Float64:
		return func(p addr.Addr) string { return floatKey(*addr.As[float64](p)) }
	}
	return func(p addr.Addr) string {
		b, err := json.Marshal(p.Value(t).Addr().Interface())
		if err != nil {
			return fmt.Sprintf("%p", p) // unencodable: unique to this item
		}
		return string(b)
	}
}

// bitsKey is the key of the integer of type T at p: its bits.
func bitsKey[T uint8 | uint16 | uint32 | uint64](p addr.Addr) string {
	return strconv.FormatUint(uint64(*addr.As[T](p)), 16)
}

func floatKey(f float64) string {
	if f == 0 {
		f = 0 // -0 and 0 are one number
	}
	b := math.Float64bits(f)
	return string([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), byte(b >> 32), byte(b >> 40), byte(b >> 48), byte(b >> 56)})
}

func (c *compiler) scalar(t reflect.Type, s *schema.Schema) (node, error) {
	switch t.Kind() {
	case reflect.String:
		return compileString(s)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return compileNumber(t.Kind(), s)
	case reflect.Bool:
		if len(s.Enum) == 0 {
			return nil, nil
		}
		n := &boolNode{}
		for _, e := range s.Enum {
			b, ok := e.(bool)
			if !ok {
				return nil, fmt.Errorf("enum value %v is not a boolean", e)
			}
			if b {
				n.allowTrue = true
			} else {
				n.allowFalse = true
			}
		}
		return n, nil
	}
	return nil, nil
}

func compileString(s *schema.Schema) (node, error) {
	n := &stringNode{minLen: count(s.MinLength), maxLen: count(s.MaxLength)}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return nil, err
		}
		n.pattern = re
	}
	if s.Format != "" {
		n.format = formats[s.Format] // unknown formats annotate only
		n.formatName = s.Format
	}
	for _, e := range s.Enum {
		str, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("enum value %v is not a string", e)
		}
		n.enum = append(n.enum, str)
	}
	if n.minLen < 0 && n.maxLen < 0 && n.pattern == nil && n.format == nil && n.enum == nil {
		return nil, nil
	}
	return n, nil
}

func compileNumber(k reflect.Kind, s *schema.Schema) (node, error) {
	n := &numberNode{kind: k}
	set := func(dst *float64, src *float64) {
		if src != nil {
			*dst = *src
			n.has = true
		}
	}
	n.min, n.max, n.exMin, n.exMax, n.multipleOf = math.Inf(-1), math.Inf(1), math.Inf(-1), math.Inf(1), 0
	// A uint's implied minimum 0 needs no check.
	if s.Minimum != nil && !(isUnsigned(k) && *s.Minimum == 0) {
		set(&n.min, s.Minimum)
	}
	set(&n.max, s.Maximum)
	set(&n.exMin, s.ExclusiveMinimum)
	set(&n.exMax, s.ExclusiveMaximum)
	set(&n.multipleOf, s.MultipleOf)
	for _, e := range s.Enum {
		f, ok := toFloat(e)
		if !ok {
			return nil, fmt.Errorf("enum value %v is not a number", e)
		}
		n.enum = append(n.enum, f)
		n.has = true
	}
	if !n.has {
		return nil, nil
	}
	n.lo, n.hi = n.min, n.max
	if n.exMin > math.Inf(-1) {
		n.lo = math.Max(n.lo, math.Nextafter(n.exMin, math.Inf(1)))
	}
	if n.exMax < math.Inf(1) {
		n.hi = math.Min(n.hi, math.Nextafter(n.exMax, math.Inf(-1)))
	}
	n.simple = n.multipleOf == 0 && n.enum == nil
	inRange := func(f float64) bool { return math.IsInf(f, 0) || (f > -1<<63 && f < 1<<63) }
	if n.simple && (k == reflect.Int64 || (k == reflect.Int && strconv.IntSize == 64)) && inRange(n.lo) && inRange(n.hi) {
		// The common case of an id or a count: compare as int64.
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		if n.lo > -1<<63 {
			lo = int64(math.Ceil(n.lo))
		}
		if n.hi < 1<<63 {
			hi = int64(math.Floor(n.hi))
		}
		return &int64Node{lo: lo, hi: hi, slow: n}, nil
	}
	return n, nil
}

func isUnsigned(k reflect.Kind) bool {
	switch k {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

func count(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}
