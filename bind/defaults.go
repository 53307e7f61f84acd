package bind

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/vane-http/vane/schema"
)

// bodyDefaults applies the documented defaults of a JSON body: every
// property whose schema has a default and that the body did not send gets
// it, in nested objects too (struct fields, pointers to structs that were
// sent, items of arrays). A property sent, even as its zero value or as
// null, keeps what was sent. An object held by value (a struct field, not
// a pointer) gets its properties' defaults whether or not it was sent, as
// it exists in Go either way. Map values are not visited. It is compiled
// only for body types with a default somewhere, so other bodies pay
// nothing; applying it decodes the body a second time into generic JSON
// values, to see which properties were sent.
type bodyDefaults struct {
	kind   reflect.Kind   // Struct, Pointer, Slice or Array
	fields []defaultField // Struct
	elem   *bodyDefaults  // Pointer, Slice, Array
}

type defaultField struct {
	name  string
	index []int
	def   []byte        // the default as JSON; nil when the field has none
	child *bodyDefaults // defaults below the field; nil when none
}

// compileDefaults returns the defaults of a body of type t, or nil when
// nothing in t has one. A default that cannot be decoded into its field is
// an error naming the field.
func compileDefaults(t reflect.Type, reg *schema.Registry) (*bodyDefaults, error) {
	return (&defaultsCompiler{reg: reg, seen: map[reflect.Type]*bodyDefaults{}}).compile(t)
}

type defaultsCompiler struct {
	reg  *schema.Registry
	seen map[reflect.Type]*bodyDefaults // struct types compiled or under way (recursive types)
}

func (c *defaultsCompiler) compile(t reflect.Type) (*bodyDefaults, error) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return nil, nil // []byte: a base64 string
		}
		elem, err := c.compile(t.Elem())
		if elem == nil || err != nil {
			return nil, err
		}
		return &bodyDefaults{kind: t.Kind(), elem: elem}, nil
	case reflect.Struct:
	default:
		return nil, nil
	}
	if d, ok := c.seen[t]; ok {
		return d, nil // a recursive type: the node being filled
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalType) {
		return nil, nil // decodes itself
	}
	d := &bodyDefaults{kind: reflect.Struct}
	c.seen[t] = d
	for _, f := range schema.Fields(t) {
		df := defaultField{name: f.Name, index: f.Index}
		fs, err := c.reg.FieldSchema(&f)
		if err != nil {
			return nil, fmt.Errorf("%v.%s: %w", t, f.GoName, err)
		}
		if fs != nil && fs.Default != nil {
			b, err := json.Marshal(fs.Default)
			if err == nil {
				err = json.Unmarshal(b, reflect.New(f.Type).Interface())
			}
			if err != nil {
				return nil, fmt.Errorf("%v.%s: default %v does not decode into %v: %v", t, f.GoName, fs.Default, f.Type, err)
			}
			df.def = b
		}
		if df.child, err = c.compile(f.Type); err != nil {
			return nil, err
		}
		if df.def != nil || df.child != nil {
			d.fields = append(d.fields, df)
		}
	}
	if len(d.fields) == 0 {
		c.seen[t] = nil
		return nil, nil
	}
	return d, nil
}

var jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// apply sets the defaults of the properties raw did not send in the value
// v decoded from it.
func (d *bodyDefaults) apply(raw []byte, v reflect.Value) error {
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil {
		return nil // the decoder has already accepted raw; nothing to add
	}
	return d.set(v, inst)
}

func (d *bodyDefaults) set(v reflect.Value, inst any) error {
	switch d.kind {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return d.elem.set(v.Elem(), inst)
	case reflect.Slice, reflect.Array:
		items, _ := inst.([]any)
		for i := 0; i < v.Len() && i < len(items); i++ {
			if err := d.elem.set(v.Index(i), items[i]); err != nil {
				return err
			}
		}
		return nil
	}
	obj, ok := inst.(map[string]any)
	if !ok {
		return nil
	}
	for i := range d.fields {
		f := &d.fields[i]
		fv, err := v.FieldByIndexErr(f.index)
		if err != nil {
			continue // behind a nil embedded pointer
		}
		sent, present := obj[f.name]
		switch {
		case !present && f.def != nil:
			if err := json.Unmarshal(f.def, fv.Addr().Interface()); err != nil {
				return err
			}
		case !present && f.child != nil && f.child.kind == reflect.Struct:
			// An object held by value exists in Go whether or not it was
			// sent: its properties get their defaults.
			if err := f.child.set(fv, map[string]any{}); err != nil {
				return err
			}
		case present && f.child != nil:
			if err := f.child.set(fv, sent); err != nil {
				return err
			}
		}
	}
	return nil
}
