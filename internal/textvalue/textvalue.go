// Package textvalue sets a Go value from its text, for the helpers that
// read values from text outside a request (vanetest's response headers,
// cli's options); package bind has its own parsers, compiled per field.
package textvalue

import (
	"encoding"
	"fmt"
	"reflect"
	"strconv"
	"time"
)

// Set sets the addressable value f from s: through f's
// encoding.TextUnmarshaler if it has one, as a time.Duration
// (time.ParseDuration), or as a string, bool (strconv.ParseBool), integer
// in decimal, or float, within the size of f's type. f is left as it
// was when s does not parse (unless its UnmarshalText changes it).
func Set(f reflect.Value, s string) error {
	if u, ok := f.Addr().Interface().(encoding.TextUnmarshaler); ok {
		return u.UnmarshalText([]byte(s))
	}
	if d, ok := f.Addr().Interface().(*time.Duration); ok {
		v, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		*d = v
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return err
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, f.Type().Bits())
		if err != nil {
			return err
		}
		f.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(s, 10, f.Type().Bits())
		if err != nil {
			return err
		}
		f.SetUint(n)
	case reflect.Float32, reflect.Float64:
		n, err := strconv.ParseFloat(s, f.Type().Bits())
		if err != nil {
			return err
		}
		f.SetFloat(n)
	default:
		return fmt.Errorf("a %v cannot be read from text", f.Type())
	}
	return nil
}
