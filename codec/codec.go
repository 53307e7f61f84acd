// Package codec is the pluggable JSON codec of vane's typed operations.
//
// A Codec turns request bodies into Go values and output values into
// response bodies. The default, JSON, is github.com/goccy/go-json, chosen by
// measurement (docs/json-codec.md has the figures): it follows
// encoding/json's rules for struct tags, omitempty, MarshalJSON and
// UnmarshalJSON, decodes a small body in a fifth of the time with one
// allocation instead of five, and encodes in half the time. Where it fails,
// vane decodes again with encoding/json, so that what is accepted and the
// errors reported (byte offsets, field paths) are the standard library's.
// Std is encoding/json itself. Another codec can be set per router or per
// operation; it must keep encoding/json's semantics, since the schemas vane
// documents are derived by those rules.
package codec

import (
	"encoding/json"
	"errors"
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

// JSON is the default codec: github.com/goccy/go-json, falling back to
// encoding/json when it reports an error or panics.
var JSON Codec = fastJSON{}

// Std is encoding/json.
var Std Codec = stdJSON{}

type stdJSON struct{}

func (stdJSON) Marshal(v any) ([]byte, error)      { return json.Marshal(v) }
func (stdJSON) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// Offset returns the byte offset in the input at which err, returned by a
// codec's Unmarshal, happened: from *json.SyntaxError,
// *json.UnmarshalTypeError, or any error with an Offset() int64 method.
func Offset(err error) (int64, bool) {
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

// TypeError describes a JSON value of the wrong type for its Go field.
type TypeError struct {
	Path     string // dotted path of the field from the body's root ("items.name"); empty for the root
	Expected string // JSON type expected ("string", "integer", …)
	Got      string // JSON type received
	Offset   int64
}

// AsTypeError reports whether err is a wrong-type error (as opposed to
// malformed JSON) and describes it.
func AsTypeError(err error) (TypeError, bool) {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return TypeError{}, false
	}
	return TypeError{Path: te.Field, Expected: jsonKind(te.Type.Kind().String()), Got: te.Value, Offset: te.Offset}, true
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
