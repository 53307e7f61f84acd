package bind

import (
	"fmt"
	"github.com/vane-http/vane/internal/addr"
	"net/url"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// bindPairs binds the pairs of a query string or urlencoded form to ps in
// one pass: for each key, the first matching parameter takes the value (a
// scalar its key's first value, a slice every value, a deepObject the
// values of its name[key] keys). Then absent parameters get their defaults
// or are reported, and each one sent whose values all parsed is marked
// present. len(ps) is at most MaxPresent.
func bindPairs(ps []param, raw string, base addr.Addr, st *State, errs []problem.FieldError) []problem.FieldError {
	var seen, failed uint64 // bit i: ps[i]
	var subSeen []uint64    // deepObject structs: which properties were sent, per parameter
	for raw != "" {
		var pair string
		pair, raw, _ = cut(raw, '&')
		if pair == "" {
			continue
		}
		key, val, _ := cut(pair, '=')
		if needsUnescape(key) {
			k, err := url.QueryUnescape(key)
			if err != nil {
				continue // not a key any parameter has
			}
			key = k
		}
		for i := range ps {
			p := &ps[i]
			bit := uint64(1) << i
			dst := base.Field(p.offset)
			if p.deep != nil {
				sub, ok := deepKey(key, p.name)
				if !ok {
					continue
				}
				seen |= bit
				if p.deep.fields != nil && subSeen == nil {
					subSeen = make([]uint64, len(ps))
				}
				var sseen *uint64
				if subSeen != nil {
					sseen = &subSeen[i]
				}
				if err := p.deep.set(dst, sub, val, sseen); err != nil {
					errs = append(errs, fieldErr(p.loc+"["+sub+"]", err, val))
					failed |= bit
				}
				break
			}
			if p.name != key {
				continue
			}
			if p.slice == nil && seen&bit != 0 {
				// A scalar sent twice is outside the document (a
				// parameter of one value), and taking either value would
				// let two readers of one request disagree on it.
				if failed&bit == 0 {
					errs = append(errs, fieldErr(p.loc, errRepeated, val))
					failed |= bit
				}
				break
			}
			seen |= bit
			var err error
			if p.slice != nil {
				err = p.setList(dst, val, true)
			} else {
				var v string
				if v, err = unescape(val); err == nil {
					err = p.set(v, dst)
				}
			}
			if err != nil {
				errs = append(errs, fieldErr(p.loc, err, val))
				failed |= bit
			}
			break
		}
	}
	for i := range ps {
		p := &ps[i]
		bit := uint64(1) << i
		if seen&bit == 0 {
			errs = p.absent(base, st, errs)
			continue
		}
		if p.deep != nil && p.deep.fields != nil {
			var before = len(errs)
			errs = p.deep.finish(base.Field(p.offset), subSeen[i], p.loc, errs)
			if len(errs) > before {
				failed |= bit
			}
		}
		if failed&bit == 0 {
			st.Present |= p.bit
		}
	}
	return errs
}

func needsUnescape(s string) bool {
	return strings.IndexByte(s, '%') >= 0 || strings.IndexByte(s, '+') >= 0
}

// unescape decodes a query value ("+" is a space), without allocating
// when there is nothing to decode. A value whose bytes are not UTF-8,
// escaped (%FF, the overlong %C0%AF) or not, is refused: no JSON Schema
// string holds it, as no JSON body does.
func unescape(s string) (string, error) {
	if !needsUnescape(s) {
		if !utf8.ValidString(s) {
			return "", errNotUTF8
		}
		return s, nil
	}
	v, err := url.QueryUnescape(s)
	if err != nil {
		return "", parseErr("invalid URL escape")
	}
	if !utf8.ValidString(v) {
		return "", errNotUTF8
	}
	return v, nil
}

// errNotUTF8 is the message for a query value whose bytes are not UTF-8.
var errNotUTF8 = parseErr("invalid UTF-8")

// deepObject is a map or struct query parameter in style deepObject:
// ?name[key]=value.
type deepObject struct {
	typ    reflect.Type // the field's type: a map, a struct or a pointer to a struct
	ptr    bool         // *struct: allocated when a key is sent
	key    reflect.Type // map: the key type (of kind string)
	elem   reflect.Type // map: the value type
	parse  parser       // map: the values' parser
	fields []deepField  // struct: its properties
	byName map[string]int
}

type deepField struct {
	name     string
	offset   uintptr
	parse    parser
	required bool
	def      string
	hasDef   bool
}

// isDeepObject reports whether a parameter of type t is an object: a map,
// or a struct (or pointer to one) that is not a value of its own (time,
// text unmarshaler, cookie).
func isDeepObject(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(textUnmarshalType) {
		return false
	}
	switch t.Kind() {
	case reflect.Map:
		return true
	case reflect.Struct:
		return t != timeType && t != cookieType
	}
	return false
}

// compileDeepObject compiles a deepObject parameter of type t named name.
func compileDeepObject(t reflect.Type, name string) (*deepObject, error) {
	d := &deepObject{typ: t}
	if t.Kind() == reflect.Map {
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("the keys of a deepObject map must be strings, not %v", t.Key())
		}
		var err error
		if d.parse, err = scalarParser(t.Elem(), ""); err != nil {
			return nil, fmt.Errorf("the values of deepObject parameter %s: %v (deepObject has no nested objects or lists)", name, err)
		}
		d.key, d.elem = t.Key(), t.Elem()
		return d, nil
	}
	st := t
	if t.Kind() == reflect.Pointer {
		d.ptr, st = true, t.Elem()
	}
	fields := schema.Fields(st)
	if len(fields) > MaxPresent {
		return nil, fmt.Errorf("deepObject parameter %s has %d properties, more than %d", name, len(fields), MaxPresent)
	}
	d.byName = make(map[string]int, len(fields))
	for _, f := range fields {
		off, ok := fieldOffset(st, f.Index)
		if !ok {
			return nil, fmt.Errorf("property %s of deepObject parameter %s is in an embedded pointer, which cannot be bound", f.Name, name)
		}
		parse, err := scalarParser(f.Type, f.Tag.Get("format"))
		if err != nil {
			return nil, fmt.Errorf("property %s of deepObject parameter %s: %v (deepObject has no nested objects or lists)", f.Name, name, err)
		}
		df := deepField{name: f.Name, offset: off, parse: parse, required: f.Required()}
		if def, ok := f.Tag.Lookup("default"); ok {
			df.def, df.hasDef = def, true
			if err := parse(def, addr.OfValue(reflect.New(f.Type))); err != nil {
				return nil, fmt.Errorf("property %s of deepObject parameter %s: default %q: %v", f.Name, name, def, err)
			}
		}
		d.byName[f.Name] = len(d.fields)
		d.fields = append(d.fields, df)
	}
	if d.fields == nil {
		d.fields = []deepField{} // a struct, even with no properties
	}
	return d, nil
}

// fieldOffset is the offset of the field at index in struct type t, unless
// the path goes through a pointer.
func fieldOffset(t reflect.Type, index []int) (uintptr, bool) {
	var off uintptr
	for n, i := range index {
		f := t.Field(i)
		off += f.Offset
		t = f.Type
		if n < len(index)-1 && t.Kind() != reflect.Struct {
			return 0, false
		}
	}
	return off, true
}

// deepKey returns the key of a deepObject pair: "color" for name[color].
func deepKey(key, name string) (string, bool) {
	if len(key) < len(name)+2 || key[len(name)] != '[' || key[len(key)-1] != ']' || key[:len(name)] != name {
		return "", false
	}
	return key[len(name)+1 : len(key)-1], true
}

// set binds one name[sub]=val pair (val still escaped) into the parameter
// at dst. For a struct, seen records the properties sent; the first value
// of a key wins, as for scalars.
func (d *deepObject) set(dst addr.Addr, sub, val string, seen *uint64) error {
	if strings.ContainsAny(sub, "[]") {
		return parseErr("a deepObject parameter has one level of keys: name[key]=value")
	}
	v, err := unescape(val)
	if err != nil {
		return err
	}
	if d.fields == nil { // a map
		m := dst.Value(d.typ)
		if m.IsNil() {
			m.Set(reflect.MakeMap(d.typ))
		}
		k := reflect.New(d.key).Elem()
		k.SetString(sub)
		if m.MapIndex(k).IsValid() {
			return nil
		}
		e := reflect.New(d.elem)
		if err := d.parse(v, addr.OfValue(e)); err != nil {
			return err
		}
		m.SetMapIndex(k, e.Elem())
		return nil
	}
	i, ok := d.byName[sub]
	if !ok || *seen&(1<<i) != 0 {
		return nil // not a property (ignored, as unknown parameters are), or sent before
	}
	*seen |= 1 << i
	if d.ptr {
		if dst.Deref().IsNil() {
			dst.SetPointer(addr.OfValue(reflect.New(d.typ.Elem())))
		}
		dst = dst.Deref()
	}
	return d.fields[i].parse(v, dst.Field(d.fields[i].offset))
}

// finish reports the required properties of a struct that were not sent,
// and applies the defaults of the others, once some property was sent.
// Which properties are required is what the document says
// (schema.Field.Required), defaults or not.
func (d *deepObject) finish(dst addr.Addr, seen uint64, loc string, errs []problem.FieldError) []problem.FieldError {
	if d.ptr {
		if dst.Deref().IsNil() {
			dst.SetPointer(addr.OfValue(reflect.New(d.typ.Elem())))
		}
		dst = dst.Deref()
	}
	for i := range d.fields {
		f := &d.fields[i]
		switch {
		case seen&(1<<i) != 0:
		case f.required: // as documented, even with a default
			errs = append(errs, problem.FieldError{Location: loc + "[" + f.name + "]", Message: "required property is missing"})
		case f.hasDef:
			f.parse(f.def, dst.Field(f.offset)) //nolint:errcheck // checked at Compile
		}
	}
	return errs
}

// errRepeated is the message for a parameter of one value sent twice.
var errRepeated = parseErr("one value expected: the parameter is sent more than once")

// errRepeatedFile is the message for a file field of one file sent in two
// parts.
var errRepeatedFile = parseErr("one file expected: the part is sent more than once")
