package openapi

import (
	"fmt"
)

// Version30 is the OpenAPI version of the translated documents that
// [Translate30] writes, for the tools that read only OpenAPI 3.0.
const Version30 = "3.0.3"

// JSON30 returns the document translated to OpenAPI 3.0.3 (see
// [Translate30]), as indented JSON.
func (d *Document) JSON30() ([]byte, error) {
	return d.encode(formJSON30, "  ")
}

// YAML30 returns the document translated to OpenAPI 3.0.3, as YAML.
func (d *Document) YAML30() ([]byte, error) {
	return d.encode(formYAML30, "")
}

// Translate30 translates an OpenAPI 3.1 document (JSON text) to OpenAPI 3.0.3,
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
//     and maximum with the boolean exclusive form (the stricter bound when
//     both forms are present);
//   - a string with contentEncoding base64 becomes format: byte, one with a
//     contentMediaType and no encoding format: binary (the media type kept
//     as an extension, below); content without a type (a file part of a
//     form) is such a string;
//   - a $ref with sibling keywords becomes allOf [$ref] beside them; $defs
//     move to components/schemas (named after the schema that held them)
//     and the $refs to them follow; boolean schemas become {} and
//     {"not": {}}; an array gets the items: {} 3.0 requires;
//   - JSON Schema keywords 3.0 lacks (patternProperties, prefixItems,
//     contains, dependentRequired, if/then/else, propertyNames,
//     unevaluatedProperties, …) are kept as "x-jsonschema-<keyword>"
//     extensions: 3.0 tools ignore them, and nothing is lost.
//
// Outside schemas: info.summary becomes the description when there is
// none, license.identifier becomes an SPDX URL, webhooks,
// jsonSchemaDialect and components/pathItems are dropped, a Reference
// Object keeps only its $ref, and mutualTLS security schemes (and the
// requirements naming them) are dropped.
//
// The result is indented JSON. A [Document] is translated as it is written,
// by [Document.JSON30] and [Handler]; this function is for documents held
// as text.
func Translate30(doc31 []byte) ([]byte, error) {
	root, err := parseJSON(doc31)
	if err != nil {
		return nil, fmt.Errorf("openapi: reading the 3.1 document: %w", err)
	}
	if err := translateTree(root); err != nil {
		return nil, err
	}
	w := &jsonWriter{indent: "  "}
	emitNode(w, root)
	w.buf = append(w.buf, '\n')
	return w.bytes(), nil
}
