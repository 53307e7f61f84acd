// Package operation holds the compiled description of a typed operation: the
// single source that request binding and the OpenAPI document both read.
// (Placeholder: filled in by the typed-operations work.)
package operation

// Description is the compiled, reflection-free description of one operation.
type Description struct {
	Method  string // HTTP method
	Pattern string // full path pattern, group prefixes included
}
