package openapi

// The OpenAPI 3.0 translation and the YAML rendering as they were made
// before the document writer (write.go): from the JSON text, the YAML
// through go-yaml's node encoder. Kept as the reference that
// TestOutputsAgreeWithLegacy compares the writer's forms with.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// legacyJnode is a JSON value that keeps the order of an legacyObject's keys and the
// exact text of its numbers, so that a document can be rewritten and
// written again with nothing changed but what the rewrite changed.
type legacyJnode struct {
	kind  byte           // '{', '[', or 'v' for a legacyScalar
	keys  []string       // an legacyObject's keys, in order
	vals  []*legacyJnode // an legacyObject's values, or an legacyArray's items
	value json.RawMessage
}

func legacyParseJSON(data []byte) (*legacyJnode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := legacyParseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("openapi: trailing data after the document")
	}
	return n, nil
}

func legacyParseValue(dec *json.Decoder) (*legacyJnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		switch tok {
		case '{':
			n := &legacyJnode{kind: '{'}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := legacyParseValue(dec)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token() // }
			return n, err
		case '[':
			n := &legacyJnode{kind: '['}
			for dec.More() {
				v, err := legacyParseValue(dec)
				if err != nil {
					return nil, err
				}
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token() // ]
			return n, err
		}
		return nil, fmt.Errorf("openapi: unexpected %v", tok)
	case json.Number:
		return &legacyJnode{kind: 'v', value: json.RawMessage(tok)}, nil
	default:
		b, err := json.Marshal(tok)
		return &legacyJnode{kind: 'v', value: b}, err
	}
}

// legacyScalar returns a legacyScalar node holding v's JSON.
func legacyScalar(v any) *legacyJnode {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with strings, booleans and nil
	}
	return &legacyJnode{kind: 'v', value: b}
}

func legacyObject() *legacyJnode { return &legacyJnode{kind: '{'} }

func legacyArray(items ...*legacyJnode) *legacyJnode { return &legacyJnode{kind: '[', vals: items} }

func (n *legacyJnode) isObject() bool { return n != nil && n.kind == '{' }
func (n *legacyJnode) isArray() bool  { return n != nil && n.kind == '[' }

// get returns the value of key, or nil.
func (n *legacyJnode) get(key string) *legacyJnode {
	if !n.isObject() {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// set replaces key's value, or appends key.
func (n *legacyJnode) set(key string, v *legacyJnode) {
	for i, k := range n.keys {
		if k == key {
			n.vals[i] = v
			return
		}
	}
	n.keys = append(n.keys, key)
	n.vals = append(n.vals, v)
}

// setAfter sets key, placing it just after the key after when it is new
// and after is present.
func (n *legacyJnode) setAfter(after, key string, v *legacyJnode) {
	if n.get(key) != nil {
		n.set(key, v)
		return
	}
	for i, k := range n.keys {
		if k == after {
			n.keys = append(n.keys[:i+1], append([]string{key}, n.keys[i+1:]...)...)
			n.vals = append(n.vals[:i+1], append([]*legacyJnode{v}, n.vals[i+1:]...)...)
			return
		}
	}
	n.set(key, v)
}

// rename changes key's name in place, keeping its position.
func (n *legacyJnode) rename(key, to string) {
	for i, k := range n.keys {
		if k == key {
			n.keys[i] = to
			return
		}
	}
}

func (n *legacyJnode) del(key string) {
	for i, k := range n.keys {
		if k == key {
			n.keys = append(n.keys[:i], n.keys[i+1:]...)
			n.vals = append(n.vals[:i], n.vals[i+1:]...)
			return
		}
	}
}

// str returns a string legacyScalar's value, or "".
func (n *legacyJnode) str() (string, bool) {
	if n == nil || n.kind != 'v' || len(n.value) == 0 || n.value[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(n.value, &s) == nil
}

// number returns a number legacyScalar's value.
func (n *legacyJnode) number() (float64, bool) {
	if n == nil || n.kind != 'v' || len(n.value) == 0 {
		return 0, false
	}
	if c := n.value[0]; c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n.value), 64)
	return f, err == nil
}

func (n *legacyJnode) isNull() bool { return n != nil && n.kind == 'v' && string(n.value) == "null" }

// boolean returns a boolean legacyScalar's value.
func (n *legacyJnode) boolean() (value, ok bool) {
	if n == nil || n.kind != 'v' {
		return false, false
	}
	switch string(n.value) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// copy returns a deep copy of n.
func (n *legacyJnode) copy() *legacyJnode {
	if n == nil {
		return nil
	}
	c := &legacyJnode{kind: n.kind, value: n.value, keys: append([]string(nil), n.keys...)}
	for _, v := range n.vals {
		c.vals = append(c.vals, v.copy())
	}
	return c
}

// appendJSON appends n's compact JSON to b.
func (n *legacyJnode) appendJSON(b []byte) []byte {
	switch n.kind {
	case '{':
		b = append(b, '{')
		for i, k := range n.keys {
			if i > 0 {
				b = append(b, ',')
			}
			kb, _ := json.Marshal(k)
			b = append(b, kb...)
			b = append(b, ':')
			b = n.vals[i].appendJSON(b)
		}
		return append(b, '}')
	case '[':
		b = append(b, '[')
		for i, v := range n.vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = v.appendJSON(b)
		}
		return append(b, ']')
	}
	return append(b, n.value...)
}

// Version30 is the OpenAPI version of the translated documents that
// [legacyTranslate30] writes, for the tools that read only OpenAPI 3.0.

// JSON30 returns the document translated to OpenAPI 3.0.3 (see
// [legacyTranslate30]), as indented JSON.

// YAML30 returns the document translated to OpenAPI 3.0.3, as YAML.

// legacyTranslate30 translates an OpenAPI 3.1 document (JSON) to OpenAPI 3.0.3,
// for client generators and other tools that read only 3.0. It describes the
// same paths, operations, parameters and responses; the schemas say the same
// in 3.0's dialect wherever 3.0 can say it:
//
//   - a type union with "null" becomes the type with nullable: true; a
//     union of several types an anyOf of one schema per type; "null" alone
//     nullable with enum [null]; anyOf or oneOf with a {"type": "null"}
//     branch the other branches with nullable: true (a lone $ref as allOf
//     [$ref], since a $ref takes no siblings in 3.0);
//   - const becomes a one-value enum; examples its first example;
//   - exclusiveMinimum and exclusiveMaximum, numbers in 3.1, become minimum
//     and maximum with the boolean legacyExclusive form (the stricter bound when
//     both forms are present);
//   - a string with contentEncoding base64 becomes format: byte, one with a
//     contentMediaType and no encoding format: binary (the media type kept
//     as an extension, below); content without a type (a file part of a
//     form) is such a string;
//   - a $ref with sibling keywords becomes allOf [$ref] beside them; $defs
//     move to components/schemas (named after the schema that held them)
//     and the $refs to them follow; boolean schemas become {} and
//     {"not": {}}; an legacyArray gets the items: {} 3.0 requires;
//   - JSON Schema keywords 3.0 lacks (patternProperties, prefixItems,
//     contains, dependentRequired, if/then/else, propertyNames,
//     unevaluatedProperties, …) are kept as "x-jsonschema-<keyword>"
//     extensions: 3.0 tools ignore them, and nothing is lost.
//
// Outside schemas: info.summary becomes the description when there is
// none, license.identifier becomes an SPDX URL, webhooks,
// jsonSchemaDialect and components/pathItems are legacyDropped, a Reference
// Object keeps only its $ref, and mutualTLS security schemes (and the
// requirements naming them) are legacyDropped.
func legacyTranslate30(doc31 []byte) ([]byte, error) {
	root, err := legacyParseJSON(doc31)
	if err != nil {
		return nil, fmt.Errorf("openapi: reading the 3.1 document: %w", err)
	}
	if !root.isObject() {
		return nil, fmt.Errorf("openapi: the document is not a JSON legacyObject")
	}
	if v, _ := root.get("openapi").str(); !strings.HasPrefix(v, "3.1.") {
		return nil, fmt.Errorf("openapi: legacyTranslate30 reads OpenAPI 3.1 documents, not %q", v)
	}
	t := &legacyTranslator{root: root}
	t.document()
	b := root.appendJSON(nil)
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

type legacyTranslator struct {
	root *legacyJnode
	// defs are the $defs moved to components/schemas: their names there,
	// by the JSON pointer of their old place.
	defs     map[string]string
	defNodes []legacyDefEntry
}

type legacyDefEntry struct {
	name   string
	schema *legacyJnode
}

func (t *legacyTranslator) document() {
	d := t.root
	d.set("openapi", legacyScalar(Version30))
	d.del("jsonSchemaDialect")
	d.del("webhooks")
	if d.get("paths") == nil {
		d.setAfter("servers", "paths", legacyObject()) // required in 3.0
	}
	if info := d.get("info"); info.isObject() {
		if s := info.get("summary"); s != nil {
			if info.get("description") == nil {
				info.setAfter("summary", "description", s)
			}
			info.del("summary")
		}
		if lic := info.get("license"); lic.isObject() {
			if id, ok := lic.get("identifier").str(); ok {
				if lic.get("url") == nil {
					lic.setAfter("identifier", "url", legacyScalar("https://spdx.org/licenses/"+id+".html"))
				}
				lic.del("identifier")
			}
		}
	}

	// $defs first, so that schemas are translated where they end up.
	t.hoistDefs()

	mtls := map[string]bool{}
	if c := d.get("components"); c.isObject() {
		c.del("pathItems")
		if ss := c.get("securitySchemes"); ss.isObject() {
			for i := 0; i < len(ss.keys); i++ {
				if typ, _ := ss.vals[i].get("type").str(); typ == "mutualTLS" {
					mtls[ss.keys[i]] = true
					ss.del(ss.keys[i])
					i--
				}
			}
		}
		if schemas := c.get("schemas"); schemas.isObject() {
			for i := range schemas.vals {
				schemas.vals[i] = t.schema(schemas.vals[i])
			}
		}
	}
	for i, k := range d.keys {
		switch {
		case k == "info" || k == "openapi" || strings.HasPrefix(k, "x-"):
		case k == "paths":
			t.oasMap(d.vals[i])
		case k == "components":
			c := d.vals[i]
			for j, ck := range c.keys {
				if ck != "schemas" && !strings.HasPrefix(ck, "x-") {
					t.oasMap(c.vals[j])
				}
			}
		default:
			t.oas(d.vals[i])
		}
	}
	if len(mtls) > 0 {
		t.dropRequirements(d, mtls)
	}
}

// oas translates a part of the document that is OpenAPI objects (not a
// schema): the schemas it holds (under "schema" keys), and its Reference
// Objects.
func (t *legacyTranslator) oas(n *legacyJnode) {
	switch n.kind {
	case '[':
		for _, v := range n.vals {
			t.oas(v)
		}
	case '{':
		if legacyIsReference(n) {
			// 3.1 allows a summary and a description beside $ref, 3.0
			// nothing.
			n.keys, n.vals = []string{"$ref"}, []*legacyJnode{n.get("$ref")}
			return
		}
		for i, k := range n.keys {
			switch k {
			case "example", "examples", "default", "enum", "links":
				// Values (an Example Object's "value" sits under
				// "examples"), and Link Objects: the same in 3.0, and
				// holding no schema (a Link's requestBody is a value).
			case "schema":
				n.vals[i] = t.schema(n.vals[i])
			case "paths", "headers", "content", "encoding", "responses", "callbacks":
				// Maps whose keys are names, media types or statuses:
				// a key "schema" there is not a schema.
				t.oasMap(n.vals[i])
			default:
				if !strings.HasPrefix(k, "x-") {
					t.oas(n.vals[i])
				}
			}
		}
	}
}

// oasMap translates each value of a map of OpenAPI objects.
func (t *legacyTranslator) oasMap(n *legacyJnode) {
	if !n.isObject() {
		return
	}
	for i, k := range n.keys {
		if !strings.HasPrefix(k, "x-") {
			t.oas(n.vals[i])
		}
	}
}

// legacyIsReference reports whether n is a Reference Object: $ref, and at most a
// summary and a description.
func legacyIsReference(n *legacyJnode) bool {
	if n.get("$ref") == nil {
		return false
	}
	for _, k := range n.keys {
		if k != "$ref" && k != "summary" && k != "description" {
			return false
		}
	}
	return true
}

// dropRequirements removes, from every security requirement of the
// document, the schemes named in drop; a requirement left empty goes.
func (t *legacyTranslator) dropRequirements(d *legacyJnode, drop map[string]bool) {
	fix := func(sec *legacyJnode) {
		if !sec.isArray() {
			return
		}
		var kept []*legacyJnode
		for _, req := range sec.vals {
			had := len(req.keys) > 0
			for name := range drop {
				req.del(name)
			}
			if !had || len(req.keys) > 0 {
				kept = append(kept, req)
			}
		}
		sec.vals = kept
	}
	fix(d.get("security"))
	if paths := d.get("paths"); paths.isObject() {
		for _, item := range paths.vals {
			for _, m := range Methods {
				if op := item.get(strings.ToLower(m)); op.isObject() {
					fix(op.get("security"))
				}
			}
		}
	}
}

// legacySchemaKeywords30 are the keywords of OpenAPI 3.0's Schema Object.
var legacySchemaKeywords30 = map[string]bool{
	"title": true, "multipleOf": true, "maximum": true, "exclusiveMaximum": true, "minimum": true,
	"exclusiveMinimum": true, "maxLength": true, "minLength": true, "pattern": true, "maxItems": true,
	"minItems": true, "uniqueItems": true, "maxProperties": true, "minProperties": true, "required": true,
	"enum": true, "type": true, "allOf": true, "oneOf": true, "anyOf": true, "not": true, "items": true,
	"properties": true, "additionalProperties": true, "description": true, "format": true, "default": true,
	"nullable": true, "discriminator": true, "readOnly": true, "writeOnly": true, "xml": true,
	"externalDocs": true, "example": true, "deprecated": true, "$ref": true,
}

// legacyDropped are JSON Schema keywords that say nothing a 3.0 tool could use:
// identifiers and comments.
var legacyDropped = map[string]bool{"$schema": true, "$id": true, "$anchor": true, "$dynamicAnchor": true, "$comment": true, "$vocabulary": true}

// schema translates a JSON Schema 2020-12 schema to a 3.0 Schema Object and
// returns it (a new node where the schema was a boolean).
func (t *legacyTranslator) schema(s *legacyJnode) *legacyJnode {
	if s == nil {
		return nil
	}
	if v, ok := s.boolean(); ok {
		if v {
			return legacyObject()
		}
		return t.objectWith("not", legacyObject())
	}
	if !s.isObject() {
		return s
	}

	// Subschemas first.
	for i, k := range s.keys {
		switch k {
		case "properties":
			p := s.vals[i]
			if p.isObject() {
				for j := range p.vals {
					p.vals[j] = t.schema(p.vals[j])
				}
			}
		case "items", "not":
			s.vals[i] = t.schema(s.vals[i])
		case "additionalProperties":
			if _, isBool := s.vals[i].boolean(); !isBool {
				s.vals[i] = t.schema(s.vals[i])
			}
		case "allOf", "anyOf", "oneOf":
			if s.vals[i].isArray() {
				for j := range s.vals[i].vals {
					s.vals[i].vals[j] = t.schema(s.vals[i].vals[j])
				}
			}
		}
	}

	t.types(s)
	t.nullBranch(s, "anyOf")
	t.nullBranch(s, "oneOf")

	if c := s.get("const"); c != nil {
		if s.get("enum") == nil {
			s.setAfter("const", "enum", legacyArray(c))
		}
		s.del("const")
	}
	if ex := s.get("examples"); ex != nil {
		if ex.isArray() && len(ex.vals) > 0 && s.get("example") == nil {
			s.setAfter("examples", "example", ex.vals[0])
		}
		s.del("examples")
	}
	legacyExclusive(s, "minimum", "exclusiveMinimum", func(a, b float64) bool { return a >= b })
	legacyExclusive(s, "maximum", "exclusiveMaximum", func(a, b float64) bool { return a <= b })

	// Binary content.
	enc, hasEnc := s.get("contentEncoding").str()
	_, hasMedia := s.get("contentMediaType").str()
	if s.get("type") == nil && (hasEnc || hasMedia) && s.get("$ref") == nil {
		// Bytes with no JSON type (a file part of a form): a string in 3.0.
		s.set("type", legacyScalar("string"))
	}
	if typ, _ := s.get("type").str(); typ == "string" && s.get("format") == nil {
		switch {
		case hasEnc && strings.EqualFold(enc, "base64"):
			s.setAfter("type", "format", legacyScalar("byte")) // says all of it
			s.del("contentEncoding")
		case hasMedia && !hasEnc:
			s.setAfter("type", "format", legacyScalar("binary"))
		}
	}

	// An enum holding null needs nullable in 3.0.
	if e := s.get("enum"); e.isArray() && slices.ContainsFunc(e.vals, (*legacyJnode).isNull) {
		s.setAfter("type", "nullable", legacyScalar(true))
	}
	if typ, _ := s.get("type").str(); typ == "array" && s.get("items") == nil {
		s.setAfter("type", "items", legacyObject())
	}

	// What 3.0 has no keyword for.
	for i := 0; i < len(s.keys); i++ {
		k := s.keys[i]
		switch {
		case legacySchemaKeywords30[k] || strings.HasPrefix(k, "x-"):
		case legacyDropped[k]:
			s.del(k)
			i--
		default:
			s.keys[i] = "x-jsonschema-" + k
		}
	}

	// A $ref takes no siblings in 3.0.
	if ref := s.get("$ref"); ref != nil && len(s.keys) > 1 {
		s.del("$ref")
		all := legacyArray(t.objectWith("$ref", ref))
		if prev := s.get("allOf"); prev.isArray() {
			all.vals = append(all.vals, prev.vals...)
		}
		s.set("allOf", all)
	}
	return s
}

func (t *legacyTranslator) objectWith(key string, v *legacyJnode) *legacyJnode {
	o := legacyObject()
	o.set(key, v)
	return o
}

// types turns 3.1's type arrays into 3.0's single type and nullable.
func (t *legacyTranslator) types(s *legacyJnode) {
	typ := s.get("type")
	if typ == nil {
		return
	}
	if name, ok := typ.str(); ok {
		if name == "null" {
			s.del("type")
			s.set("nullable", legacyScalar(true))
			s.set("enum", legacyArray(legacyScalar(nil)))
		}
		return
	}
	if !typ.isArray() {
		return
	}
	var names []*legacyJnode
	nullable := false
	for _, v := range typ.vals {
		if n, _ := v.str(); n == "null" {
			nullable = true
		} else {
			names = append(names, v)
		}
	}
	switch len(names) {
	case 0:
		s.del("type")
		s.set("enum", legacyArray(legacyScalar(nil)))
	case 1:
		s.set("type", names[0])
	default:
		// Several types: one branch each, the other keywords beside them
		// (each applies only to its own type, as in JSON Schema).
		var branches []*legacyJnode
		for _, n := range names {
			branch := t.objectWith("type", n)
			if name, _ := n.str(); name == "array" {
				branch.set("items", legacyObject())
				if it := s.get("items"); it != nil {
					branch.set("items", it)
				}
			}
			branches = append(branches, branch)
		}
		s.rename("type", "anyOf")
		s.set("anyOf", legacyArray(branches...))
		s.del("items")
	}
	if nullable {
		after := "type"
		if s.get("type") == nil {
			after = "anyOf"
		}
		s.setAfter(after, "nullable", legacyScalar(true))
	}
}

// nullBranch turns anyOf or oneOf with a {"type": "null"} branch (after
// types translated it: {"nullable": true, "enum": [null]}) into the other
// branches and nullable: true.
func (t *legacyTranslator) nullBranch(s *legacyJnode, key string) {
	list := s.get(key)
	if !list.isArray() {
		return
	}
	var rest []*legacyJnode
	for _, b := range list.vals {
		if !legacyIsNullSchema(b) {
			rest = append(rest, b)
		}
	}
	if len(rest) == len(list.vals) || len(rest) == 0 {
		return
	}
	if len(rest) == 1 {
		// One schema, nullable: allOf [it] with nullable beside it, as 3.0
		// generators read a nullable reference.
		if all := s.get("allOf"); all.isArray() {
			all.vals = append(all.vals, rest[0])
			s.del(key)
		} else {
			s.rename(key, "allOf")
			s.set("allOf", legacyArray(rest[0]))
		}
	} else {
		list.vals = rest
	}
	s.set("nullable", legacyScalar(true))
}

// legacyIsNullSchema reports whether s accepts only null: {"nullable": true,
// "enum": [null]} (a translated {"type": "null"}), or the untranslated form.
func legacyIsNullSchema(s *legacyJnode) bool {
	if !s.isObject() {
		return false
	}
	if typ, _ := s.get("type").str(); typ == "null" && len(s.keys) == 1 {
		return true
	}
	e := s.get("enum")
	return len(s.keys) == 2 && s.get("nullable") != nil && e.isArray() && len(e.vals) == 1 && e.vals[0].isNull()
}

// legacyExclusive turns a numeric 3.1 legacyExclusive bound (exclusiveMinimum: 5) into
// 3.0's form (minimum: 5, exclusiveMinimum: true). When both an inclusive
// and an legacyExclusive bound are given, the stricter stays: stricter(x, m)
// reports whether legacyExclusive bound x is at least as strict as inclusive m.
func legacyExclusive(s *legacyJnode, inclusive, excl string, stricter func(x, m float64) bool) {
	x := s.get(excl)
	xv, ok := x.number()
	if !ok {
		return
	}
	if m := s.get(inclusive); m != nil {
		mv, isNum := m.number()
		if isNum && !stricter(xv, mv) {
			s.del(excl) // the inclusive bound is the stricter one
			return
		}
		s.set(inclusive, x)
	} else {
		s.rename(excl, inclusive)
		s.set(inclusive, x)
		s.setAfter(inclusive, excl, legacyScalar(true))
		return
	}
	s.set(excl, legacyScalar(true))
}

// hoistDefs moves every $defs entry of the document's schemas to
// components/schemas and points the $refs to it there.
func (t *legacyTranslator) hoistDefs() {
	t.defs = map[string]string{}
	comps := t.root.get("components")
	var schemas *legacyJnode
	if comps.isObject() {
		schemas = comps.get("schemas")
	}
	taken := map[string]bool{}
	if schemas.isObject() {
		for _, k := range schemas.keys {
			taken[k] = true
		}
	}
	// Find them, remembering each one's pointer and a name for it.
	var find func(n *legacyJnode, pointer, owner string)
	find = func(n *legacyJnode, pointer, owner string) {
		switch n.kind {
		case '{':
			for i, k := range n.keys {
				p := pointer + "/" + legacyEscapePointer(k)
				if k == "$defs" && n.vals[i].isObject() {
					d := n.vals[i]
					for j, name := range d.keys {
						base := owner + name
						unique := base
						for c := 2; taken[unique]; c++ {
							unique = fmt.Sprintf("%s%d", base, c)
						}
						taken[unique] = true
						t.defs["#"+p+"/"+legacyEscapePointer(name)] = unique
						t.defNodes = append(t.defNodes, legacyDefEntry{unique, d.vals[j]})
						find(d.vals[j], p+"/"+legacyEscapePointer(name), unique)
					}
					continue
				}
				next := owner
				if pointer == "/components/schemas" {
					next = k
				}
				find(n.vals[i], p, next)
			}
		case '[':
			for i, v := range n.vals {
				find(v, fmt.Sprintf("%s/%d", pointer, i), owner)
			}
		}
	}
	find(t.root, "", "")
	if len(t.defNodes) == 0 {
		return
	}
	// Remove them where they were, point the $refs to their new place,
	// and add them to components/schemas.
	var rewrite func(n *legacyJnode)
	rewrite = func(n *legacyJnode) {
		switch n.kind {
		case '{':
			n.del("$defs")
			for i, k := range n.keys {
				if k == "$ref" {
					if ref, ok := n.vals[i].str(); ok {
						if name, ok := t.defs[ref]; ok {
							n.vals[i] = legacyScalar(SchemaPrefix + name)
						}
					}
					continue
				}
				rewrite(n.vals[i])
			}
		case '[':
			for _, v := range n.vals {
				rewrite(v)
			}
		}
	}
	rewrite(t.root)
	for _, d := range t.defNodes {
		rewrite(d.schema)
	}
	if !comps.isObject() {
		comps = legacyObject()
		t.root.set("components", comps)
	}
	if !schemas.isObject() {
		schemas = legacyObject()
		comps.set("schemas", schemas)
	}
	for _, d := range t.defNodes {
		schemas.set(d.name, d.schema)
	}
}

// legacyEscapePointer escapes a key for a JSON pointer (RFC 6901).
func legacyEscapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// legacyJSONToYAML converts a JSON document to YAML, keeping the key order of the
// JSON text (so a document's YAML reads in the same order as its JSON) and
// every number exactly as written. Strings that YAML would read as another
// type ("true", "1.0", "null", "2026-01-01") are quoted by the encoder.
//
// The document is marshalled once, by encoding/json, so the JSON and YAML
// forms can never disagree: YAML is a rendering of the JSON text, not a
// second marshalling of the Go values.
func legacyJSONToYAML(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	node, err := legacyYamlValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("openapi: trailing data after JSON value")
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{node}}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// legacyYamlValue reads one JSON value from dec and returns it as a YAML node.
func legacyYamlValue(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("openapi: reading JSON: %w", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("openapi: reading JSON: %w", err)
				}
				key, _ := k.(string)
				v, err := legacyYamlValue(dec)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, legacyYamlString(key), v)
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, fmt.Errorf("openapi: reading JSON: %w", err)
			}
			if len(n.Content) == 0 {
				n.Style = yaml.FlowStyle // {}
			}
			return n, nil
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				v, err := legacyYamlValue(dec)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, v)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, fmt.Errorf("openapi: reading JSON: %w", err)
			}
			if len(n.Content) == 0 {
				n.Style = yaml.FlowStyle // []
			}
			return n, nil
		}
		return nil, fmt.Errorf("openapi: unexpected JSON delimiter %q", t)
	case string:
		return legacyYamlString(t), nil
	case json.Number:
		tag := "!!int"
		if bytes.ContainsAny([]byte(t), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(t)}, nil
	case bool:
		v := "false"
		if t {
			v = "true"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("openapi: unexpected JSON token %v", tok)
}

// legacyYamlString is a string legacyScalar. Tagging it !!str makes the encoder quote
// any value that would otherwise be read back as a number, bool or null.
func legacyYamlString(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if len(s) > 0 && bytes.IndexByte([]byte(s), '\n') >= 0 {
		n.Style = yaml.LiteralStyle
	}
	return n
}
