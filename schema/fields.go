package schema

import (
	"reflect"
	"sort"
	"strings"
)

// Field is one JSON property of a struct type, found the way encoding/json
// finds it: exported fields, names from the `json` tag, fields of embedded
// structs promoted (the shallowest wins; a tie is broken by a `json` tag, an
// unbroken tie drops the name).
type Field struct {
	Name      string              // the JSON property name
	GoName    string              // the Go field name
	Index     []int               // for reflect.Value.FieldByIndex; may pass through embedded pointers
	Type      reflect.Type        // the field's type
	Tag       reflect.StructTag   // the field's whole tag
	OmitEmpty bool                // `json:",omitempty"` or `json:",omitzero"`
	String    bool                // `json:",string"`
	Struct    reflect.StructField // the field itself
}

// Required reports whether the field is required in a JSON object, by the
// JSON Schema rule vane follows: a `required` tag decides when present;
// otherwise a field with a `default` tag is optional (the default is what
// a value not sent means), and so is a pointer, an interface or a field
// with omitempty/omitzero; any other field is required.
func (f *Field) Required() bool {
	switch f.Tag.Get("required") {
	case "true":
		return true
	case "false":
		return false
	}
	if _, ok := f.Tag.Lookup("default"); ok {
		return false
	}
	return !f.OmitEmpty && f.Type.Kind() != reflect.Pointer && f.Type.Kind() != reflect.Interface
}

// Fields returns the JSON properties of struct type t in Go field order.
// It returns nil for a type that is not a struct.
func Fields(t reflect.Type) []Field {
	if t.Kind() != reflect.Struct {
		return nil
	}
	type candidate struct {
		Field
		depth  int
		tagged bool
	}
	var all []candidate
	type level struct {
		t     reflect.Type
		index []int
	}
	current := []level{{t: t}}
	visited := map[reflect.Type]bool{}
	for depth := 0; len(current) > 0; depth++ {
		var next []level
		for _, lv := range current {
			if visited[lv.t] {
				continue
			}
			visited[lv.t] = true
			for i := 0; i < lv.t.NumField(); i++ {
				sf := lv.t.Field(i)
				ft := sf.Type
				if sf.Anonymous {
					et := ft
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := make([]int, len(lv.index)+1)
				copy(index, lv.index)
				index[len(lv.index)] = i

				if sf.Anonymous && name == "" {
					et := ft
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if et.Kind() == reflect.Struct {
						next = append(next, level{t: et, index: index})
						continue
					}
				}
				c := candidate{depth: depth, tagged: name != ""}
				if name == "" {
					name = sf.Name
				}
				c.Field = Field{
					Name: name, GoName: sf.Name, Index: index, Type: ft, Tag: sf.Tag, Struct: sf,
					OmitEmpty: hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero"),
					String:    hasOpt(opts, "string"),
				}
				all = append(all, c)
			}
		}
		current = next
	}

	// Keep the dominant field of each name.
	byName := map[string][]int{}
	for i, c := range all {
		byName[c.Name] = append(byName[c.Name], i)
	}
	var out []candidate
	for _, idx := range byName {
		best := idx[0]
		if len(idx) > 1 {
			minDepth := all[idx[0]].depth
			for _, i := range idx {
				minDepth = min(minDepth, all[i].depth)
			}
			var shallow, tagged []int
			for _, i := range idx {
				if all[i].depth == minDepth {
					shallow = append(shallow, i)
					if all[i].tagged {
						tagged = append(tagged, i)
					}
				}
			}
			switch {
			case len(shallow) == 1:
				best = shallow[0]
			case len(tagged) == 1:
				best = tagged[0]
			default:
				continue // ambiguous: encoding/json drops the name
			}
		}
		out = append(out, all[best])
	}
	// Go field order: by index sequence, like encoding/json.
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Index, out[j].Index
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
	})
	fields := make([]Field, len(out))
	for i, c := range out {
		fields[i] = c.Field
	}
	return fields
}

func hasOpt(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}
