// Package codec is the pluggable JSON codec of vane's typed operations.
//
// A Codec turns request bodies into Go values and output values into
// response bodies. The default, JSON, decodes strictly, as
// encoding/json/v2 does by default, while keeping encoding/json's rules
// for Go types (struct tags, omitempty, the string option, MarshalJSON and
// UnmarshalJSON, embedded structs), by which vane derives its schemas:
//
//   - object keys match struct fields exactly: {"NAME":"a"} does not fill
//     a field named "name" (an inexact key is an unknown key, and is
//     ignored by the decoder);
//   - an object with a key twice, anywhere in the document, is refused
//     (*DuplicateKeyError);
//   - strings must be valid UTF-8, and nothing may follow the value.
//
// It is github.com/goccy/go-json's implementation of the encoding/json/v2
// API, chosen by measurement (docs/design/json-codec.md has the figures).
// Failures carry their place in the document: *SyntaxError and
// *DuplicateKeyError for malformed JSON, *TypeError for a well-formed value
// that does not fit its field, each with a byte offset and a location such
// as items[2].name.
//
// Std is encoding/json itself, which matches keys case-insensitively and
// keeps the last of duplicate keys: it does not keep vane's promise that
// keys match exactly and duplicates are refused. Another codec can be set
// per router or per operation; it must keep encoding/json's rules for Go
// types, since the schemas vane documents are derived by them, and takes
// over the strictness above.
package codec

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// Codec encodes and decodes JSON.
//
// Unmarshal must not keep data after it returns: vane reads request bodies
// into pooled buffers. Errors should carry the byte offset of the problem
// (see Offset) so that a 400 response can name it.
type Codec interface {
	Marshal(v any) ([]byte, error)
	Unmarshal(data []byte, v any) error
}

// An Appender is a Codec that can also encode by appending to a buffer,
// so that its caller can reuse buffers instead of allocating a body per
// response. AppendMarshal appends to dst what Marshal returns and returns
// the extended buffer; on an error it returns dst unchanged.
type Appender interface {
	AppendMarshal(dst []byte, v any) ([]byte, error)
}

// JSON is the default codec: strict decoding (see the package
// documentation) by github.com/goccy/go-json/v2, and encoding by
// github.com/goccy/go-json with encoding/json's output.
var JSON Codec = strictJSON{}

// Std is encoding/json. It matches keys case-insensitively and accepts
// duplicate keys, the last one winning.
var Std Codec = stdJSON{}

type stdJSON struct{}

func (stdJSON) Marshal(v any) ([]byte, error)      { return json.Marshal(v) }
func (stdJSON) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// SyntaxError is malformed JSON: the input is not one well-formed JSON
// value in UTF-8.
type SyntaxError struct {
	Offset int64  // the byte offset at which the input stopped making sense
	Path   string // the location being read, such as items[2] ("" at the top)
	Msg    string // what is wrong: "invalid character '}' at start of value"
}

func (e *SyntaxError) Error() string {
	if e.Path == "" {
		return "at byte offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.Msg
	}
	return "at byte offset " + strconv.FormatInt(e.Offset, 10) + " (in " + e.Path + "): " + e.Msg
}

// ClosedDecoder is implemented by codecs that can refuse what a struct has
// no field for. UnmarshalClosed is Unmarshal, except that a member of a
// JSON object decoded into a Go struct that names no field of it fails
// with *UnknownPropertyError. Members of objects decoded into maps or into
// types with their own UnmarshalJSON are not affected. [JSON] implements
// it; vane's routers need it to refuse unknown properties.
type ClosedDecoder interface {
	UnmarshalClosed(data []byte, v any) error
}

// UnknownPropertyError is an object member that the struct it is decoded
// into has no field for.
type UnknownPropertyError struct {
	Key    string // the member's name, unescaped
	Path   string // its location: items[2].nmae
	Offset int64  // the byte offset of the member
}

func (e *UnknownPropertyError) Error() string {
	return "unknown property " + strconv.Quote(e.Key) + " at " + e.Path + " (byte offset " + strconv.FormatInt(e.Offset, 10) + ")"
}

// DuplicateKeyError is an object that has the same key twice.
type DuplicateKeyError struct {
	Key    string // the key, unescaped
	Path   string // the location of the second member: items[2].name
	Offset int64  // the byte offset of the second member's key
}

func (e *DuplicateKeyError) Error() string {
	return "duplicate key " + strconv.Quote(e.Key) + " at " + e.Path + " (byte offset " + strconv.FormatInt(e.Offset, 10) + ")"
}

// TypeError is a well-formed JSON value that does not fit the Go value it
// is decoded into: a string for an int, a number out of range, a date-time
// that does not parse.
type TypeError struct {
	Path     string // the value's location, such as items[2].name ("" for the root)
	Expected string // the JSON type expected: "string", "integer", "number", "boolean", "array", "object"; or a Go type's name
	Got      string // the JSON type received: "number", "string", …
	Value    string // the JSON text received, when it is a short number or string; else ""
	Message  string // the failure, for a client: "expected integer, got number 1.5"
	Offset   int64
	Err      error // the underlying error, if any (an UnmarshalJSON method's, say)
}

func (e *TypeError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

func (e *TypeError) Unwrap() error { return e.Err }

// Offset returns the byte offset in the input at which err, returned by a
// codec's Unmarshal, happened: from this package's errors,
// *json.SyntaxError, *json.UnmarshalTypeError, or any error with an
// Offset() int64 method.
func Offset(err error) (int64, bool) {
	var syn *SyntaxError
	if errors.As(err, &syn) {
		return syn.Offset, true
	}
	var dup *DuplicateKeyError
	if errors.As(err, &dup) {
		return dup.Offset, true
	}
	var typ *TypeError
	if errors.As(err, &typ) {
		return typ.Offset, true
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Offset, true
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Offset, true
	}
	var o interface{ Offset() int64 }
	if errors.As(err, &o) {
		return o.Offset(), true
	}
	return 0, false
}

// AsTypeError reports whether err is a wrong-type error (as opposed to
// malformed JSON) and describes it: a *TypeError, or encoding/json's
// *json.UnmarshalTypeError (whose path has no array indices).
func AsTypeError(err error) (TypeError, bool) {
	var t *TypeError
	if errors.As(err, &t) {
		return *t, true
	}
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return TypeError{}, false
	}
	exp := jsonKind(te.Type.Kind().String())
	return TypeError{Path: te.Field, Expected: exp, Got: te.Value, Offset: te.Offset,
		Message: "expected " + exp + ", got " + te.Value}, true
}

func jsonKind(goKind string) string {
	switch {
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "uint"):
		return "integer"
	case strings.HasPrefix(goKind, "float"):
		return "number"
	case goKind == "bool":
		return "boolean"
	case goKind == "slice", goKind == "array":
		return "array"
	case goKind == "struct", goKind == "map":
		return "object"
	}
	return goKind
}
