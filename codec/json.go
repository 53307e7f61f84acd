package codec

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	gojson "github.com/goccy/go-json"
	gojsontext "github.com/goccy/go-json/jsontext"
	gojsonv2 "github.com/goccy/go-json/v2"
)

var (
	// strictText is encoding/json's semantics for Go types (DefaultOptionsV1)
	// with encoding/json/v2's defaults for the text: names matched exactly,
	// duplicate names and invalid UTF-8 refused, and a Go array read only
	// from a JSON array of its length (as its schema's minItems and
	// maxItems say).
	strictText = gojsonv2.JoinOptions(gojson.DefaultOptionsV1(),
		gojson.UnmarshalArrayFromAnyLength(false),
		gojsonv2.MatchCaseInsensitiveNames(false),
		gojsontext.AllowDuplicateNames(false),
		gojsontext.AllowInvalidUTF8(false))

	// strictFast is strictText reporting errors as encoding/json/v2 does:
	// one pass over the input (no separate syntax check first) and errors
	// that carry a JSON pointer. It also refuses Go types that
	// encoding/json would handle as best it can (two fields of one name, the
	// string option where it does not apply); Unmarshal then asks
	// strictText, which has encoding/json's semantics there too.
	strictFast = gojsonv2.JoinOptions(strictText, gojson.ReportErrorsWithLegacySemantics(false))

	// closedText and closedFast are strictText and strictFast refusing
	// object members a struct has no field for.
	closedText = gojsonv2.JoinOptions(strictText, gojsonv2.RejectUnknownMembers(true))
	closedFast = gojsonv2.JoinOptions(strictFast, gojsonv2.RejectUnknownMembers(true))
)

// strictJSON decodes with strictFast, and encodes with goccy/go-json,
// falling back to encoding/json when that fails.
type strictJSON struct{}

func (strictJSON) Marshal(v any) (b []byte, err error) {
	defer func() {
		if recover() != nil {
			b, err = json.Marshal(v)
		}
	}()
	b, err = gojson.Marshal(v)
	if err != nil {
		// encoding/json's message and error types, for the same failure
		return json.Marshal(v)
	}
	return b, nil
}

// AppendMarshal is Marshal appending to dst. goccy/go-json's Encoder, kept
// in a pool with the writer it writes to, encodes into its own buffer and
// writes once, so the encoding is copied into dst rather than into a new
// slice.
func (c strictJSON) AppendMarshal(dst []byte, v any) (out []byte, err error) {
	e := appenders.Get().(*appender)
	e.dst = dst
	defer func() {
		if recover() != nil {
			// The encoder is dropped, not pooled: its state is unknown.
			out, err = appendStd(dst, v)
			return
		}
		e.dst = nil
		appenders.Put(e)
	}()
	if err := e.enc.Encode(v); err != nil {
		// encoding/json's message and error types, for the same failure
		return appendStd(dst, v)
	}
	return e.dst, nil
}

// appendStd is encoding/json's Marshal appended to dst.
func appendStd(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// appender is a goccy/go-json Encoder over a writer that appends what it
// is given, but for the Encoder's final newline, to dst.
type appender struct {
	enc *gojson.Encoder
	dst []byte
}

func (a *appender) Write(p []byte) (int, error) {
	a.dst = append(a.dst, p[:len(p)-1]...)
	return len(p), nil
}

var appenders = sync.Pool{New: func() any {
	a := &appender{}
	a.enc = gojson.NewEncoder(a)
	return a
}}

// Unmarshal decodes data into v (a non-nil pointer). The common case is
// one pass of strictFast. When it fails, the input is decoded again with
// strictText into a fresh value: if that succeeds, the failure was of a Go
// type that encoding/json tolerates, and its value stands; if not, the
// first failure is returned, converted to this package's errors with its
// location.
func (strictJSON) Unmarshal(data []byte, v any) error {
	return unmarshal(data, v, strictFast, strictText)
}

// UnmarshalClosed is Unmarshal refusing, with *UnknownPropertyError, an
// object member that the struct it is decoded into has no field for.
func (strictJSON) UnmarshalClosed(data []byte, v any) error {
	return unmarshal(data, v, closedFast, closedText)
}

func unmarshal(data []byte, v any, fast, text gojsonv2.Options) error {
	err := decode(data, v, fast)
	if err == nil {
		return nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		fresh := reflect.New(rv.Type().Elem())
		if decode(data, fresh.Interface(), text) == nil {
			rv.Elem().Set(fresh.Elem())
			return nil
		}
	}
	return convert(data, err)
}

// errDecoderPanic stands for a panic inside the decoder: the input is
// refused rather than the process brought down.
var errDecoderPanic = errors.New("the JSON decoder could not read the input")

func decode(data []byte, v any, opts gojsonv2.Options) (err error) {
	defer func() {
		if recover() != nil {
			err = errDecoderPanic
		}
	}()
	return gojsonv2.Unmarshal(data, v, opts)
}

// convert turns a decoding error into *SyntaxError, *DuplicateKeyError or
// *TypeError, with the location its JSON pointer names.
func convert(data []byte, err error) error {
	var se *gojsonv2.SemanticError
	if errors.As(err, &se) && errors.Is(se.Err, gojsonv2.ErrUnknownName) {
		return &UnknownPropertyError{Key: clip(se.JSONPointer.LastToken()), Path: locate(data, se.JSONPointer), Offset: se.ByteOffset}
	}
	if errors.As(err, &se) {
		var sy *gojsontext.SyntacticError
		if !errors.As(se.Err, &sy) {
			return typeError(data, se)
		}
	}
	var sy *gojsontext.SyntacticError
	if errors.As(err, &sy) {
		if errors.Is(sy.Err, gojsontext.ErrDuplicateName) {
			return &DuplicateKeyError{Key: clip(sy.JSONPointer.LastToken()), Path: locate(data, sy.JSONPointer), Offset: sy.ByteOffset}
		}
		msg := "malformed JSON"
		if sy.Err != nil {
			msg = strings.TrimPrefix(sy.Err.Error(), "jsontext: ")
		}
		return &SyntaxError{Offset: sy.ByteOffset, Path: locate(data, sy.JSONPointer), Msg: msg}
	}
	if err == errDecoderPanic {
		return &SyntaxError{Msg: err.Error()}
	}
	return err
}

var (
	timeType            = reflect.TypeFor[time.Time]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func typeError(data []byte, se *gojsonv2.SemanticError) *TypeError {
	te := &TypeError{Path: locate(data, se.JSONPointer), Got: kindName(se.JSONKind), Offset: se.ByteOffset, Err: se.Err}
	if se.JSONKind == '0' || se.JSONKind == '"' {
		v := []byte(se.JSONValue)
		if len(v) == 0 {
			v = valueAt(data, se.ByteOffset)
		}
		if len(v) <= 64 {
			te.Value = string(v)
		}
	}
	t := se.GoType
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	got := te.Got
	if te.Value != "" {
		got += " " + te.Value
	}
	switch {
	case t == nil:
		te.Expected = "a valid value"
	case t == timeType:
		te.Expected = "date-time"
	case reflect.PointerTo(t).Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType):
		te.Expected = t.String()
	default:
		te.Expected = jsonKind(t.Kind().String())
	}
	switch {
	case t == timeType:
		te.Message = "expected a date-time (RFC 3339), got " + got
	case se.Err != nil && strings.Contains(se.Err.Error(), "out of range"):
		te.Message = "got " + got + ", out of range for " + t.String()
	case se.Err != nil && !strings.Contains(se.Err.Error(), "invalid syntax"):
		te.Message = "invalid value: " + se.Err.Error()
	default:
		te.Message = "expected " + te.Expected + ", got " + got
	}
	return te
}

// valueAt returns the JSON value that starts at offset off of data (after
// white space), or nil.
func valueAt(data []byte, off int64) []byte {
	if off < 0 || off >= int64(len(data)) {
		return nil
	}
	dec := gojsontext.NewDecoder(bytes.NewReader(data[off:]), gojsontext.AllowInvalidUTF8(true))
	v, err := dec.ReadValue()
	if err != nil {
		return nil
	}
	return v
}

func kindName(k gojsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "boolean"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{', '}':
		return "object"
	case '[', ']':
		return "array"
	}
	return "value"
}

// maxPath bounds the locations put in errors, which clients may make long
// (a key of a megabyte, nesting ten thousand deep).
const (
	maxPath  = 512
	maxToken = 100
)

func clip(s string) string {
	if len(s) > maxToken {
		return s[:maxToken] + "…"
	}
	return s
}

// locate turns a JSON pointer into a location such as items[2].name,
// reading data to tell array indices from object keys that look like
// numbers. Where data cannot be followed (the pointer goes past a syntax
// error), a token of digits counts as an index.
func locate(data []byte, ptr gojsontext.Pointer) string {
	if ptr == "" {
		return ""
	}
	dec := gojsontext.NewDecoder(bytes.NewReader(data), gojsontext.AllowDuplicateNames(true), gojsontext.AllowInvalidUTF8(true))
	follow := true
	var loc []byte
	for tok := range ptr.Tokens() {
		if len(loc) > maxPath {
			return string(loc) + "…"
		}
		kind := gojsontext.Kind(0)
		if follow {
			kind = dec.PeekKind()
		}
		index := kind == '[' || (kind == 0 && isIndex(tok))
		if index {
			loc = append(loc, '[')
			loc = append(loc, tok...)
			loc = append(loc, ']')
		} else {
			if len(loc) > 0 {
				loc = append(loc, '.')
			}
			loc = append(loc, clip(tok)...)
		}
		if follow {
			follow = enter(dec, kind, tok)
		}
	}
	return string(loc)
}

// enter moves dec from the start of a container of kind to the start of
// its member or element tok, reporting whether it could.
func enter(dec *gojsontext.Decoder, kind gojsontext.Kind, tok string) bool {
	if kind != '[' && kind != '{' {
		return false
	}
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	if kind == '[' {
		n, err := strconv.Atoi(tok)
		if err != nil {
			return false
		}
		for ; n > 0; n-- {
			if dec.SkipValue() != nil {
				return false
			}
		}
		return true
	}
	for {
		name, err := dec.ReadToken()
		if err != nil || name.Kind() != '"' {
			return false
		}
		if name.String() == tok {
			return true
		}
		if dec.SkipValue() != nil {
			return false
		}
	}
}

func isIndex(tok string) bool {
	if tok == "" {
		return false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return false
		}
	}
	return true
}
