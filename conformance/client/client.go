// Package client checks the example service's OpenAPI 3.0 document with a
// client that nobody here wrote: package petstore, generated from the
// document by oapi-codegen. The test builds and starts the example service,
// checks that the document it serves is valid OpenAPI 3.0 (and its 3.1
// original valid 3.1), that the generated client is what the generator
// makes of it today, and then calls every operation of the document through
// the generated client, checking each answer against the document.
package client
