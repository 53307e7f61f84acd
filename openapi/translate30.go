package openapi

import (
	"fmt"
	"slices"
	"strings"
)

// The 3.0 translation on a whole document held as a tree of nodes: what
// Translate30 does to a JSON text, and what a document whose schemas hold
// $defs (which move to components/schemas, and the $refs to them
// everywhere) is translated by. Every other document is translated as it
// is written (write.go); TestTranslationsAgree checks that both say the
// same.

// translateTree translates the OpenAPI 3.1 document root to OpenAPI 3.0.3
// in place.
func translateTree(root *node) error {
	if !root.isObject() {
		return fmt.Errorf("openapi: the document is not a JSON object")
	}
	if v, _ := root.get("openapi").str(); !strings.HasPrefix(v, "3.1.") {
		return fmt.Errorf("openapi: Translate30 reads OpenAPI 3.1 documents, not %q", v)
	}
	t := &translator{root: root}
	t.document()
	return nil
}

type translator struct {
	root *node
	// defs are the $defs moved to components/schemas: their names there,
	// by the JSON pointer of their old place.
	defs     map[string]string
	defNodes []defEntry
}

type defEntry struct {
	name   string
	schema *node
}

func (t *translator) document() {
	d := t.root
	d.set("openapi", strNode(Version30))
	d.del("jsonSchemaDialect")
	d.del("webhooks")
	if d.get("paths") == nil {
		d.setAfter("servers", "paths", object()) // required in 3.0
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
					lic.setAfter("identifier", "url", strNode("https://spdx.org/licenses/"+id+".html"))
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
func (t *translator) oas(n *node) {
	switch n.kind {
	case '[':
		for _, v := range n.vals {
			t.oas(v)
		}
	case '{':
		if isReference(n) {
			// 3.1 allows a summary and a description beside $ref, 3.0
			// nothing.
			n.keys, n.vals = []string{"$ref"}, []*node{n.get("$ref")}
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
func (t *translator) oasMap(n *node) {
	if !n.isObject() {
		return
	}
	for i, k := range n.keys {
		if !strings.HasPrefix(k, "x-") {
			t.oas(n.vals[i])
		}
	}
}

// isReference reports whether n is a Reference Object: $ref, and at most a
// summary and a description.
func isReference(n *node) bool {
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
func (t *translator) dropRequirements(d *node, drop map[string]bool) {
	fix := func(sec *node) {
		if !sec.isArray() {
			return
		}
		var kept []*node
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

// schemaKeywords30 are the keywords of OpenAPI 3.0's Schema Object.
var schemaKeywords30 = map[string]bool{
	"title": true, "multipleOf": true, "maximum": true, "exclusiveMaximum": true, "minimum": true,
	"exclusiveMinimum": true, "maxLength": true, "minLength": true, "pattern": true, "maxItems": true,
	"minItems": true, "uniqueItems": true, "maxProperties": true, "minProperties": true, "required": true,
	"enum": true, "type": true, "allOf": true, "oneOf": true, "anyOf": true, "not": true, "items": true,
	"properties": true, "additionalProperties": true, "description": true, "format": true, "default": true,
	"nullable": true, "discriminator": true, "readOnly": true, "writeOnly": true, "xml": true,
	"externalDocs": true, "example": true, "deprecated": true, "$ref": true,
}

// dropped are JSON Schema keywords that say nothing a 3.0 tool could use:
// identifiers and comments.
var dropped = map[string]bool{"$schema": true, "$id": true, "$anchor": true, "$dynamicAnchor": true, "$comment": true, "$vocabulary": true}

// schema translates a JSON Schema 2020-12 schema to a 3.0 Schema Object and
// returns it (a new node where the schema was a boolean).
func (t *translator) schema(s *node) *node {
	if s == nil {
		return nil
	}
	if v, ok := s.boolean(); ok {
		if v {
			return object()
		}
		return t.objectWith("not", object())
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
			s.setAfter("const", "enum", array(c))
		}
		s.del("const")
	}
	if ex := s.get("examples"); ex != nil {
		if ex.isArray() && len(ex.vals) > 0 && s.get("example") == nil {
			s.setAfter("examples", "example", ex.vals[0])
		}
		s.del("examples")
	}
	exclusive(s, "minimum", "exclusiveMinimum", func(a, b float64) bool { return a >= b })
	exclusive(s, "maximum", "exclusiveMaximum", func(a, b float64) bool { return a <= b })

	// Binary content.
	enc, hasEnc := s.get("contentEncoding").str()
	_, hasMedia := s.get("contentMediaType").str()
	if s.get("type") == nil && (hasEnc || hasMedia) && s.get("$ref") == nil {
		// Bytes with no JSON type (a file part of a form): a string in 3.0.
		s.set("type", strNode("string"))
	}
	if typ, _ := s.get("type").str(); typ == "string" && s.get("format") == nil {
		switch {
		case hasEnc && strings.EqualFold(enc, "base64"):
			s.setAfter("type", "format", strNode("byte")) // says all of it
			s.del("contentEncoding")
		case hasMedia && !hasEnc:
			s.setAfter("type", "format", strNode("binary"))
		}
	}

	// An enum holding null needs nullable in 3.0.
	if e := s.get("enum"); e.isArray() && slices.ContainsFunc(e.vals, (*node).isNull) {
		s.setAfter("type", "nullable", trueNode)
	}
	if typ, _ := s.get("type").str(); typ == "array" && s.get("items") == nil {
		s.setAfter("type", "items", object())
	}

	// What 3.0 has no keyword for.
	for i := 0; i < len(s.keys); i++ {
		k := s.keys[i]
		switch {
		case schemaKeywords30[k] || strings.HasPrefix(k, "x-"):
		case dropped[k]:
			s.del(k)
			i--
		default:
			s.keys[i] = "x-jsonschema-" + k
		}
	}

	// A $ref takes no siblings in 3.0.
	if ref := s.get("$ref"); ref != nil && len(s.keys) > 1 {
		s.del("$ref")
		all := array(t.objectWith("$ref", ref))
		if prev := s.get("allOf"); prev.isArray() {
			all.vals = append(all.vals, prev.vals...)
		}
		s.set("allOf", all)
	}
	return s
}

func (t *translator) objectWith(key string, v *node) *node {
	o := object()
	o.set(key, v)
	return o
}

// types turns 3.1's type arrays into 3.0's single type and nullable.
func (t *translator) types(s *node) {
	typ := s.get("type")
	if typ == nil {
		return
	}
	if name, ok := typ.str(); ok {
		if name == "null" {
			s.del("type")
			s.set("nullable", trueNode)
			s.set("enum", array(nullNode))
		}
		return
	}
	if !typ.isArray() {
		return
	}
	var names []*node
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
		s.set("enum", array(nullNode))
	case 1:
		s.set("type", names[0])
	default:
		// Several types: one branch each, the other keywords beside them
		// (each applies only to its own type, as in JSON Schema).
		var branches []*node
		for _, n := range names {
			branch := t.objectWith("type", n)
			if name, _ := n.str(); name == "array" {
				branch.set("items", object())
				if it := s.get("items"); it != nil {
					branch.set("items", it)
				}
			}
			branches = append(branches, branch)
		}
		s.rename("type", "anyOf")
		s.set("anyOf", array(branches...))
		s.del("items")
	}
	if nullable {
		after := "type"
		if s.get("type") == nil {
			after = "anyOf"
		}
		s.setAfter(after, "nullable", trueNode)
	}
}

// nullBranch turns anyOf or oneOf with a {"type": "null"} branch (after
// types translated it: {"nullable": true, "enum": [null]}) into the other
// branches and nullable: true.
func (t *translator) nullBranch(s *node, key string) {
	list := s.get(key)
	if !list.isArray() {
		return
	}
	var rest []*node
	for _, b := range list.vals {
		if !isNullSchema(b) {
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
			s.set("allOf", array(rest[0]))
		}
	} else {
		list.vals = rest
	}
	s.set("nullable", trueNode)
}

// isNullSchema reports whether s accepts only null: {"nullable": true,
// "enum": [null]} (a translated {"type": "null"}), or the untranslated form.
func isNullSchema(s *node) bool {
	if !s.isObject() {
		return false
	}
	if typ, _ := s.get("type").str(); typ == "null" && len(s.keys) == 1 {
		return true
	}
	e := s.get("enum")
	return len(s.keys) == 2 && s.get("nullable") != nil && e.isArray() && len(e.vals) == 1 && e.vals[0].isNull()
}

// exclusive turns a numeric 3.1 exclusive bound (exclusiveMinimum: 5) into
// 3.0's form (minimum: 5, exclusiveMinimum: true). When both an inclusive
// and an exclusive bound are given, the stricter stays: stricter(x, m)
// reports whether exclusive bound x is at least as strict as inclusive m.
func exclusive(s *node, inclusive, excl string, stricter func(x, m float64) bool) {
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
		s.setAfter(inclusive, excl, trueNode)
		return
	}
	s.set(excl, trueNode)
}

// hoistDefs moves every $defs entry of the document's schemas to
// components/schemas and points the $refs to it there.
func (t *translator) hoistDefs() {
	t.defs = map[string]string{}
	comps := t.root.get("components")
	var schemas *node
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
	var find func(n *node, pointer, owner string)
	find = func(n *node, pointer, owner string) {
		switch n.kind {
		case '{':
			for i, k := range n.keys {
				p := pointer + "/" + escapePointer(k)
				if k == "$defs" && n.vals[i].isObject() {
					d := n.vals[i]
					for j, name := range d.keys {
						base := owner + name
						unique := base
						for c := 2; taken[unique]; c++ {
							unique = fmt.Sprintf("%s%d", base, c)
						}
						taken[unique] = true
						t.defs["#"+p+"/"+escapePointer(name)] = unique
						t.defNodes = append(t.defNodes, defEntry{unique, d.vals[j]})
						find(d.vals[j], p+"/"+escapePointer(name), unique)
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
	var rewrite func(n *node)
	rewrite = func(n *node) {
		switch n.kind {
		case '{':
			n.del("$defs")
			for i, k := range n.keys {
				if k == "$ref" {
					if ref, ok := n.vals[i].str(); ok {
						if name, ok := t.defs[ref]; ok {
							n.vals[i] = strNode(SchemaPrefix + name)
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
		comps = object()
		t.root.set("components", comps)
	}
	if !schemas.isObject() {
		schemas = object()
		comps.set("schemas", schemas)
	}
	for _, d := range t.defNodes {
		schemas.set(d.name, d.schema)
	}
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
