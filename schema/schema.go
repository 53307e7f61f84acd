// Package schema is vane's JSON Schema 2020-12 model and its derivation from
// Go types and struct tags.
//
// A [Schema] marshals with encoding/json to a valid JSON Schema 2020-12
// document (the dialect OpenAPI 3.1 uses), so the OpenAPI document embeds it
// as it is. A [Registry] derives schemas from Go types: named struct types
// become components referenced by $ref, everything else is inlined.
//
// The same tags that document a field validate it (package validate reads
// the schema this package derives), so the tag vocabulary lives here:
//
//	required, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
//	multipleOf, minLength, maxLength, pattern, format, enum, minItems,
//	maxItems, uniqueItems, minProperties, maxProperties, nullable,
//	readOnly, writeOnly, deprecated, example, doc, default
package schema

import (
	"encoding/json"
	"fmt"
)

// Type names of JSON Schema's "type" keyword.
const (
	TypeNull    = "null"
	TypeBoolean = "boolean"
	TypeObject  = "object"
	TypeArray   = "array"
	TypeNumber  = "number"
	TypeInteger = "integer"
	TypeString  = "string"
)

// Schema is a JSON Schema 2020-12 schema. The zero value is the empty schema,
// which accepts any instance.
//
// Type and Nullable together make the "type" keyword: with Nullable set, a
// Type of "string" marshals as ["string", "null"] (OpenAPI 3.1 has no
// "nullable" keyword; a type union replaces it). A nullable $ref marshals as
// anyOf [$ref, {"type": "null"}].
//
// Properties marshal in the order of PropertyOrder when it lists them all
// (the Go field order, for derived schemas), otherwise sorted by name.
type Schema struct {
	// False makes this the boolean schema false, which no instance
	// matches (additionalProperties: false); it marshals as false, and
	// every other field is ignored.
	False bool `json:"-"`

	Ref         string `json:"$ref,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`

	Type     string `json:"-"`
	Nullable bool   `json:"-"`
	Format   string `json:"format,omitempty"`

	ContentEncoding  string `json:"contentEncoding,omitempty"`
	ContentMediaType string `json:"contentMediaType,omitempty"`

	Enum     []any `json:"enum,omitempty"`
	Const    any   `json:"const,omitempty"`
	Default  any   `json:"default,omitempty"`
	Examples []any `json:"examples,omitempty"`

	ReadOnly   bool `json:"readOnly,omitempty"`
	WriteOnly  bool `json:"writeOnly,omitempty"`
	Deprecated bool `json:"deprecated,omitempty"`

	// Numbers.
	Minimum          *float64 `json:"minimum,omitempty"`
	Maximum          *float64 `json:"maximum,omitempty"`
	ExclusiveMinimum *float64 `json:"exclusiveMinimum,omitempty"`
	ExclusiveMaximum *float64 `json:"exclusiveMaximum,omitempty"`
	MultipleOf       *float64 `json:"multipleOf,omitempty"`

	// Strings.
	MinLength *int   `json:"minLength,omitempty"`
	MaxLength *int   `json:"maxLength,omitempty"`
	Pattern   string `json:"pattern,omitempty"`

	// Arrays.
	Items       *Schema `json:"items,omitempty"`
	MinItems    *int    `json:"minItems,omitempty"`
	MaxItems    *int    `json:"maxItems,omitempty"`
	UniqueItems bool    `json:"uniqueItems,omitempty"`

	// Objects.
	Properties           map[string]*Schema `json:"-"`
	PropertyOrder        []string           `json:"-"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties *Schema            `json:"additionalProperties,omitempty"`
	MinProperties        *int               `json:"minProperties,omitempty"`
	MaxProperties        *int               `json:"maxProperties,omitempty"`
	// DependentRequired lists, for a property, the properties that must
	// be present when it is.
	DependentRequired map[string][]string `json:"dependentRequired,omitempty"`

	// Composition.
	AllOf []*Schema `json:"allOf,omitempty"`
	AnyOf []*Schema `json:"anyOf,omitempty"`
	OneOf []*Schema `json:"oneOf,omitempty"`
	Not   *Schema   `json:"not,omitempty"`

	// Discriminator is OpenAPI's: which member of an instance names the
	// branch of a oneOf or anyOf of $refs it matches.
	Discriminator *Discriminator `json:"discriminator,omitempty"`

	// Extensions are extra keywords (OpenAPI "x-…" extensions, for one),
	// marshalled after the others.
	Extensions map[string]any `json:"-"`

	derived bool // derived from a Go struct type by a Registry
}

// Discriminator is an OpenAPI discriminator object: the member whose
// value names the branch, and each value's $ref.
type Discriminator struct {
	PropertyName string            `json:"propertyName"`
	Mapping      map[string]string `json:"mapping,omitempty"`
}

// plain has Schema's fields without its methods, so that MarshalJSON can
// delegate to encoding/json without recursing.
type plain Schema

// MarshalJSON encodes s as JSON Schema 2020-12.
func (s Schema) MarshalJSON() ([]byte, error) {
	if s.False {
		return []byte("false"), nil
	}
	if s.Nullable && s.Ref != "" {
		// A $ref cannot carry a type union: wrap it.
		inner := s
		inner.Nullable = false
		return json.Marshal(Schema{
			Description: inner.Description, Deprecated: inner.Deprecated,
			ReadOnly: inner.ReadOnly, WriteOnly: inner.WriteOnly,
			AnyOf: []*Schema{{Ref: inner.Ref}, {Type: TypeNull}},
		})
	}
	var typ any
	switch {
	case s.Type != "" && s.Nullable:
		typ = []string{s.Type, TypeNull}
	case s.Type != "":
		typ = s.Type
	}
	var props json.RawMessage
	if s.Properties != nil {
		b, err := marshalProperties(s.Properties, s.PropertyOrder)
		if err != nil {
			return nil, err
		}
		props = b
	}
	b, err := json.Marshal(struct {
		Type       any             `json:"type,omitempty"`
		Properties json.RawMessage `json:"properties,omitempty"`
		*plain
	}{typ, props, (*plain)(&s)})
	if err != nil || len(s.Extensions) == 0 {
		return b, err
	}
	ext, err := json.Marshal(s.Extensions)
	if err != nil {
		return nil, err
	}
	if len(b) == 2 { // "{}"
		return ext, nil
	}
	// Splice: {...} + {...} → {..., ...}
	out := make([]byte, 0, len(b)+len(ext))
	out = append(out, b[:len(b)-1]...)
	out = append(out, ',')
	out = append(out, ext[1:]...)
	return out, nil
}

func marshalProperties(props map[string]*Schema, order []string) ([]byte, error) {
	if len(order) != len(props) {
		return json.Marshal(props) // sorted by name
	}
	buf := []byte{'{'}
	for i, name := range order {
		p, ok := props[name]
		if !ok {
			return json.Marshal(props)
		}
		if i > 0 {
			buf = append(buf, ',')
		}
		k, _ := json.Marshal(name)
		buf = append(buf, k...)
		buf = append(buf, ':')
		v, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		buf = append(buf, v...)
	}
	return append(buf, '}'), nil
}

// UnmarshalJSON decodes a schema written by MarshalJSON (or any JSON Schema
// using the keywords this model knows; others are dropped).
func (s *Schema) UnmarshalJSON(data []byte) error {
	switch string(data) {
	case "false":
		*s = Schema{False: true}
		return nil
	case "true":
		*s = Schema{}
		return nil
	}
	var aux struct {
		Type       json.RawMessage    `json:"type"`
		Properties map[string]*Schema `json:"properties"`
		*plain
	}
	aux.plain = (*plain)(s)
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	s.Properties = aux.Properties
	if len(aux.Type) == 0 {
		return nil
	}
	if aux.Type[0] == '"' {
		return json.Unmarshal(aux.Type, &s.Type)
	}
	var types []string
	if err := json.Unmarshal(aux.Type, &types); err != nil {
		return err
	}
	for _, t := range types {
		switch {
		case t == TypeNull:
			s.Nullable = true
		case s.Type == "":
			s.Type = t
		default:
			return fmt.Errorf("schema: type union %v has more than one non-null type", types)
		}
	}
	return nil
}

// IsRequired reports whether name is in s.Required.
func (s *Schema) IsRequired(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }
