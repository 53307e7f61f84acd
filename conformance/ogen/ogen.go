// Package ogen checks the example service's OpenAPI 3.1 document with the
// strictest Go generator: package petstore is generated from the served
// /openapi.json by ogen (github.com/ogen-go/ogen), a client only, with
// ogen.yml skipping just the features ogen does not implement (named in
// docs/design/openapi.md). The test builds and starts the example service,
// checks that the committed client is what ogen makes of the document it
// serves today, and drives the operations through it: a create, reads, a
// conditional update, merge and JSON patches, typed problems and a delete.
package ogen

//go:generate go tool ogen --config ogen.yml --target petstore --package petstore --clean petstore/openapi.json
