package vanetest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/vane-http/vane/schema"
)

// checker checks decoded JSON (numbers as json.Number) against a schema
// and collects what fails, with its location.
type checker struct {
	reg     *schema.Registry
	request bool // readOnly properties are not required; otherwise writeOnly ones are not
	errs    []string
	depth   int
}

func (c *checker) failf(loc, format string, args ...any) {
	c.errs = append(c.errs, loc+": "+fmt.Sprintf(format, args...))
}

// check checks v at loc against s, reporting every failure.
func (c *checker) check(s *schema.Schema, v any, loc string) {
	if s == nil {
		return
	}
	if c.depth > 200 {
		c.failf(loc, "schema nested too deep")
		return
	}
	c.depth++
	defer func() { c.depth-- }()
	if s.Ref != "" {
		target := c.reg.Resolve(s)
		if target == s {
			c.failf(loc, "$ref %s does not resolve", s.Ref)
			return
		}
		if s.Nullable && v == nil {
			return
		}
		c.check(target, v, loc)
		// Keywords beside the $ref apply too (2020-12), but those of
		// package schema are annotations; nothing more to check.
		return
	}
	if s.Type != "" && !hasType(s.Type, v) && !(s.Nullable && v == nil) {
		c.failf(loc, "expected %s, got %s", s.Type, typeOf(v))
		return
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return jsonEqual(e, v) }) {
		c.failf(loc, "%s is not one of the enum %v", short(v), s.Enum)
	}
	if s.Const != nil && !jsonEqual(s.Const, v) {
		c.failf(loc, "%s is not the const %v", short(v), s.Const)
	}
	switch x := v.(type) {
	case string:
		c.checkString(s, x, loc)
	case json.Number:
		c.checkNumber(s, x, loc)
	case []any:
		c.checkArray(s, x, loc)
	case map[string]any:
		c.checkObject(s, x, loc)
	}
	for _, sub := range s.AllOf {
		c.check(sub, v, loc)
	}
	if len(s.AnyOf) > 0 {
		ok := false
		for _, sub := range s.AnyOf {
			if c.passes(sub, v) {
				ok = true
				break
			}
		}
		if !ok {
			c.failf(loc, "matches none of the anyOf schemas")
		}
	}
	if len(s.OneOf) > 0 {
		n := 0
		for _, sub := range s.OneOf {
			if c.passes(sub, v) {
				n++
			}
		}
		if n != 1 {
			c.failf(loc, "matches %d of the oneOf schemas, not one", n)
		}
	}
}

// passes reports whether v is valid against s, reporting nothing.
func (c *checker) passes(s *schema.Schema, v any) bool {
	sub := &checker{reg: c.reg, request: c.request, depth: c.depth}
	sub.check(s, v, "")
	return len(sub.errs) == 0
}

func (c *checker) checkString(s *schema.Schema, x, loc string) {
	n := utf8.RuneCountInString(x)
	if s.MinLength != nil && n < *s.MinLength {
		c.failf(loc, "length %d < minLength %d", n, *s.MinLength)
	}
	if s.MaxLength != nil && n > *s.MaxLength {
		c.failf(loc, "length %d > maxLength %d", n, *s.MaxLength)
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		switch {
		case err != nil:
			c.failf(loc, "pattern %q does not compile: %v", s.Pattern, err)
		case !re.MatchString(x):
			c.failf(loc, "%s does not match the pattern %q", short(x), s.Pattern)
		}
	}
}

func (c *checker) checkNumber(s *schema.Schema, x json.Number, loc string) {
	f, err := x.Float64()
	if err != nil && !strings.Contains(err.Error(), "range") {
		c.failf(loc, "number %s: %v", x, err)
		return
	}
	if s.Minimum != nil && f < *s.Minimum {
		c.failf(loc, "%s < minimum %v", x, *s.Minimum)
	}
	if s.Maximum != nil && f > *s.Maximum {
		c.failf(loc, "%s > maximum %v", x, *s.Maximum)
	}
	if s.ExclusiveMinimum != nil && f <= *s.ExclusiveMinimum {
		c.failf(loc, "%s <= exclusiveMinimum %v", x, *s.ExclusiveMinimum)
	}
	if s.ExclusiveMaximum != nil && f >= *s.ExclusiveMaximum {
		c.failf(loc, "%s >= exclusiveMaximum %v", x, *s.ExclusiveMaximum)
	}
	if s.MultipleOf != nil && *s.MultipleOf > 0 {
		q := f / *s.MultipleOf
		if math.Abs(q-math.Round(q)) > 1e-9 {
			c.failf(loc, "%s is not a multiple of %v", x, *s.MultipleOf)
		}
	}
}

func (c *checker) checkArray(s *schema.Schema, x []any, loc string) {
	if s.MinItems != nil && len(x) < *s.MinItems {
		c.failf(loc, "%d items < minItems %d", len(x), *s.MinItems)
	}
	if s.MaxItems != nil && len(x) > *s.MaxItems {
		c.failf(loc, "%d items > maxItems %d", len(x), *s.MaxItems)
	}
	if s.UniqueItems {
		for i := range x {
			for j := i + 1; j < len(x); j++ {
				if jsonEqual(x[i], x[j]) {
					c.failf(loc, "items %d and %d are equal, uniqueItems", i, j)
				}
			}
		}
	}
	for i, item := range x {
		c.check(s.Items, item, fmt.Sprintf("%s[%d]", loc, i))
	}
}

func (c *checker) checkObject(s *schema.Schema, x map[string]any, loc string) {
	if s.MinProperties != nil && len(x) < *s.MinProperties {
		c.failf(loc, "%d properties < minProperties %d", len(x), *s.MinProperties)
	}
	if s.MaxProperties != nil && len(x) > *s.MaxProperties {
		c.failf(loc, "%d properties > maxProperties %d", len(x), *s.MaxProperties)
	}
	for _, name := range s.Required {
		if _, ok := x[name]; ok {
			continue
		}
		if p := s.Properties[name]; p != nil {
			if t := c.reg.Resolve(p); c.request && t.ReadOnly || !c.request && t.WriteOnly {
				continue
			}
		}
		c.failf(loc, "required property %q is missing", name)
	}
	for _, name := range sortedKeys(x) {
		if p, ok := s.Properties[name]; ok {
			c.check(p, x[name], loc+"."+name)
		} else if s.AdditionalProperties != nil {
			c.check(s.AdditionalProperties, x[name], loc+"."+name)
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// hasType reports whether v is of JSON Schema type t.
func hasType(t string, v any) bool {
	switch x := v.(type) {
	case nil:
		return t == schema.TypeNull
	case bool:
		return t == schema.TypeBoolean
	case string:
		return t == schema.TypeString
	case json.Number:
		if t == schema.TypeNumber {
			return true
		}
		if t != schema.TypeInteger {
			return false
		}
		r, ok := new(big.Rat).SetString(x.String())
		return ok && r.IsInt()
	case []any:
		return t == schema.TypeArray
	case map[string]any:
		return t == schema.TypeObject
	}
	return false
}

func typeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean " + fmt.Sprint(x)
	case string:
		return "string " + short(x)
	case json.Number:
		return "number " + x.String()
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// jsonEqual compares a schema's value (enum, const: Go values) with a
// decoded JSON value, through their JSON.
func jsonEqual(a, b any) bool {
	norm := func(v any) any {
		js, err := json.Marshal(v)
		if err != nil {
			return v
		}
		var out any
		if json.Unmarshal(js, &out) != nil {
			return v
		}
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

func short(v any) string {
	js, _ := json.Marshal(v)
	if len(js) > 60 {
		return string(js[:57]) + "..."
	}
	return string(js)
}
