package schema

import (
	"encoding"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
)

// Namer is implemented by named struct types that choose their component
// name instead of the derived one.
type Namer interface {
	SchemaName() string
}

// Open is implemented by struct types whose JSON objects may carry members
// beyond their fields, such as problem.Details with its extension members:
// their schemas are never closed (see SetClosed).
type Open interface{ OpenSchema() }

var openType = reflect.TypeFor[Open]()

// Provider is implemented by types that describe themselves; Registry calls
// JSONSchema on the type's zero value instead of deriving a schema.
type Provider interface {
	JSONSchema(r *Registry) *Schema
}

var (
	timeType          = reflect.TypeFor[time.Time]()
	durationType      = reflect.TypeFor[time.Duration]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	fileHeaderType    = reflect.TypeFor[multipart.FileHeader]()
	providerType      = reflect.TypeFor[Provider]()
	namerType         = reflect.TypeFor[Namer]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// Registry derives schemas from Go types and keeps the named ones: every
// named struct type becomes a component schema, referenced by $ref as
// Prefix + name, and described once however often it is used (recursion
// included).
//
// Names are the Go type names (or what a type's SchemaName method
// returns), with the type arguments of a generic type spelled out
// (Page[pkg.Item] is "PageItem"). When types from different packages share
// a name, every one of them is qualified by its package name ("ShopItem",
// "BillingItem"); names that still clash (types of one package, or of
// packages with the same name) are told apart by numbers, given in the
// order of package path and type name. The names thus depend on which
// types are registered, not on the order: a type registered later may
// rename one registered earlier, and the $refs the registry has handed out
// follow. (Only function-local types of the same name in the same package,
// which nothing tells apart, are numbered in registration order.)
//
// A Registry is not safe for concurrent use; vane fills it at registration.
type Registry struct {
	Prefix string

	names   map[reflect.Type]string
	types   map[string]reflect.Type
	schemas map[string]*Schema

	order  []reflect.Type             // registration order
	bases  map[reflect.Type]string    // the name before qualification
	shared map[string]int             // how many registered types have each base name
	byType map[reflect.Type]*Schema   // the component schema, once derived
	refs   map[reflect.Type][]*Schema // every $ref to the type handed out

	closed bool // struct schemas get additionalProperties: false

	renamings int // how many times assign named every type (a count for tests)

	// variants are the components of the other policy (see Variant), by
	// name, in the order made.
	variants     map[string]*Schema
	variantOrder []string
	variantType  map[string]reflect.Type
}

// SetClosed makes the schemas derived from struct types closed (true):
// they say additionalProperties: false, so that an object with a property
// the struct has no field for is invalid. Call it before deriving any
// schema.
func (r *Registry) SetClosed(closed bool) { r.closed = closed }

// Closed reports whether struct schemas are closed (see SetClosed).
func (r *Registry) Closed() bool { return r.closed }

// NewRegistry returns an empty registry whose references start with prefix,
// such as "#/components/schemas/".
func NewRegistry(prefix string) *Registry {
	return &Registry{
		Prefix:  prefix,
		names:   map[reflect.Type]string{},
		types:   map[string]reflect.Type{},
		schemas: map[string]*Schema{},
		bases:   map[reflect.Type]string{},
		shared:  map[string]int{},
		byType:  map[reflect.Type]*Schema{},
		refs:    map[reflect.Type][]*Schema{},
	}
}

// Schemas returns the named schemas by name. The map is the registry's own.
func (r *Registry) Schemas() map[string]*Schema { return r.schemas }

// Names returns the names of the named schemas in registration order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.order), len(r.order)+len(r.variantOrder))
	for i, t := range r.order {
		out[i] = r.names[t]
	}
	return append(out, r.variantOrder...)
}

// Define adds s as a component schema that no Go type derives, under
// name, and returns a new $ref to it. It fails when name is taken by a
// schema already registered; a type registered later under the same
// name is hidden by s.
func (r *Registry) Define(name string, s *Schema) (*Schema, error) {
	if _, taken := r.schemas[name]; taken {
		return nil, fmt.Errorf("schema: the component name %q is taken", name)
	}
	if r.variants == nil {
		r.variants, r.variantType = map[string]*Schema{}, map[string]reflect.Type{}
	}
	r.variants[name] = s
	r.variantOrder = append(r.variantOrder, name)
	r.schemas[name] = s
	return &Schema{Ref: r.Prefix + name}, nil
}

// Type returns the Go type registered under name, or nil.
func (r *Registry) Type(name string) reflect.Type {
	if t, ok := r.variantType[name]; ok {
		return t
	}
	return r.types[name]
}

// Variant returns s as a registry of the other policy would derive it when
// closed differs from this registry's (see SetClosed), and s itself
// otherwise. Every schema derived from a struct says the opposite:
// additionalProperties: false, or nothing. The named schemas s reaches
// get variant components beside the originals, named with "Closed" or
// "Open" appended ("PetClosed"), so that one document can hold an
// operation of each policy. Call it once every type s reaches is
// registered.
func (r *Registry) Variant(s *Schema, closed bool) *Schema {
	if closed == r.closed || s == nil {
		return s
	}
	suffix := "Open"
	if closed {
		suffix = "Closed"
	}
	if r.variants == nil {
		r.variants, r.variantType = map[string]*Schema{}, map[string]reflect.Type{}
	}
	var cp func(s *Schema) *Schema
	cp = func(s *Schema) *Schema {
		if s == nil {
			return nil
		}
		c := *s
		if s.Ref != "" && strings.HasPrefix(s.Ref, r.Prefix) {
			name := s.Ref[len(r.Prefix):]
			if orig, ok := r.schemas[name]; ok {
				vname := name + suffix
				if _, done := r.variants[vname]; !done {
					v := &Schema{}
					r.variants[vname] = v // before copying: recursive types
					r.variantOrder = append(r.variantOrder, vname)
					r.variantType[vname] = r.types[name]
					r.schemas[vname] = v
					*v = *cp(orig)
				}
				c.Ref = r.Prefix + vname
			}
		}
		if s.derived {
			if closed {
				c.AdditionalProperties = &Schema{False: true}
			} else {
				c.AdditionalProperties = nil
			}
		} else {
			c.AdditionalProperties = cp(s.AdditionalProperties)
		}
		c.Items, c.Not = cp(s.Items), cp(s.Not)
		if s.Properties != nil {
			c.Properties = make(map[string]*Schema, len(s.Properties))
			for k, p := range s.Properties {
				c.Properties[k] = cp(p)
			}
		}
		for _, list := range []*[]*Schema{&c.AllOf, &c.AnyOf, &c.OneOf} {
			if *list != nil {
				out := make([]*Schema, len(*list))
				for i, x := range *list {
					out[i] = cp(x)
				}
				*list = out
			}
		}
		return &c
	}
	return cp(s)
}

// Resolve follows s's $ref, if it has one within this registry, and returns
// the schema it names; otherwise it returns s.
func (r *Registry) Resolve(s *Schema) *Schema {
	if s == nil || s.Ref == "" || !strings.HasPrefix(s.Ref, r.Prefix) {
		return s
	}
	if t, ok := r.schemas[s.Ref[len(r.Prefix):]]; ok {
		return t
	}
	return s
}

// Schema returns the schema of type t: a $ref for a named struct type
// (registering it on first use), an inline schema for anything else. Every
// call returns a new *Schema for the caller to modify; the registered
// component schemas are shared.
func (r *Registry) Schema(t reflect.Type) (*Schema, error) {
	if t.Kind() == reflect.Pointer && !implements(t, providerType) {
		return r.Schema(t.Elem())
	}
	if implements(t, providerType) {
		var v reflect.Value
		switch {
		case t.Kind() == reflect.Pointer:
			v = reflect.New(t.Elem())
		case t.Implements(providerType):
			v = reflect.Zero(t)
		default:
			v = reflect.New(t)
		}
		return v.Interface().(Provider).JSONSchema(r), nil
	}
	switch t {
	case timeType:
		// Go's time.Time reads RFC 3339 with an upper-case T and Z and no
		// leap second, a subset of JSON Schema's date-time: the pattern
		// says which.
		return &Schema{Type: TypeString, Format: "date-time", Pattern: TimePattern}, nil
	case durationType:
		return &Schema{Type: TypeInteger, Format: "int64", Description: "a duration in nanoseconds"}, nil
	case rawMessageType:
		return &Schema{}, nil
	case fileHeaderType:
		return &Schema{Type: TypeString, Format: "binary", ContentMediaType: "application/octet-stream"}, nil
	}
	if implements(t, jsonMarshalerType) {
		if implements(t, textMarshalerType) || implements(t, textUnmarshalType) {
			return &Schema{Type: TypeString}, nil
		}
		return &Schema{}, nil // custom JSON we cannot see into
	}
	if implements(t, textMarshalerType) && implements(t, textUnmarshalType) {
		return &Schema{Type: TypeString}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: TypeBoolean}, nil
	case reflect.Int, reflect.Int64:
		return &Schema{Type: TypeInteger, Format: "int64"}, nil
	case reflect.Int8, reflect.Int16, reflect.Int32:
		return &Schema{Type: TypeInteger, Format: "int32"}, nil
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return &Schema{Type: TypeInteger, Format: "int64", Minimum: ptr(0.0)}, nil
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return &Schema{Type: TypeInteger, Format: "int32", Minimum: ptr(0.0)}, nil
	case reflect.Float32:
		return &Schema{Type: TypeNumber, Format: "float"}, nil
	case reflect.Float64:
		return &Schema{Type: TypeNumber, Format: "double"}, nil
	case reflect.String:
		return &Schema{Type: TypeString}, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice && !implements(reflect.PointerTo(t.Elem()), textUnmarshalType) {
			return &Schema{Type: TypeString, ContentEncoding: "base64"}, nil
		}
		items, err := r.Schema(t.Elem())
		if err != nil {
			return nil, err
		}
		s := &Schema{Type: TypeArray, Items: items}
		if t.Kind() == reflect.Array {
			s.MinItems, s.MaxItems = ptr(t.Len()), ptr(t.Len())
		}
		return s, nil
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		default:
			if !implements(t.Key(), textMarshalerType) {
				return nil, fmt.Errorf("schema: %v: map key type %v cannot be a JSON object key", t, t.Key())
			}
		}
		v, err := r.Schema(t.Elem())
		if err != nil {
			return nil, err
		}
		return &Schema{Type: TypeObject, AdditionalProperties: v}, nil
	case reflect.Interface:
		return &Schema{}, nil
	case reflect.Struct:
		if t.Name() == "" {
			return r.structSchema(t)
		}
		name, err := r.register(t)
		if err != nil {
			return nil, err
		}
		ref := &Schema{Ref: r.Prefix + name}
		r.refs[t] = append(r.refs[t], ref) // renamed with t, should t be
		return ref, nil
	}
	return nil, fmt.Errorf("schema: type %v (%v) has no JSON representation", t, t.Kind())
}

// register names t and derives its schema, once.
//
// A type whose base name no other type has, and that no type is named
// already, takes its base name and renames nothing: that is what assign
// would decide, at the cost of one map lookup. Only a type whose name
// clashes makes assign name every type again, so that the names stay a
// function of the set of types.
func (r *Registry) register(t reflect.Type) (string, error) {
	if name, ok := r.names[t]; ok {
		return name, nil
	}
	base := TypeName(t)
	if implements(t, namerType) {
		base = reflect.New(t).Interface().(Namer).SchemaName()
	}
	// Name it first so that recursive references resolve.
	r.bases[t] = base
	r.shared[base]++
	r.order = append(r.order, t)
	if _, taken := r.types[base]; !taken && r.shared[base] == 1 {
		r.names[t] = base
		r.types[base] = t
	} else {
		r.assign()
	}
	s, err := r.structSchema(t)
	if err != nil {
		delete(r.bases, t)
		delete(r.refs, t)
		if r.shared[base]--; r.shared[base] == 0 {
			delete(r.shared, base)
		}
		r.order = slices.DeleteFunc(r.order, func(u reflect.Type) bool { return u == t })
		r.assign()
		return "", err
	}
	r.byType[t] = s
	if _, defined := r.variants[r.names[t]]; !defined {
		r.schemas[r.names[t]] = s
	}
	return r.names[t], nil
}

// assign names every registered type, from the set of types alone (see
// Registry), and renames the $refs of the types whose name changed.
func (r *Registry) assign() {
	r.renamings++
	// A base name shared by types of several packages is qualified.
	pkgs := map[string]map[string]bool{} // base → package paths
	for _, t := range r.order {
		b := r.bases[t]
		if pkgs[b] == nil {
			pkgs[b] = map[string]bool{}
		}
		pkgs[b][t.PkgPath()] = true
	}
	byName := map[string][]reflect.Type{}
	for _, t := range r.order {
		name := r.bases[t]
		if len(pkgs[name]) > 1 {
			name = exportName(pkgName(t.PkgPath())) + name
		}
		byName[name] = append(byName[name], t)
	}
	// Names still shared: the first by package path and type name keeps
	// it, the others are numbered.
	clashes := make([]string, 0, len(byName))
	for name, ts := range byName {
		if len(ts) > 1 {
			clashes = append(clashes, name)
		}
	}
	sort.Strings(clashes)
	names := make(map[reflect.Type]string, len(r.order))
	for name, ts := range byName {
		names[ts[0]] = name
	}
	for _, name := range clashes {
		ts := byName[name]
		sort.SliceStable(ts, func(i, j int) bool { return typeKey(ts[i]) < typeKey(ts[j]) })
		names[ts[0]] = name
		n := 2
		for _, t := range ts[1:] {
			for ; byName[fmt.Sprintf("%s%d", name, n)] != nil; n++ {
			}
			numbered := fmt.Sprintf("%s%d", name, n)
			byName[numbered] = []reflect.Type{t}
			names[t] = numbered
		}
	}
	clear(r.types)
	clear(r.schemas)
	for t, name := range names {
		if old, ok := r.names[t]; ok && old != name {
			for _, ref := range r.refs[t] {
				ref.Ref = r.Prefix + name
			}
		}
		r.types[name] = t
		if s := r.byType[t]; s != nil {
			r.schemas[name] = s
		}
	}
	for name, s := range r.variants {
		r.schemas[name] = s
	}
	r.names = names
}

// typeKey orders types for numbering: package path, then name.
func typeKey(t reflect.Type) string { return t.PkgPath() + "\x00" + t.Name() }

// TimePattern is what a time.Time decodes from, within the date-time
// format: upper-case T and Z, seconds up to 59 (time.Time has no leap
// second).
const TimePattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-5][0-9](\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$`

// DurationPattern matches the text of a Go duration, as time.ParseDuration
// reads it and time.Duration's String method writes it: "1m30s", "-1.5h",
// "250ms", "0".
const DurationPattern = `^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`

// DurationText describes a duration written as Go duration text.
const DurationText = "A Go duration (time.ParseDuration): decimal numbers, each with a unit of h, m, s, ms, us (µs) or ns, such as 1m30s or 250ms."

// TextSchema returns the schema of a field whose value travels as text (a
// parameter, a form value, a response header): its FieldSchema, except
// that a time.Duration (or a pointer to one, or a slice of them), which
// is text such as "1m30s" there, is a string with [DurationPattern] rather
// than JSON's integer of nanoseconds. (JSON Schema's "duration" format is
// ISO 8601, "PT1M30S", so it is not used.)
func (r *Registry) TextSchema(f *Field) (*Schema, error) {
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	elem := t
	if t.Kind() == reflect.Slice {
		for elem = t.Elem(); elem.Kind() == reflect.Pointer; elem = elem.Elem() {
		}
	}
	if elem != durationType {
		return r.FieldSchema(f)
	}
	s := &Schema{Type: TypeString, Pattern: DurationPattern, Description: DurationText}
	if t.Kind() == reflect.Slice {
		s = &Schema{Type: TypeArray, Items: s}
	}
	if err := Apply(s, f.Type, f.Tag); err != nil {
		return nil, err
	}
	return s, nil
}

// structSchema describes a struct type's properties.
func (r *Registry) structSchema(t reflect.Type) (*Schema, error) {
	s := &Schema{Type: TypeObject, Properties: map[string]*Schema{}}
	for _, f := range Fields(t) {
		fs, err := r.FieldSchema(&f)
		if err != nil {
			return nil, fmt.Errorf("%v.%s: %w", t, f.GoName, err)
		}
		s.Properties[f.Name] = fs
		s.PropertyOrder = append(s.PropertyOrder, f.Name)
		if f.Required() {
			s.Required = append(s.Required, f.Name)
		}
	}
	if implements(t, openType) {
		return s, nil // members beyond its fields may appear: never closed
	}
	if r.closed {
		s.AdditionalProperties = &Schema{False: true}
	}
	s.derived = true
	return s, nil
}

// FieldSchema returns the schema of a struct field: its type's schema with
// the field's tags applied (see [Apply]).
func (r *Registry) FieldSchema(f *Field) (*Schema, error) {
	s, err := r.Schema(f.Type)
	if err != nil {
		return nil, err
	}
	if f.String {
		switch s.Type {
		case TypeInteger, TypeNumber, TypeBoolean:
			s.Type, s.Format = TypeString, ""
		}
	}
	if err := Apply(s, f.Type, f.Tag); err != nil {
		return nil, err
	}
	return s, nil
}

// TypeName returns the readable name of a named type: its Go name with any
// type arguments' names appended, package paths and punctuation removed
// (Page[example.com/x.Item] is "PageItem", Pair[string,int] is
// "PairStringInt").
func TypeName(t reflect.Type) string {
	name := t.Name()
	open := strings.IndexByte(name, '[')
	if open < 0 {
		return name
	}
	var b strings.Builder
	b.WriteString(name[:open])
	for _, tok := range strings.FieldsFunc(name[open:], func(c rune) bool {
		return c == '[' || c == ']' || c == ',' || c == '*' || c == ' '
	}) {
		if i := strings.LastIndexByte(tok, '.'); i >= 0 {
			tok = tok[i+1:]
		}
		b.WriteString(exportName(pkgName(tok))) // letters and digits only
	}
	return b.String()
}

func pkgName(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		path = path[i+1:]
	}
	return strings.Map(func(c rune) rune {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			return c
		}
		return -1
	}, path)
}

func exportName(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(iface))
}
