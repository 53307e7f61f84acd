package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// instanceSchema evaluates a JSON body against its whole schema, as a JSON
// Schema 2020-12 validator does, for the keywords a Go value cannot show:
// allOf, anyOf, oneOf, not, const and dependentRequired (and everything
// under them, a Provider's schema for one). The compiled checkers stay the
// fast path; a body whose schema uses none of these keywords never gets
// here. Evaluation decodes the body into Go's generic JSON values, so it
// allocates, and takes time linear in the body times the schema's size.
type instanceSchema struct {
	reg      *schema.Registry
	root     *schema.Schema
	patterns map[string]*regexp.Regexp
}

// errFound ends a walkSchemas early without an error.
var errFound = errors.New("found")

// walkSchemas calls visit once for s and for every schema it reaches: its
// $ref's target, items, additionalProperties, not, allOf, anyOf, oneOf and
// properties (in name order), each with its location below loc ("[]" for
// items, ".name" for a property; a target, combinator or not keeps its
// schema's). It returns the first error visit returns, except errFound,
// which ends the walk with nil.
func walkSchemas(reg *schema.Registry, s *schema.Schema, loc string, visit func(s *schema.Schema, loc string) error) error {
	seen := map[*schema.Schema]bool{}
	var walk func(s *schema.Schema, loc string) error
	walk = func(s *schema.Schema, loc string) error {
		if s == nil || seen[s] {
			return nil
		}
		seen[s] = true
		if err := visit(s, loc); err != nil {
			return err
		}
		if s.Ref != "" {
			if r := reg.Resolve(s); r != s {
				if err := walk(r, loc); err != nil {
					return err
				}
			}
		}
		if err := walk(s.Items, loc+"[]"); err != nil {
			return err
		}
		for _, sub := range append(append(append([]*schema.Schema{s.AdditionalProperties, s.Not}, s.AllOf...), s.AnyOf...), s.OneOf...) {
			if err := walk(sub, loc); err != nil {
				return err
			}
		}
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			if err := walk(s.Properties[name], loc+"."+name); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(s, loc); err != errFound {
		return err
	}
	return nil
}

// needsInstance reports whether s, or a schema it reaches, uses a keyword
// only the instance evaluator enforces.
func needsInstance(reg *schema.Registry, s *schema.Schema) bool {
	found := false
	walkSchemas(reg, s, "", func(s *schema.Schema, _ string) error { //nolint:errcheck // visit fails only with errFound
		if len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 || s.Not != nil || s.Const != nil || len(s.DependentRequired) > 0 {
			found = true
			return errFound
		}
		return nil
	})
	return found
}

// compileInstance prepares the evaluation of s: every pattern it reaches is
// compiled now, and one that Go's RE2 syntax refuses is an error.
func compileInstance(reg *schema.Registry, s *schema.Schema) (*instanceSchema, error) {
	is := &instanceSchema{reg: reg, root: s, patterns: map[string]*regexp.Regexp{}}
	return is, walkSchemas(reg, s, "", func(s *schema.Schema, _ string) error {
		if s.Pattern != "" && is.patterns[s.Pattern] == nil {
			re, err := regexp.Compile(s.Pattern)
			if err != nil {
				return fmt.Errorf("pattern %q is not RE2 syntax: %w", s.Pattern, err)
			}
			is.patterns[s.Pattern] = re
		}
		return nil
	})
}

// validate decodes raw and evaluates it, adding a failure per location to c
// (nil: report only whether it passes).
func (is *instanceSchema) validate(raw []byte, c *collector) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return true // the decoder has already answered a body that does not parse
	}
	var loc problem.Location
	if c != nil {
		loc = append(loc, c.loc...)
	}
	e := &evaluator{is: is, collect: c != nil}
	ok := e.eval(is.root, v, loc)
	if c != nil {
		for _, f := range e.errs {
			c.errs = appendNew(c.errs, f)
		}
	}
	return ok
}

// appendNew adds f unless a failure at the same location is already there.
func appendNew(errs []problem.FieldError, f problem.FieldError) []problem.FieldError {
	for _, e := range errs {
		if e.Location == f.Location {
			return errs
		}
	}
	return append(errs, f)
}

type evaluator struct {
	is      *instanceSchema
	collect bool
	errs    []problem.FieldError
}

func (e *evaluator) fail(loc problem.Location, msg string, v any) bool {
	if e.collect {
		e.errs = append(e.errs, problem.FieldError{Location: string(loc), Message: msg, Value: v})
	}
	return false
}

// quiet returns whether v passes s, reporting nothing: for the branches of
// anyOf, oneOf and not.
func (e *evaluator) quiet(s *schema.Schema, v any) bool {
	q := evaluator{is: e.is}
	return q.eval(s, v, nil)
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return schema.TypeNull
	case bool:
		return schema.TypeBoolean
	case string:
		return schema.TypeString
	case json.Number:
		if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return schema.TypeInteger
		}
		if f, err := v.Float64(); err == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
			return schema.TypeInteger
		}
		return schema.TypeNumber
	case []any:
		return schema.TypeArray
	case map[string]any:
		return schema.TypeObject
	}
	return ""
}

// eval evaluates every keyword of s on v, reporting each failure (when
// collecting) at loc or below, and returns whether v passes.
func (e *evaluator) eval(s *schema.Schema, v any, loc problem.Location) bool {
	if s == nil {
		return true
	}
	if s.False {
		return e.fail(loc, "not allowed here", v)
	}
	ok := true
	if s.Ref != "" {
		if r := e.is.reg.Resolve(s); r != nil && r != s {
			ok = e.eval(r, v, loc) && ok
			if !ok && !e.collect {
				return false
			}
		}
	}
	t := jsonType(v)
	if s.Type != "" {
		match := t == s.Type || (s.Type == schema.TypeNumber && t == schema.TypeInteger) || (s.Nullable && t == schema.TypeNull)
		if !match {
			return e.fail(loc, "expected "+s.Type+", not "+t, v)
		}
	} else if s.Nullable && t == schema.TypeNull {
		return ok
	}
	if t == schema.TypeNull && s.Nullable {
		return ok
	}
	if len(s.Enum) > 0 {
		found := false
		for _, x := range s.Enum {
			if equalJSON(x, v) {
				found = true
				break
			}
		}
		if !found {
			ok = e.fail(loc, "expected one of the enum values", v)
		}
	}
	if s.Const != nil && !equalJSON(s.Const, v) {
		ok = e.fail(loc, "expected "+canonical(s.Const), v)
	}
	switch v := v.(type) {
	case json.Number:
		ok = e.number(s, v, loc) && ok
	case string:
		ok = e.str(s, v, loc) && ok
	case []any:
		ok = e.array(s, v, loc) && ok
	case map[string]any:
		ok = e.object(s, v, loc) && ok
	}
	if !ok && !e.collect {
		return false
	}
	for _, sub := range s.AllOf {
		ok = e.eval(sub, v, loc) && ok
	}
	if len(s.AnyOf) > 0 {
		any := false
		for _, sub := range s.AnyOf {
			if e.quiet(sub, v) {
				any = true
				break
			}
		}
		if !any {
			ok = e.fail(loc, fmt.Sprintf("expected to match at least one of %d schemas (anyOf), matched none", len(s.AnyOf)), v)
		}
	}
	if len(s.OneOf) > 0 {
		var matched []string
		for i, sub := range s.OneOf {
			if e.quiet(sub, v) {
				matched = append(matched, strconv.Itoa(i))
			}
		}
		if len(matched) != 1 {
			what := "none"
			if len(matched) > 1 {
				what = "schemas " + strings.Join(matched, " and ")
			}
			ok = e.fail(loc, fmt.Sprintf("expected to match exactly one of %d schemas (oneOf), matched %s", len(s.OneOf), what), v)
		}
	}
	if s.Not != nil && e.quiet(s.Not, v) {
		ok = e.fail(loc, "expected not to match the schema under not", v)
	}
	return ok
}

func (e *evaluator) number(s *schema.Schema, n json.Number, loc problem.Location) bool {
	f, err := n.Float64()
	if err != nil {
		return e.fail(loc, "number out of range", n)
	}
	ok := true
	if s.Minimum != nil && f < *s.Minimum {
		ok = e.fail(loc, "expected number >= "+fmtNum(*s.Minimum), n)
	}
	if s.Maximum != nil && f > *s.Maximum {
		ok = e.fail(loc, "expected number <= "+fmtNum(*s.Maximum), n)
	}
	if s.ExclusiveMinimum != nil && f <= *s.ExclusiveMinimum {
		ok = e.fail(loc, "expected number > "+fmtNum(*s.ExclusiveMinimum), n)
	}
	if s.ExclusiveMaximum != nil && f >= *s.ExclusiveMaximum {
		ok = e.fail(loc, "expected number < "+fmtNum(*s.ExclusiveMaximum), n)
	}
	if s.MultipleOf != nil && !isMultiple(f, *s.MultipleOf) {
		ok = e.fail(loc, "expected a multiple of "+fmtNum(*s.MultipleOf), n)
	}
	return ok
}

func (e *evaluator) str(s *schema.Schema, v string, loc problem.Location) bool {
	ok := true
	if s.MinLength != nil || s.MaxLength != nil {
		l := utf8.RuneCountInString(v)
		if s.MinLength != nil && l < *s.MinLength {
			ok = e.fail(loc, "expected length >= "+strconv.Itoa(*s.MinLength), v)
		}
		if s.MaxLength != nil && l > *s.MaxLength {
			ok = e.fail(loc, "expected length <= "+strconv.Itoa(*s.MaxLength), v)
		}
	}
	if s.Pattern != "" && !e.is.patterns[s.Pattern].MatchString(v) {
		ok = e.fail(loc, "expected to match pattern "+s.Pattern, v)
	}
	if f := formats[s.Format]; f != nil && !f(v) {
		ok = e.fail(loc, "expected format "+s.Format, v)
	}
	return ok
}

func (e *evaluator) array(s *schema.Schema, v []any, loc problem.Location) bool {
	if s.MaxItems != nil && len(v) > *s.MaxItems {
		return e.fail(loc, fmt.Sprintf("expected at most %d items", *s.MaxItems), len(v))
	}
	ok := true
	if s.MinItems != nil && len(v) < *s.MinItems {
		ok = e.fail(loc, fmt.Sprintf("expected at least %d items", *s.MinItems), len(v))
	}
	if s.UniqueItems {
		seen := make(map[string]int, len(v))
		for j, x := range v {
			k := canonical(x)
			if i, dup := seen[k]; dup {
				ok = e.fail(loc.Index(j), fmt.Sprintf("expected unique items: same as item %d", i), x)
				break
			}
			seen[k] = j
		}
	}
	if s.Items != nil {
		for i, x := range v {
			if !e.eval(s.Items, x, loc.Index(i)) {
				ok = false
				if !e.collect {
					return false
				}
			}
		}
	}
	return ok
}

func (e *evaluator) object(s *schema.Schema, v map[string]any, loc problem.Location) bool {
	ok := true
	if s.MinProperties != nil && len(v) < *s.MinProperties {
		ok = e.fail(loc, fmt.Sprintf("expected at least %d properties", *s.MinProperties), len(v))
	}
	if s.MaxProperties != nil && len(v) > *s.MaxProperties {
		ok = e.fail(loc, fmt.Sprintf("expected at most %d properties", *s.MaxProperties), len(v))
	}
	for _, name := range s.Required {
		if _, has := v[name]; !has {
			ok = e.fail(loc.Field(name), "required property is missing", nil)
		}
	}
	deps := make([]string, 0, len(s.DependentRequired))
	for name := range s.DependentRequired {
		deps = append(deps, name)
	}
	sort.Strings(deps)
	for _, name := range deps {
		if _, has := v[name]; !has {
			continue
		}
		for _, need := range s.DependentRequired[name] {
			if _, has := v[need]; !has {
				ok = e.fail(loc.Field(need), "required when "+name+" is present", nil)
			}
		}
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		sub, known := s.Properties[k]
		if !known {
			sub = s.AdditionalProperties
		}
		if sub == nil {
			continue
		}
		if !known && isFalse(sub) {
			ok = e.fail(loc.Field(k), "unknown property", v[k])
		} else if !e.eval(sub, v[k], loc.Field(k)) {
			ok = false
		}
		if !ok && !e.collect {
			return false
		}
	}
	return ok
}

// isFalse reports a schema that nothing matches: the boolean schema false,
// or {"not": {}}.
func isFalse(s *schema.Schema) bool {
	if s.False {
		return true
	}
	return s.Not != nil && isEmptySchema(s.Not) && s.Ref == "" && s.Type == ""
}

func isEmptySchema(s *schema.Schema) bool {
	b, err := json.Marshal(s)
	return err == nil && string(b) == "{}"
}

// canonical is v's JSON with object keys sorted and numbers in one form,
// so that equal instances have equal text.
func canonical(v any) string {
	switch v := v.(type) {
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return fmtNum(f)
		}
		return string(v)
	case float64:
		return fmtNum(v)
	case float32:
		return fmtNum(float64(v))
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = canonical(x)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			b.WriteString(canonical(v[k]))
		}
		b.WriteByte('}')
		return b.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	// A Go value (from a tag or a Provider): through the generic form, so
	// that it compares as the instance would.
	var g any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&g) == nil {
		switch g.(type) {
		case []any, map[string]any, json.Number:
			return canonical(g)
		}
	}
	return string(b)
}

// equalJSON reports whether a schema's value (enum, const: any Go value)
// and an instance are the same JSON value.
func equalJSON(schemaValue, instance any) bool {
	return canonical(schemaValue) == canonical(instance)
}

// checkDefaults evaluates every default that s reaches against the schema
// that documents it, and returns the first that breaks its own rules.
func checkDefaults(reg *schema.Registry, s *schema.Schema) error {
	return walkSchemas(reg, s, "body", func(s *schema.Schema, loc string) error {
		if s.Default == nil {
			return nil
		}
		is, err := compileInstance(reg, s)
		if err != nil {
			return err
		}
		raw, err := json.Marshal(s.Default)
		if err != nil {
			return fmt.Errorf("%s: default %v: %w", loc, s.Default, err)
		}
		c := &collector{loc: problem.Location(loc)}
		if !is.validate(raw, c) && len(c.errs) > 0 {
			return fmt.Errorf("%s: the default %s breaks its own rules: %s", loc, raw, c.errs[0].Message)
		}
		return nil
	})
}

// Instance evaluates the JSON document raw against s, whose $refs point
// into reg, as a JSON Schema 2020-12 validator would, and returns every
// failure with locations under root ("body"). It is for tests and tools
// (package vanetest checks responses with it); requests are validated by
// the compiled validators. An error means s cannot be evaluated (a
// pattern that is not RE2) or raw is not JSON.
func Instance(reg *schema.Registry, s *schema.Schema, raw []byte, root string) ([]problem.FieldError, error) {
	if !json.Valid(raw) {
		return nil, fmt.Errorf("validate: not JSON: %.40q", raw)
	}
	is, err := compileInstance(reg, s)
	if err != nil {
		return nil, err
	}
	c := &collector{loc: problem.Location(root)}
	is.validate(raw, c)
	return c.errs, nil
}

// InstanceValidator evaluates JSON documents against one schema, compiled
// once: for request bodies whose schema no Go type derives (a merge
// patch's, say).
type InstanceValidator struct {
	is *instanceSchema
}

// NewInstanceValidator compiles s, whose $refs point into reg.
func NewInstanceValidator(reg *schema.Registry, s *schema.Schema) (*InstanceValidator, error) {
	is, err := compileInstance(reg, s)
	if err != nil {
		return nil, err
	}
	return &InstanceValidator{is: is}, nil
}

// Validate returns every failure of the JSON document raw, with locations
// under root ("body"); raw must be well-formed JSON.
func (v *InstanceValidator) Validate(raw []byte, root string) []problem.FieldError {
	c := &collector{loc: problem.Location(root)}
	v.is.validate(raw, c)
	return c.errs
}
