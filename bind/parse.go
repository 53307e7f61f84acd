package bind

import (
	"encoding"
	"fmt"
	"github.com/vane-http/vane/internal/addr"
	"reflect"
	"strconv"
	"time"
)

var (
	timeType          = reflect.TypeFor[time.Time]()
	durationType      = reflect.TypeFor[time.Duration]()
	textUnmarshalType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// parser sets the value at p from its text form. The message of its error
// is shown to the client.
type parser func(s string, p addr.Addr) error

// parseErr is a parse failure with a message for the client.
type parseErr string

func (e parseErr) Error() string { return string(e) }

// scalarParser returns the parser for type t, one of the scalar types
// parameters and form fields may have. format is the field's format tag
// ("date" makes a time.Time a full-date).
func scalarParser(t reflect.Type, format string) (parser, error) {
	switch t {
	case timeType:
		layout, what := time.RFC3339Nano, "expected a date-time (RFC 3339)"
		if format == "date" {
			layout, what = time.DateOnly, "expected a date (YYYY-MM-DD)"
		}
		return func(s string, p addr.Addr) error {
			v, err := time.Parse(layout, s)
			if err != nil {
				return parseErr(what)
			}
			*addr.As[time.Time](p) = v
			return nil
		}, nil
	case durationType:
		return func(s string, p addr.Addr) error {
			v, err := time.ParseDuration(s)
			if err != nil {
				return parseErr("expected a duration such as 1m30s")
			}
			*addr.As[time.Duration](p) = v
			return nil
		}, nil
	}
	if reflect.PointerTo(t).Implements(textUnmarshalType) {
		return func(s string, p addr.Addr) error {
			u := p.Value(t).Addr().Interface().(encoding.TextUnmarshaler)
			if err := u.UnmarshalText([]byte(s)); err != nil {
				return parseErr("invalid value: " + err.Error())
			}
			return nil
		}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return func(s string, p addr.Addr) error { *addr.As[string](p) = s; return nil }, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // []byte: the text itself
			return func(s string, p addr.Addr) error { *addr.As[[]byte](p) = []byte(s); return nil }, nil
		}
	case reflect.Bool:
		return func(s string, p addr.Addr) error {
			v, err := strconv.ParseBool(s)
			if err != nil {
				return parseErr("expected a boolean")
			}
			*addr.As[bool](p) = v
			return nil
		}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits, k := t.Bits(), t.Kind()
		return func(s string, p addr.Addr) error {
			v, err := strconv.ParseInt(s, 10, bits)
			if err != nil {
				return intErr(err, bits)
			}
			if !canonicalInt(s) {
				return errIntSpelling
			}
			switch k {
			case reflect.Int:
				*addr.As[int](p) = int(v)
			case reflect.Int8:
				*addr.As[int8](p) = int8(v)
			case reflect.Int16:
				*addr.As[int16](p) = int16(v)
			case reflect.Int32:
				*addr.As[int32](p) = int32(v)
			default:
				*addr.As[int64](p) = v
			}
			return nil
		}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		bits, k := t.Bits(), t.Kind()
		return func(s string, p addr.Addr) error {
			v, err := strconv.ParseUint(s, 10, bits)
			if err != nil {
				return intErr(err, bits)
			}
			if !canonicalInt(s) {
				return errIntSpelling
			}
			switch k {
			case reflect.Uint:
				*addr.As[uint](p) = uint(v)
			case reflect.Uint8:
				*addr.As[uint8](p) = uint8(v)
			case reflect.Uint16:
				*addr.As[uint16](p) = uint16(v)
			case reflect.Uint32:
				*addr.As[uint32](p) = uint32(v)
			case reflect.Uintptr:
				*addr.As[uintptr](p) = uintptr(v)
			default:
				*addr.As[uint64](p) = v
			}
			return nil
		}, nil
	case reflect.Float32, reflect.Float64:
		bits := t.Bits()
		return func(s string, p addr.Addr) error {
			v, err := strconv.ParseFloat(s, bits)
			if err != nil {
				return parseErr("expected a number")
			}
			if bits == 32 {
				*addr.As[float32](p) = float32(v)
			} else {
				*addr.As[float64](p) = v
			}
			return nil
		}, nil
	case reflect.Pointer:
		elem, err := scalarParser(t.Elem(), format)
		if err != nil {
			return nil, err
		}
		et := t.Elem()
		return func(s string, p addr.Addr) error {
			q := addr.OfValue(reflect.New(et))
			if err := elem(s, q); err != nil {
				return err
			}
			p.SetPointer(q)
			return nil
		}, nil
	}
	return nil, fmt.Errorf("type %v cannot be parsed from text", t)
}

// canonicalInt reports whether s, which strconv parsed as a base-10
// integer, is the one spelling of its value: decimal digits without
// leading zeros, after a '-' for a negative value; no '+' sign and no
// "-0". Other spellings (01, +1, -0) would be other URLs, cache keys and
// cursor scopes for one resource. It is JSON's spelling of an integer,
// but for -0.
func canonicalInt(s string) bool {
	switch c := s[0]; {
	case c > '0': // 1 to 9, the usual case: one test
		return true
	case c == '0':
		return len(s) == 1
	case c == '-':
		return s[1] != '0' // strconv accepted s: a digit follows
	}
	return false // '+'
}

// smallDecimal parses s when it is a non-negative integer of at most 18
// digits in canonicalInt's spelling, which cannot overflow an int64: the
// usual path parameter or query value, without strconv's general
// handling. ok is false for anything else, which strconv then judges.
func smallDecimal(s string) (v int64, ok bool) {
	if len(s) == 0 || len(s) > 18 || s[0] == '0' && len(s) > 1 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		v = v*10 + int64(d)
	}
	return v, true
}

// errIntSpelling is the message for an integer spelled another way than
// canonicalInt's.
var errIntSpelling = parseErr("expected an integer in its one spelling: no + sign, no leading zeros, 0 rather than -0")

func intErr(err error, bits int) error {
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return parseErr("integer out of range for " + strconv.Itoa(bits) + " bits")
	}
	return parseErr("expected an integer")
}
