package codec

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vane-http/vane/internal/addr"
)

// A FlatEncoder appends the JSON encoding of the struct at p (of the type
// it was compiled for) to dst, byte for byte as encoding/json writes it,
// and reports true; or reports false, having appended part of it, when a
// value has no JSON encoding (a float that is NaN or infinite), which
// encoding/json and the JSON codec refuse with an error.
type FlatEncoder func(dst []byte, p addr.Addr) ([]byte, bool)

// CompileFlat returns an encoder for values of the struct type t when t is
// flat: its exported fields are booleans, integers, floats, strings or
// slices of strings (named types of those kinds included), with json tags
// that give at most a name, "-" or omitempty, and neither t nor any
// field's type (nor a slice's element type) has a method that
// encoding/json would call (MarshalJSON, MarshalText). A small answer (an
// ID, a greeting, a record of a few scalars and tags) is most of what
// typed operations send, and such a struct's encoding needs no
// reflection: its keys are written in advance and its values appended
// from their offsets. Otherwise ok is false.
func CompileFlat(t reflect.Type) (enc FlatEncoder, ok bool) {
	if t.Kind() != reflect.Struct || hasMarshalMethod(t) {
		return nil, false
	}
	type field struct {
		key       string // "name": escaped, or ,"name": after the first
		offset    uintptr
		kind      reflect.Kind
		omitEmpty bool
	}
	var fields []field
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil, false // embedded fields' promotion rules
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		omit := false
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "":
			case "omitempty":
				omit = true
			default:
				return nil, false // string, omitzero, and what a later Go may add
			}
		}
		if name == "" {
			name = f.Name
		} else if !plainName(name) {
			return nil, false
		}
		if seen[name] {
			return nil, false // encoding/json drops both
		}
		seen[name] = true
		k := f.Type.Kind()
		switch k {
		case reflect.Bool, reflect.String,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
		case reflect.Slice:
			if e := f.Type.Elem(); e.Kind() != reflect.String || hasMarshalMethod(e) {
				return nil, false
			}
		default:
			return nil, false
		}
		if hasMarshalMethod(f.Type) {
			return nil, false
		}
		key, _ := json.Marshal(name)
		fields = append(fields, field{key: string(key) + ":", offset: f.Offset, kind: k, omitEmpty: omit})
	}
	return func(dst []byte, p addr.Addr) ([]byte, bool) {
		dst = append(dst, '{')
		first := true
		for i := range fields {
			f := &fields[i]
			q := p.Field(f.offset)
			if f.omitEmpty && isZero(f.kind, q) {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, f.key...)
			switch f.kind {
			case reflect.Bool:
				dst = strconv.AppendBool(dst, *addr.As[bool](q))
			case reflect.String:
				dst = appendQuoted(dst, *addr.As[string](q))
			case reflect.Int:
				dst = strconv.AppendInt(dst, int64(*addr.As[int](q)), 10)
			case reflect.Int8:
				dst = strconv.AppendInt(dst, int64(*addr.As[int8](q)), 10)
			case reflect.Int16:
				dst = strconv.AppendInt(dst, int64(*addr.As[int16](q)), 10)
			case reflect.Int32:
				dst = strconv.AppendInt(dst, int64(*addr.As[int32](q)), 10)
			case reflect.Int64:
				dst = strconv.AppendInt(dst, *addr.As[int64](q), 10)
			case reflect.Uint:
				dst = strconv.AppendUint(dst, uint64(*addr.As[uint](q)), 10)
			case reflect.Uint8:
				dst = strconv.AppendUint(dst, uint64(*addr.As[uint8](q)), 10)
			case reflect.Uint16:
				dst = strconv.AppendUint(dst, uint64(*addr.As[uint16](q)), 10)
			case reflect.Uint32:
				dst = strconv.AppendUint(dst, uint64(*addr.As[uint32](q)), 10)
			case reflect.Uint64:
				dst = strconv.AppendUint(dst, *addr.As[uint64](q), 10)
			case reflect.Float32:
				var ok bool
				if dst, ok = appendFloat(dst, float64(*addr.As[float32](q)), 32); !ok {
					return dst, false
				}
			case reflect.Float64:
				var ok bool
				if dst, ok = appendFloat(dst, *addr.As[float64](q), 64); !ok {
					return dst, false
				}
			case reflect.Slice:
				dst = appendStrings(dst, *addr.As[[]string](q))
			}
		}
		return append(dst, '}'), true
	}, true
}

// appendFloat appends f, a float of the given bits (32 or 64), as
// encoding/json writes one: the shortest decimal that reads back as f,
// in exponent form below 1e-6 and from 1e21 on (ES6's number to string,
// an exponent without padding); false for NaN and the infinities, which
// JSON has no number for.
func appendFloat(dst []byte, f float64, bits int) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		// float32's cutoffs compared as float32, where they round.
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if n := len(dst); format == 'e' && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		// e-07 is written e-7.
		dst[n-2] = dst[n-1]
		dst = dst[:n-1]
	}
	return dst, true
}

// appendStrings appends a slice of strings: null when nil, else an
// array of the quoted strings.
func appendStrings(dst []byte, list []string) []byte {
	if list == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendQuoted(dst, s)
	}
	return append(dst, ']')
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// hasMarshalMethod reports whether encoding/json would call a method of t
// or *t to encode it.
func hasMarshalMethod(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		pt.Implements(jsonMarshaler) || pt.Implements(textMarshaler)
}

// plainName reports whether a tag's name is made of letters, digits, '_',
// '-' and '.' only: a name encoding/json takes as it is.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return s != ""
}

// isZero reports whether the value of kind k at q is its kind's zero, as
// omitempty tests it: a float equal to 0 (-0 too), a slice of no
// elements.
func isZero(k reflect.Kind, q addr.Addr) bool {
	switch k {
	case reflect.Slice:
		return len(*addr.As[[]string](q)) == 0
	case reflect.Float32:
		return *addr.As[float32](q) == 0
	case reflect.Float64:
		return *addr.As[float64](q) == 0
	case reflect.Bool:
		return !*addr.As[bool](q)
	case reflect.String:
		return *addr.As[string](q) == ""
	case reflect.Int, reflect.Uint:
		return *addr.As[uint](q) == 0
	case reflect.Int8, reflect.Uint8:
		return *addr.As[uint8](q) == 0
	case reflect.Int16, reflect.Uint16:
		return *addr.As[uint16](q) == 0
	case reflect.Int32, reflect.Uint32:
		return *addr.As[uint32](q) == 0
	}
	return *addr.As[uint64](q) == 0
}

// appendQuoted appends s as a JSON string the way encoding/json writes it:
// '"' and '\\' escaped with a backslash, the control characters as \b,
// \f, \n, \r, \t or \u00XX, '<', '>' and '&' as \u003c, \u003e and
// \u0026 (safe in HTML), U+2028 and U+2029 escaped (safe in JavaScript),
// and each byte of invalid UTF-8 as \ufffd.
func appendQuoted(dst []byte, s string) []byte {
	// Most strings need no escape: found so, they are copied in one go.
	i := skipPlain(s, 0)
	for i < len(s) && plain[s[i]] {
		i++
	}
	if i == len(s) {
		n := len(dst)
		dst = slices.Grow(dst, len(s)+2)[:n+len(s)+2]
		dst[n] = '"'
		copy(dst[n+1:], s)
		dst[len(dst)-1] = '"'
		return dst
	}
	return appendEscaped(append(dst, '"'), s, i)
}

// appendEscaped is appendQuoted of a string that needs an escape, its
// opening quote appended, from i on: the bytes before i are plain.
func appendEscaped(dst []byte, s string, i int) []byte {
	const hexDigits = "0123456789abcdef"
	start := 0
	// Words of plain bytes are skipped whole; from a word that holds
	// something else, the bytes are looked at one by one up to the next
	// escape or multi-byte rune, after which words are tried again.
	for ; i < len(s); i = skipPlain(s, i) {
		c := s[i]
		if plain[c] {
			for i++; i < len(s) && plain[s[i]]; i++ {
			}
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, `\b`...)
			case '\f':
				dst = append(dst, `\f`...)
			case '\n':
				dst = append(dst, `\n`...)
			case '\r':
				dst = append(dst, `\r`...)
			case '\t':
				dst = append(dst, `\t`...)
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}

// plain marks the bytes appendQuoted copies as they are: printable
// ASCII but '"', '\\', '<', '>' and '&'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// skipPlain returns the offset, from i on, of the first 8-byte word of s
// holding a byte that is not plain, or of the last bytes of s that
// do not fill a word: where appendQuoted's byte-by-byte loop resumes. Each word is read as one little-endian load (the compiler
// makes the eight byte loads one), and each test is exact for "some byte
// is": (v - 0x01…) &^ v & 0x80… is non-zero exactly when some byte of v
// is 0, and (v - n·0x01…) &^ v & 0x80… when some byte is below n.
func skipPlain(s string, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		q, b, l, g, a := x^'"'*lo, x^'\\'*lo, x^'<'*lo, x^'>'*lo, x^'&'*lo
		bad := x | (x-0x20*lo)&^x |
			(q-lo)&^q | (b-lo)&^b | (l-lo)&^l | (g-lo)&^g | (a-lo)&^a
		if bad&hi != 0 {
			return i
		}
	}
	return i
}
