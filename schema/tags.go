package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Keywords lists the struct tags that Apply reads, in the order it reads
// them. (`required` is read by Field.Required and by the binders.)
var Keywords = []string{
	"doc", "deprecated", "readOnly", "writeOnly", "nullable",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "pattern", "format", "enum",
	"minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
	"default", "example",
}

// itemKeywords apply to the items of an array field rather than to the
// array: `query:"tag" enum:"a,b" maxLength:"10"` describes each tag.
var itemKeywords = map[string]bool{
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"multipleOf": true, "minLength": true, "maxLength": true, "pattern": true,
	"format": true, "enum": true,
}

// Apply adds the keywords of tag to s, the schema of a value of type t.
// On an array type, the keywords that describe a single value (minimum …
// enum) apply to its items. Values are parsed by the type they describe:
// `default:"20"` on an int is the number 20, `enum:"a,b"` on a string is
// ["a", "b"], `example:"a,b"` on a []string is ["a", "b"]. A value that does
// not parse, or a pattern that does not compile, is an error.
func Apply(s *Schema, t reflect.Type, tag reflect.StructTag) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	isArray := s.Type == TypeArray && s.Items != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array)
	for _, kw := range Keywords {
		v, ok := tag.Lookup(kw)
		if !ok {
			continue
		}
		target, tt := s, t
		if isArray && itemKeywords[kw] {
			target, tt = s.Items, t.Elem()
			for tt.Kind() == reflect.Pointer {
				tt = tt.Elem()
			}
		}
		if err := apply(target, tt, kw, v); err != nil {
			return fmt.Errorf("tag %s:%q: %w", kw, v, err)
		}
	}
	return nil
}

func apply(s *Schema, t reflect.Type, kw, v string) error {
	var err error
	switch kw {
	case "doc":
		s.Description = v
	case "deprecated":
		s.Deprecated, err = strconv.ParseBool(v)
	case "readOnly":
		s.ReadOnly, err = strconv.ParseBool(v)
	case "writeOnly":
		s.WriteOnly, err = strconv.ParseBool(v)
	case "nullable":
		s.Nullable, err = strconv.ParseBool(v)
	case "minimum":
		s.Minimum, err = parseFloat(v)
	case "maximum":
		s.Maximum, err = parseFloat(v)
	case "exclusiveMinimum":
		s.ExclusiveMinimum, err = parseFloat(v)
	case "exclusiveMaximum":
		s.ExclusiveMaximum, err = parseFloat(v)
	case "multipleOf":
		s.MultipleOf, err = parseFloat(v)
		if err == nil && *s.MultipleOf <= 0 {
			err = fmt.Errorf("must be greater than 0")
		}
	case "minLength":
		s.MinLength, err = parseCount(v)
	case "maxLength":
		s.MaxLength, err = parseCount(v)
	case "minItems":
		s.MinItems, err = parseCount(v)
	case "maxItems":
		s.MaxItems, err = parseCount(v)
	case "minProperties":
		s.MinProperties, err = parseCount(v)
	case "maxProperties":
		s.MaxProperties, err = parseCount(v)
	case "uniqueItems":
		s.UniqueItems, err = strconv.ParseBool(v)
	case "pattern":
		if _, err = regexp.Compile(v); err == nil {
			s.Pattern = v
		}
	case "format":
		s.Format = v
		if t == timeType || s.Type == TypeString {
			s.Type = TypeString
		}
	case "enum":
		s.Enum = nil
		for _, part := range strings.Split(v, ",") {
			x, perr := ParseValue(t, part)
			if perr != nil {
				return perr
			}
			s.Enum = append(s.Enum, nanoseconds(s, t, x))
		}
	case "default":
		var x any
		if x, err = ParseValue(t, v); err == nil {
			s.Default = nanoseconds(s, t, x)
		}
	case "example":
		var x any
		if x, err = ParseValue(t, v); err == nil {
			s.Examples = []any{nanoseconds(s, t, x)}
		}
	}
	return err
}

// nanoseconds turns x, a duration's tag value as Go duration text
// ("1m30s", or a list of them), into integer nanoseconds when s, the schema
// x goes in, is JSON's integer form of a time.Duration; as text (a
// parameter), the value stays text.
func nanoseconds(s *Schema, t reflect.Type, x any) any {
	if s.Type == TypeArray && s.Items != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		list, ok := x.([]any)
		if !ok {
			return x
		}
		et := t.Elem()
		for et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		out := make([]any, len(list))
		for i, e := range list {
			out[i] = nanoseconds(s.Items, et, e)
		}
		return out
	}
	if t != durationType || s.Type != TypeInteger {
		return x
	}
	if text, ok := x.(string); ok {
		if d, err := time.ParseDuration(text); err == nil {
			return int64(d)
		}
	}
	return x
}

// ParseValue parses a tag value (of default, example or enum) as a value of
// type t: a string, bool or number for those kinds, a comma-separated list
// for slices, JSON for anything else.
func ParseValue(t reflect.Type, v string) (any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType || implements(t, textUnmarshalType) {
		return v, nil
	}
	if t == durationType {
		// As a parameter's text ("1m30s"); a body's JSON has nanoseconds.
		if _, err := time.ParseDuration(v); err != nil {
			return nil, err
		}
		return v, nil
	}
	switch t.Kind() {
	case reflect.String:
		return v, nil
	case reflect.Bool:
		return strconv.ParseBool(v)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.ParseInt(v, 10, t.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.ParseUint(v, 10, t.Bits())
	case reflect.Float32, reflect.Float64:
		return strconv.ParseFloat(v, t.Bits())
	case reflect.Slice, reflect.Array:
		if strings.HasPrefix(v, "[") {
			break
		}
		out := []any{}
		if v == "" {
			return out, nil
		}
		for _, part := range strings.Split(v, ",") {
			x, err := ParseValue(t.Elem(), part)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	}
	var x any
	if err := json.Unmarshal([]byte(v), &x); err != nil {
		return nil, fmt.Errorf("not JSON for %v: %w", t, err)
	}
	return x, nil
}

func parseFloat(v string) (*float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return nil, err
	}
	return &f, nil
}

func parseCount(v string) (*int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("must not be negative")
	}
	return &n, nil
}
