// Package jsonpatch changes JSON documents as a JSON Patch (RFC 6902) or
// a JSON merge patch (RFC 7396) says, addressing their members with JSON
// Pointers (RFC 6901).
//
// A document is held as encoding/json decodes it into an any with
// UseNumber (see Unmarshal): nil, bool, json.Number, string, []any and
// map[string]any. Numbers keep their text, so that nothing is rounded,
// and are compared by value (Equal).
//
// Every step of Apply is counted: values visited and copied, array
// elements shifted, bytes compared. A patch is refused (ErrTooCostly)
// once its work passes a budget proportional to the sizes of the document
// and the patch, or what it copies (and so allocates) passes a smaller
// one, so that what a patch costs in time and memory is linear in what
// was sent, whatever its operations do (a copy of the whole document into
// itself, again and again; a thousand insertions at the head of a long
// array).
package jsonpatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// DefaultMaxOperations is the number of operations a patch may hold when
// Decode is not told otherwise.
const DefaultMaxOperations = 1000

// Operation is one operation of a JSON Patch: Op is add, remove,
// replace, move, copy or test; From is set for move and copy, Value for
// add, replace and test.
type Operation struct {
	Op    string
	Path  Pointer
	From  Pointer
	Value any
}

// Patch is a JSON Patch: operations applied in order, all or none.
type Patch []Operation

// Error is a patch that is not a valid JSON Patch, or that cannot be
// applied to the document: which operation (Index, from 0; -1 for the
// patch as a whole), which of its members (Member: op, path, from or
// value; "" for none), the pointer involved, and why, in words that name
// the patch's own terms only.
type Error struct {
	Index   int
	Member  string
	Pointer string
	Reason  string
	// Test is set for a test operation that found another value, or
	// nothing, at its path: the document is not as the patch expects.
	Test bool

	tooCostly bool
}

func (e *Error) Error() string {
	s := "JSON Patch"
	if e.Index >= 0 {
		s += " operation " + strconv.Itoa(e.Index)
	}
	switch {
	case e.Member == "path" || e.Member == "from":
		s += " (" + e.Member + " " + strconv.Quote(e.Pointer) + ")"
	case e.Member != "":
		s += " (" + e.Member + ")"
	}
	return s + ": " + e.Reason
}

// Is makes errors.Is(err, ErrTestFailed) report a failed test, and
// errors.Is(err, ErrTooCostly) a patch over its budget.
func (e *Error) Is(target error) bool {
	return (target == ErrTestFailed && e.Test) || (target == ErrTooCostly && e.tooCostly)
}

var (
	// ErrTestFailed matches (errors.Is) the Error of a test operation
	// that failed.
	ErrTestFailed = errors.New("a test operation failed")
	// ErrTooCostly matches (errors.Is) the Error of a patch whose work
	// passed its budget.
	ErrTooCostly = errors.New("the patch takes more work than its size allows")
)

// Decode reads a JSON Patch document: an array of at most maxOps
// operation objects (DefaultMaxOperations when maxOps <= 0), each with an
// op and a path, a from for move and copy, a value (null included) for
// add, replace and test; other members are ignored (RFC 6902 section 4),
// and none may appear twice.
// It stops at the first operation past maxOps. Its errors are *Error.
func Decode(data []byte, maxOps int) (Patch, error) {
	if maxOps <= 0 {
		maxOps = DefaultMaxOperations
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	whole := func(reason string) error { return &Error{Index: -1, Reason: reason} }
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, whole("a JSON Patch is an array of operations")
	}
	var p Patch
	for dec.More() {
		i := len(p)
		if i == maxOps {
			return nil, whole("a JSON Patch holds at most " + strconv.Itoa(maxOps) + " operations")
		}
		m, err := decodeObject(dec)
		if err != nil {
			err.Index = i
			return nil, err
		}
		op, err := decodeOperation(m)
		if err != nil {
			err.Index = i
			return nil, err
		}
		p = append(p, op)
	}
	if _, err := dec.Token(); err != nil {
		return nil, whole("a JSON Patch is an array of operations")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, whole("more than one JSON value")
	}
	return p, nil
}

// decodeObject reads one operation object, refusing a member name that
// appears twice (RFC 6902 appendix A.13).
func decodeObject(dec *json.Decoder) (map[string]any, *Error) {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, &Error{Reason: "an operation is a JSON object"}
	}
	m := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		name, ok := tok.(string)
		if err != nil || !ok {
			return nil, &Error{Reason: "not well-formed JSON"}
		}
		if _, dup := m[name]; dup {
			return nil, &Error{Member: name, Reason: "the member " + strconv.Quote(name) + " appears twice"}
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, &Error{Reason: "not well-formed JSON"}
		}
		m[name] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, &Error{Reason: "not well-formed JSON"}
	}
	return m, nil
}

func decodeOperation(m map[string]any) (Operation, *Error) {
	var op Operation
	v, present := m["op"]
	if !present {
		return op, &Error{Member: "op", Reason: "required"}
	}
	name, ok := v.(string)
	if !ok {
		return op, &Error{Member: "op", Reason: "op is a string"}
	}
	op.Op = name
	var needFrom, needValue bool
	switch name {
	case "add", "replace", "test":
		needValue = true
	case "remove":
	case "move", "copy":
		needFrom = true
	default:
		return op, &Error{Member: "op", Reason: strconv.Quote(name) + " is not an operation: add, remove, replace, move, copy or test"}
	}
	pointer := func(member string) (Pointer, *Error) {
		v, present := m[member]
		if !present {
			return nil, &Error{Member: member, Reason: "required for " + name}
		}
		s, ok := v.(string)
		if !ok {
			return nil, &Error{Member: member, Reason: member + " is a JSON Pointer, a string"}
		}
		p, err := ParsePointer(s)
		if err != nil {
			return nil, &Error{Member: member, Pointer: s, Reason: err.Error()}
		}
		return p, nil
	}
	var err *Error
	if op.Path, err = pointer("path"); err != nil {
		return op, err
	}
	if needFrom {
		if op.From, err = pointer("from"); err != nil {
			return op, err
		}
	}
	if needValue {
		v, present := m["value"]
		if !present {
			return op, &Error{Member: "value", Reason: "required for " + name}
		}
		op.Value = v
	}
	return op, nil
}

// Apply applies p to doc and returns the result; doc itself is changed
// (decode it again, or keep a clone, to keep the original). Operations are
// applied in order (RFC 6902 sections 4 and 5); the first that fails ends
// the patch with an *Error, and the result is then nil. An array index is
// "0" or digits without a leading zero; "-" names the place after an
// array's last element, and only add (or the path of move and copy)
// may use it. move from a location into one of its own children fails;
// move to itself changes nothing. test compares with Equal.
func Apply(doc any, p Patch) (any, error) {
	out, _, err := apply(doc, p)
	return out, err
}

// Budget is the work Apply allows a patch of patchSize on a document of
// docSize (sizes in values plus the bytes of their strings): WorkPerUnit
// units each, and at least MinBudget.
func Budget(docSize, patchSize int) int {
	return max(MinBudget, WorkPerUnit*(docSize+patchSize))
}

// CopyBudget is the part of Budget that Apply allows for copying values
// (which allocates): CopyPerUnit units for each unit of size, at least
// MinCopyBudget.
func CopyBudget(docSize, patchSize int) int {
	return max(MinCopyBudget, CopyPerUnit*(docSize+patchSize))
}

const (
	// WorkPerUnit is the work a patch may do for each unit of the sizes
	// of the document and the patch.
	WorkPerUnit = 64
	// MinBudget is the work any patch may do: a few milliseconds.
	MinBudget = 1 << 22
	// CopyPerUnit is the size a patch may copy for each unit of the
	// sizes of the document and the patch.
	CopyPerUnit = 4
	// MinCopyBudget is the size any patch may copy: some tens of
	// megabytes of memory at the most.
	MinCopyBudget = 1 << 20
)

// applier applies one patch, counting its work against its budget.
type applier struct {
	work
	budget int
	copied int // the size copied so far
	copies int // the most it may copy
	index  int // the operation being applied
}

func apply(doc any, p Patch) (any, int, error) {
	ps := 0
	for _, op := range p {
		ps += 1 + len(op.Path) + len(op.From) + size(op.Value)
	}
	ds := size(doc)
	a := &applier{budget: Budget(ds, ps), copies: CopyBudget(ds, ps)}
	for i, op := range p {
		a.index = i
		var err *Error
		if doc, err = a.do(doc, op); err != nil {
			err.Index = i
			return nil, a.n, err
		}
	}
	return doc, a.n, nil
}

// spend counts n units of work, and fails past the budget.
func (a *applier) spend(n int) *Error {
	a.n += n
	if a.n > a.budget {
		return &Error{Reason: ErrTooCostly.Error(), tooCostly: true}
	}
	return nil
}

func (a *applier) do(doc any, op Operation) (any, *Error) {
	if err := a.spend(1 + len(op.Path) + len(op.From)); err != nil {
		return nil, err
	}
	at := func(member string, p Pointer, err *Error) *Error {
		if err != nil && err.Member == "" {
			err.Member, err.Pointer = member, p.String()
		}
		return err
	}
	switch op.Op {
	case "add":
		v, err := a.copyOf(op.Value)
		if err != nil {
			return nil, err
		}
		doc, err = a.put(doc, op.Path, v, true)
		return doc, at("path", op.Path, err)
	case "remove":
		if len(op.Path) == 0 {
			return nil, &Error{Member: "path", Reason: "the whole document cannot be removed"}
		}
		doc, _, err := a.remove(doc, op.Path)
		return doc, at("path", op.Path, err)
	case "replace":
		if _, err := a.get(doc, op.Path); err != nil {
			return nil, at("path", op.Path, err)
		}
		v, err := a.copyOf(op.Value)
		if err != nil {
			return nil, err
		}
		doc, err = a.put(doc, op.Path, v, false)
		return doc, at("path", op.Path, err)
	case "move":
		if op.From.properPrefixOf(op.Path) {
			return nil, &Error{Member: "path", Pointer: op.Path.String(), Reason: "a location cannot be moved into one of its own children"}
		}
		if len(op.From) == 0 { // moved onto itself: the path is the root too
			return doc, nil
		}
		doc, v, err := a.remove(doc, op.From)
		if err != nil {
			return nil, at("from", op.From, err)
		}
		doc, err = a.put(doc, op.Path, v, true)
		return doc, at("path", op.Path, err)
	case "copy":
		v, err := a.get(doc, op.From)
		if err != nil {
			return nil, at("from", op.From, err)
		}
		if v, err = a.copyOf(v); err != nil {
			return nil, err
		}
		doc, err = a.put(doc, op.Path, v, true)
		return doc, at("path", op.Path, err)
	case "test":
		v, err := a.get(doc, op.Path)
		if err != nil {
			err.Test = true
			return nil, at("path", op.Path, err)
		}
		equal := a.equal(v, op.Value)
		if err := a.spend(0); err != nil { // the comparison's work
			return nil, err
		}
		if !equal {
			return nil, &Error{Member: "value", Pointer: op.Path.String(), Test: true,
				Reason: "the value at " + strconv.Quote(op.Path.String()) + " is not the one the test expects"}
		}
		return doc, nil
	}
	return nil, &Error{Member: "op", Reason: strconv.Quote(op.Op) + " is not an operation"}
}

// copyOf is a deep copy of v, its size spent, before anything is copied.
func (a *applier) copyOf(v any) (any, *Error) {
	n := size(v)
	if err := a.spend(n); err != nil {
		return nil, err
	}
	if a.copied += n; a.copied > a.copies {
		return nil, &Error{Reason: ErrTooCostly.Error(), tooCostly: true}
	}
	return clone(v), nil
}

func notContainer() *Error {
	return &Error{Reason: "names a member of a value that is neither an object nor an array"}
}

// get is the value p names in doc.
func (a *applier) get(doc any, p Pointer) (any, *Error) {
	for _, tok := range p {
		switch c := doc.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, &Error{Reason: "no member " + strconv.Quote(tok)}
			}
			doc = v
		case []any:
			i, err := arrayIndex(tok, len(c), false)
			if err != nil {
				return nil, &Error{Reason: err.Error()}
			}
			doc = c[i]
		default:
			return nil, notContainer()
		}
	}
	return doc, nil
}

// update walks doc to the parent of p's last token, replaces that parent
// by what fn makes of it, and returns doc (itself, unless p has one token
// and fn replaced the root).
func (a *applier) update(doc any, p Pointer, fn func(parent any, last string) (any, *Error)) (any, *Error) {
	if len(p) == 1 {
		return fn(doc, p[0])
	}
	switch c := doc.(type) {
	case map[string]any:
		child, ok := c[p[0]]
		if !ok {
			return nil, &Error{Reason: "no member " + strconv.Quote(p[0])}
		}
		nc, err := a.update(child, p[1:], fn)
		if err != nil {
			return nil, err
		}
		c[p[0]] = nc
		return c, nil
	case []any:
		i, err := arrayIndex(p[0], len(c), false)
		if err != nil {
			return nil, &Error{Reason: err.Error()}
		}
		nc, perr := a.update(c[i], p[1:], fn)
		if perr != nil {
			return nil, perr
		}
		c[i] = nc
		return c, nil
	}
	return nil, notContainer()
}

// put puts v at p: a new or replaced member of an object; in an array,
// an element inserted (insert, RFC 6902 section 4.1's add) or replaced
// (section 4.3, whose caller has checked that the target exists); the
// root is replaced.
func (a *applier) put(doc any, p Pointer, v any, insert bool) (any, *Error) {
	if len(p) == 0 {
		return v, nil
	}
	return a.update(doc, p, func(parent any, last string) (any, *Error) {
		switch c := parent.(type) {
		case map[string]any:
			c[last] = v
			return c, nil
		case []any:
			i, err := arrayIndex(last, len(c), insert)
			if err != nil {
				return nil, &Error{Reason: err.Error()}
			}
			if !insert {
				c[i] = v
				return c, nil
			}
			if err := a.spend(len(c) - i); err != nil {
				return nil, err
			}
			c = append(c, nil)
			copy(c[i+1:], c[i:])
			c[i] = v
			return c, nil
		}
		return nil, notContainer()
	})
}

// remove takes the value at p (which is not the root) out of doc, and
// returns it.
func (a *applier) remove(doc any, p Pointer) (any, any, *Error) {
	var removed any
	doc, err := a.update(doc, p, func(parent any, last string) (any, *Error) {
		switch c := parent.(type) {
		case map[string]any:
			v, ok := c[last]
			if !ok {
				return nil, &Error{Reason: "no member " + strconv.Quote(last)}
			}
			removed = v
			delete(c, last)
			return c, nil
		case []any:
			i, err := arrayIndex(last, len(c), false)
			if err != nil {
				return nil, &Error{Reason: err.Error()}
			}
			if err := a.spend(len(c) - i); err != nil {
				return nil, err
			}
			removed = c[i]
			copy(c[i:], c[i+1:])
			c[len(c)-1] = nil
			return c[:len(c)-1], nil
		}
		return nil, notContainer()
	})
	return doc, removed, err
}

// Merge applies the merge patch (RFC 7396) patch to doc and returns the
// result: an object patch sets each of its members in doc (an object,
// made one if it is not), recursively, and removes those it sets to null;
// any other patch replaces doc. doc itself is changed; the result may
// share values with patch.
func Merge(doc, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	d, ok := doc.(map[string]any)
	if !ok {
		d = make(map[string]any, len(p))
	}
	for k, v := range p {
		if v == nil {
			delete(d, k)
			continue
		}
		d[k] = Merge(d[k], v)
	}
	return d
}

// String is the operation as JSON, for messages and tests.
func (op Operation) String() string {
	m := map[string]any{"op": op.Op, "path": op.Path.String()}
	switch op.Op {
	case "move", "copy":
		m["from"] = op.From.String()
	case "add", "replace", "test":
		m["value"] = op.Value
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Sprintf("%s %s", op.Op, op.Path)
	}
	return string(b)
}
