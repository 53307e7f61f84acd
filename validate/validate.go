// Package validate checks Go values against the JSON Schema keywords of
// their struct tags, with validators compiled once per type.
//
// Compile turns a type and its schema (package schema derives it from the
// same tags the OpenAPI document shows) into a tree of small checkers that
// read the value in place. A value that passes costs no allocation: the
// checkers first run in a fast mode that stops at the first failure and
// builds nothing; only when something fails do they run again to collect
// every failure with its location (body.items[2].name) and the value
// received.
//
// What JSON Schema checks on the JSON instance but a Go value cannot show,
// the presence of required properties, a null where the schema does not
// allow one, and whether an omitempty property at its zero value was sent
// (then its rules apply), is checked on the raw JSON body by a compiled
// scanner (see
// Validator.Validate), also without allocating.
//
// Rules that need code are not this package's: a typed operation's input
// says them in its Resolve method (vane.Resolver), which runs after the
// tag rules pass.
package validate

import (
	"context"
	"fmt"
	"github.com/vane-http/vane/internal/addr"
	"reflect"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// Validator validates values of one type.
type Validator struct {
	typ      reflect.Type
	ptrType  reflect.Type    // *T, to check Validate's argument
	root     *structNode     // nil when there is nothing to check
	body     *scanNode       // required-property and null scanner for the raw JSON body; nil when nothing to scan inside
	bodyNul  string          // the failure of a null JSON body; "" when the body's schema allows null
	scan     bool            // the raw JSON body is scanned: body != nil or bodyNul != ""
	inst     *instanceSchema // the whole body's evaluation, when its schema needs one; else nil
	messages messageTags     // the message tags of an input's fields, by location without indexes
	bodyLoc  string          // the location of the raw JSON body's root ("body")
	bodyOff  uintptr         // where the decoded body lies in the value
	bodyPtr  int             // pointers to follow from there to what body describes
}

// Compile returns a validator for values of type t, a body type: locations
// start at root ("body"), required properties are checked on the raw JSON
// passed to Validate. reg provides the field schemas and receives the named
// types met; nil means a private registry.
func Compile(t reflect.Type, reg *schema.Registry, root string) (*Validator, error) {
	c := newCompiler(reg)
	n, err := c.compile(t, nil)
	if err != nil {
		return nil, err
	}
	v := &Validator{typ: t, bodyLoc: root}
	s, err := c.reg.Schema(t)
	if err != nil {
		return nil, err
	}
	if err := v.bodyScanner(c, t, s); err != nil {
		return nil, fmt.Errorf("validate: %v: %w", t, err)
	}
	v.bodyPtr = derefs(t)
	if n != nil {
		// The value itself is the one "field" of the root, named root.
		v.root = &structNode{root: true, fields: []fieldNode{{name: root, n: n}}}
	}
	return v.finish()
}

// Input returns a validator for an input struct type: fields tagged path,
// query, header or cookie are checked at locations such as query.limit, the
// field named Body at body…; other fields are not checked. The raw JSON
// passed to Validate is the Body field's.
func Input(t reflect.Type, reg *schema.Registry) (*Validator, error) {
	return InputFor(t, reg, reg != nil && reg.Closed())
}

// InputFor is Input for an operation whose JSON body's struct schemas are
// closed (additionalProperties: false) or not, whatever reg's own policy:
// the body is checked against reg.Variant of its schema.
func InputFor(t reflect.Type, reg *schema.Registry, closed bool) (*Validator, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("validate: input type %v is not a struct", t)
	}
	c := newCompiler(reg)
	s := &structNode{}
	v := &Validator{typ: t, bodyLoc: "body"}
	nparam := 0
	var form *reflect.StructField // a form Body: its fields follow the parameters'
	messages := messageTags{}     // by location, from the message tags (see MessageTag)
	for _, sf := range operation.InputFields(t) {
		if !sf.IsExported() {
			continue
		}
		loc := ""
		if in, name, ok := operation.Source(sf.Tag); ok {
			loc = in + "." + name
		}
		if sf.Name == "Body" && loc == "" {
			loc = "body"
			messages.tag(sf.Tag, loc)
			if operation.IsForm(sf.Type) {
				form = &sf
				continue
			}
			walkMessages(sf.Type, loc, messages, map[reflect.Type]bool{})
		} else if loc != "" {
			messages.tag(sf.Tag, loc)
		}
		if loc == "" {
			continue
		}
		f := schema.Field{Name: sf.Name, GoName: sf.Name, Index: sf.Index, Type: sf.Type, Tag: sf.Tag, Struct: sf}
		fs, err := c.reg.FieldSchema(&f)
		var n node
		if err == nil {
			n, err = c.compile(sf.Type, fs)
		}
		if err == nil && loc == "body" {
			err = v.bodyScanner(c, sf.Type, c.reg.Variant(fs, closed))
			v.bodyOff, v.bodyPtr = sf.Offset, derefs(sf.Type)
		}
		if err == nil && loc != "body" && needsInstance(c.reg, fs) {
			err = fmt.Errorf("allOf, anyOf, oneOf, not, const and dependentRequired are enforced on JSON bodies only, not on the %s parameter", loc)
		}
		if err != nil {
			return nil, fmt.Errorf("validate: %v.%s: %w", t, sf.Name, err)
		}
		var bit uint64
		if loc != "body" {
			if nparam < 64 {
				bit = 1 << nparam
			}
			nparam++
		}
		if n != nil {
			s.fields = append(s.fields, fieldNode{offset: sf.Offset, name: loc, n: n, bit: bit})
		}
	}
	if form != nil {
		for i := 0; i < form.Type.NumField(); i++ {
			if f := form.Type.Field(i); f.IsExported() {
				if name, ok := f.Tag.Lookup("form"); ok {
					messages.tag(f.Tag, "body."+name)
				}
			}
		}
		fields, err := c.form(form.Type, form.Offset, nparam)
		if err != nil {
			return nil, fmt.Errorf("validate: %v.%s: %w", t, form.Name, err)
		}
		s.fields = append(s.fields, fields...)
	}
	if len(s.fields) > 0 {
		s.root = true
		v.root = s
	}
	if len(messages) > 0 {
		v.messages = messages
	}
	return v.finish()
}

// form compiles the fields of a form body at offset in the input, as
// fields of the input's root named body.<form name>. Like parameters, they
// are checked when the form carried them, whatever their value (count=0 is
// checked, a missing count is not; the binder reports missing required
// ones): the j-th form field has presence bit nparam+j, as bind.Compile
// numbers them. Past the 64th bit, a field left at its zero value counts as
// absent.
func (c *compiler) form(t reflect.Type, offset uintptr, nparam int) ([]fieldNode, error) {
	var fields []fieldNode
	j := 0
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, ok := sf.Tag.Lookup("form")
		if !ok || !sf.IsExported() {
			continue
		}
		var bit uint64
		if k := nparam + j; k < 64 {
			bit = 1 << k
		}
		j++
		f := schema.Field{Name: name, GoName: sf.Name, Index: sf.Index, Type: sf.Type, Tag: sf.Tag, Struct: sf}
		fs, err := c.reg.FieldSchema(&f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sf.Name, err)
		}
		n, err := c.compile(sf.Type, fs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sf.Name, err)
		}
		if n == nil {
			continue
		}
		fn := fieldNode{offset: offset + sf.Offset, name: string(problem.Location("body").Field(name)), n: n, bit: bit}
		if bit == 0 {
			fn.omit = sf.Type.Kind()
		}
		fields = append(fields, fn)
	}
	return fields, nil
}

// bodyScanner compiles the scanner of a JSON body of type t and schema s:
// required properties and nulls where the schema does not allow them, and
// the evaluation of the whole body when s uses keywords that only it
// enforces (see instanceSchema).
func (v *Validator) bodyScanner(c *compiler, t reflect.Type, s *schema.Schema) error {
	if t == bytesType {
		return nil // the raw body, not JSON
	}
	if err := checkDefaults(c.reg, s); err != nil {
		return err
	}
	v.body = c.scanner(t, s)
	v.bodyNul = c.nullMsg(s)
	if needsInstance(c.reg, s) {
		inst, err := compileInstance(c.reg, s)
		if err != nil {
			return err
		}
		v.inst = inst
	}
	v.scan = v.body != nil || v.bodyNul != "" || v.inst != nil
	return nil
}

var bytesType = reflect.TypeFor[[]byte]()

func (v *Validator) finish() (*Validator, error) {
	v.ptrType = reflect.PointerTo(v.typ)
	return v, nil
}

// CheckParams checks the tag rules of the parameters and form fields
// marked in present (see ValidateInput) and nothing else, not a JSON
// body. Registration uses it to check defaults against their rules.
func (v *Validator) CheckParams(ptr any, present uint64) []problem.FieldError {
	if v.root == nil {
		return nil
	}
	p := v.pointer(ptr, "CheckParams")
	params := &structNode{root: true}
	for _, f := range v.root.fields {
		if f.bit&present != 0 {
			params.fields = append(params.fields, f)
		}
	}
	c := &collector{}
	params.check(p, c)
	return c.errs
}

// Empty reports whether the validator checks nothing at all, so that a
// caller may skip it.
func (v *Validator) Empty() bool { return v.root == nil && !v.scan }

// Type returns the type the validator checks.
func (v *Validator) Type() reflect.Type { return v.typ }

// pointer returns what ptr points to, after checking that it is a *T.
func (v *Validator) pointer(ptr any, method string) addr.Addr {
	if reflect.TypeOf(ptr) != v.ptrType {
		panic(fmt.Sprintf("validate: %s called with %T, want *%v", method, ptr, v.typ))
	}
	return addr.OfPointer(ptr) // its type is v.ptrType, a pointer
}

// Validate checks *ptr, which must be a pointer to the validator's type, and
// returns every failure, or nil. rawJSON, when not nil, is the JSON the body
// was decoded from: the presence of required properties is checked on it,
// and so are nulls and the rules of omitempty properties sent at their zero
// value (without it, such a zero value counts as absent).
// On success it allocates nothing.
func (v *Validator) Validate(ctx context.Context, ptr any, rawJSON []byte) []problem.FieldError {
	return v.ValidateInput(ctx, ptr, rawJSON, allPresent)
}

// ValidateInput is Validate for an input struct whose binder knows which
// parameters the request carried: bit i of present stands for the i-th
// parameter field (path, query, header or cookie, in field order; the
// 65th and later are always checked), and the bits after the parameters'
// for the fields of a form body, in field order (past the 64th bit, a form
// field at its zero value counts as absent). An absent parameter or form
// field is not checked, as JSON Schema does not check an absent property;
// one the request carried is, whatever its value (?page=0, count=0).
func (v *Validator) ValidateInput(ctx context.Context, ptr any, rawJSON []byte, present uint64) []problem.FieldError {
	p := v.pointer(ptr, "Validate")
	ok := true
	if v.root != nil {
		// The fast pass over the root's fields, inline: an input's fields
		// are never embedded pointers, and omit only for form fields past
		// the 64th presence bit.
		for i := range v.root.fields {
			f := &v.root.fields[i]
			if f.bit != 0 && f.bit&present == 0 {
				continue
			}
			q := p.Field(f.offset)
			if f.omit != reflect.Invalid && isEmpty(f.omit, q) {
				continue
			}
			if !f.n.check(q, nil) {
				ok = false
				break
			}
		}
	}
	if ok && v.scan && rawJSON != nil {
		ok = scanOK(v.body, v.bodyNul, rawJSON, deref(p.Field(v.bodyOff), v.bodyPtr))
		if ok && v.inst != nil {
			ok = v.inst.validate(rawJSON, nil)
		}
	}
	if !ok {
		c := &collector{}
		if v.root != nil {
			v.root.checkPresent(p, c, present)
		}
		if v.scan && rawJSON != nil {
			c.loc = append(c.loc[:0], v.bodyLoc...)
			scanCollect(v.body, v.bodyNul, rawJSON, deref(p.Field(v.bodyOff), v.bodyPtr), c)
			if v.inst != nil {
				c.loc = append(c.loc[:0], v.bodyLoc...)
				v.inst.validate(rawJSON, c)
			}
		}
		return v.Messages(c.errs)
	}
	return nil
}

// collector gathers failures and tracks the location being checked. A nil
// *collector means fast mode: stop at the first failure, build nothing.
type collector struct {
	loc  problem.Location
	errs []problem.FieldError
}

func (c *collector) add(msg string, value any) {
	c.errs = append(c.errs, problem.FieldError{Location: string(c.loc), Message: msg, Value: value})
}

func (c *collector) push(name string) int {
	n := len(c.loc)
	c.loc = c.loc.Field(name)
	return n
}

func (c *collector) pushIndex(i int) int {
	n := len(c.loc)
	c.loc = c.loc.Index(i)
	return n
}

func (c *collector) pop(n int) { c.loc = c.loc[:n] }

// node checks the value at p.
type node interface {
	check(p addr.Addr, c *collector) bool
}

// structNode checks the fields of a struct that have something to check.
type structNode struct {
	fields []fieldNode
	root   bool // field names are whole locations (path.id): replace, don't append
}

type fieldNode struct {
	offset uintptr
	embed  []uintptr    // offsets of embedded pointers to follow first (rare)
	name   string       // JSON name, or the whole location for an input's fields
	n      node         // the checks
	omit   reflect.Kind // with omitempty: the kind whose zero value means absent, else Invalid
	bit    uint64       // for an input's parameters: the presence bit (0: always present)
}

func (s *structNode) check(p addr.Addr, c *collector) bool {
	return s.checkPresent(p, c, allPresent)
}

const allPresent = ^uint64(0)

func (s *structNode) checkPresent(p addr.Addr, c *collector, present uint64) bool {
	ok := true
	for i := range s.fields {
		f := &s.fields[i]
		if f.bit&present == 0 && f.bit != 0 {
			continue
		}
		q := p
		if f.embed != nil {
			if q = followEmbedded(q, f.embed); q.IsNil() {
				continue
			}
		}
		q = q.Field(f.offset)
		if f.omit != reflect.Invalid && isEmpty(f.omit, q) {
			continue // omitted from the JSON: nothing to check
		}
		if c == nil {
			if !f.n.check(q, nil) {
				return false
			}
			continue
		}
		var m int
		if s.root {
			m = len(c.loc)
			c.loc = append(c.loc[:0], f.name...)
		} else {
			m = c.push(f.name)
		}
		if !f.n.check(q, c) {
			ok = false
		}
		c.pop(m)
	}
	return ok
}

// isEmpty reports whether the value at p, of kind k, is at the zero value
// that makes the checkers take an omitempty field for absent: an empty
// string or slice, a nil pointer or map, false, 0. That is omitempty's
// rule but for maps: a non-nil empty map counts as present (its length
// needs reflect) and is checked with its value, and so is an array or an
// interface.
func isEmpty(k reflect.Kind, p addr.Addr) bool {
	switch k {
	case reflect.String:
		return len(*addr.As[string](p)) == 0
	case reflect.Slice:
		_, n := p.Slice()
		return n == 0
	case reflect.Map, reflect.Pointer:
		return p.Deref().IsNil()
	case reflect.Bool:
		return !*addr.As[bool](p)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return load(k, p) == 0
	}
	return false
}

func followEmbedded(p addr.Addr, offsets []uintptr) addr.Addr {
	for _, off := range offsets {
		p = p.Field(off).Deref()
		if p.IsNil() {
			return addr.Addr{}
		}
	}
	return p
}

// ptrNode checks what a non-nil pointer points to.
type ptrNode struct{ elem node }

func (n *ptrNode) check(p addr.Addr, c *collector) bool {
	q := p.Deref()
	if q.IsNil() {
		return true
	}
	return n.elem.check(q, c)
}

// listNode checks a slice or an array: its length, uniqueness and items.
// Every check is linear in the number of items: a list longer than
// maxItems is refused on its length alone, before its items are read.
type listNode struct {
	array    bool // a Go array of length alen, in place
	alen     int
	elemSize uintptr
	minItems int // -1 when absent
	maxItems int // -1 when absent
	unique   bool
	equal    func(a, b addr.Addr) bool
	key      func(p addr.Addr) string // the item's identity for uniqueItems: equal items, equal keys
	elem     node                     // nil when items have nothing to check
	value    func(p addr.Addr) any
}

func (n *listNode) check(p addr.Addr, c *collector) bool {
	data, length := p, n.alen
	if !n.array {
		data, length = p.Slice()
	}
	if n.maxItems >= 0 && length > n.maxItems {
		if c == nil {
			return false
		}
		c.add(fmt.Sprintf("expected at most %d items", n.maxItems), length)
		return false // the items of a list too long are not read
	}
	ok := true
	if n.minItems >= 0 && length < n.minItems {
		if c == nil {
			return false
		}
		c.add(fmt.Sprintf("expected at least %d items", n.minItems), length)
		ok = false
	}
	if n.unique {
		if i, j := n.duplicate(data, length); i >= 0 {
			if c == nil {
				return false
			}
			m := c.pushIndex(j)
			c.add(fmt.Sprintf("expected unique items: same as item %d", i), n.value(data.Index(j, n.elemSize)))
			c.pop(m)
			ok = false
		}
	}
	if n.elem != nil {
		for i := 0; i < length; i++ {
			q := data.Index(i, n.elemSize)
			if c == nil {
				if !n.elem.check(q, nil) {
					return false
				}
				continue
			}
			m := c.pushIndex(i)
			if !n.elem.check(q, c) {
				ok = false
			}
			c.pop(m)
		}
	}
	return ok
}

// smallList is the length up to which duplicate compares pairs, which
// allocates nothing; longer lists go through a set of item keys.
const smallList = 16

// duplicate returns the indexes of the first pair of equal items (the
// first item that repeats an earlier one, and that earlier one), or -1.
// Up to smallList items it compares pairs without allocating; above, it
// keeps a set of the items' keys, so its time is linear in the items'
// total size and it allocates the set.
func (n *listNode) duplicate(data addr.Addr, length int) (int, int) {
	if length <= smallList {
		for j := 1; j < length; j++ {
			b := data.Index(j, n.elemSize)
			for i := 0; i < j; i++ {
				if n.equal(data.Index(i, n.elemSize), b) {
					return i, j
				}
			}
		}
		return -1, -1
	}
	seen := make(map[string]int, length)
	for j := 0; j < length; j++ {
		k := n.key(data.Index(j, n.elemSize))
		if i, dup := seen[k]; dup {
			return i, j
		}
		seen[k] = j
	}
	return -1, -1
}

// mapNode checks a map's size and its values. Walking a map's values goes
// through reflect and may allocate; its size checks do not.
type mapNode struct {
	typ      reflect.Type
	min, max int // -1 when absent
	elem     node
}

func (n *mapNode) check(p addr.Addr, c *collector) bool {
	m := p.Value(n.typ)
	ok := true
	size := m.Len()
	if n.min >= 0 && size < n.min {
		if c == nil {
			return false
		}
		c.add(fmt.Sprintf("expected at least %d properties", n.min), size)
		ok = false
	}
	if n.max >= 0 && size > n.max {
		if c == nil {
			return false
		}
		c.add(fmt.Sprintf("expected at most %d properties", n.max), size)
		ok = false
	}
	if n.elem == nil || size == 0 {
		return ok
	}
	it := m.MapRange()
	val := reflect.New(n.typ.Elem()).Elem()
	for it.Next() {
		val.SetIterValue(it)
		q := addr.OfValue(val.Addr())
		if c == nil {
			if !n.elem.check(q, nil) {
				return false
			}
			continue
		}
		mark := c.push(fmt.Sprint(it.Key().Interface()))
		if !n.elem.check(q, c) {
			ok = false
		}
		c.pop(mark)
	}
	return ok
}

// valueOf returns a function that boxes the value at p, for error reports.
func valueOf(t reflect.Type) func(p addr.Addr) any {
	return func(p addr.Addr) any { return p.Value(t).Interface() }
}
