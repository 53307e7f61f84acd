package vane

import (
	"net/http"
	"reflect"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
)

// Resolver is implemented by inputs that compute or check fields from the
// request beyond their parameters and body: a tenant from the Host, the
// client's address, a value from a header with rules of its own. Resolve
// is called with the request after the input was bound and its tag rules
// (and its Validate method, for a validate.Checker) passed, before the
// handler; the failures it returns are answered as one 422 problem, like
// validation failures, and the handler does not run. An input that needs
// only to read the request can hold an untagged *http.Request field
// instead, which gets the request.
//
// The type of a top-level input field may be a Resolver too (on the
// pointer to the field, or a pointer field's own type when it is not
// nil), so that a resolving part (a tenant, a caller) is reused across
// inputs as a field: such fields resolve in field order, before the
// input's own Resolve, and their failures are answered together.
type Resolver interface {
	Resolve(req *http.Request) []problem.FieldError
}

var resolverType = reflect.TypeFor[Resolver]()

// fieldResolver is a top-level input field whose type is a Resolver: on
// the pointer to the field, or, for a pointer field, its own type (then
// it is called only when the pointer is not nil).
type fieldResolver struct {
	index []int // the field's index path in the input (reflect.Value.FieldByIndex)
	ptr   bool
}

// fieldResolvers lists the exported top-level fields of input type t (as
// operation.InputFields numbers them: embedded structs flattened, whose
// Resolve methods are t's own) whose types are Resolvers.
func fieldResolvers(t reflect.Type) []fieldResolver {
	var out []fieldResolver
	for _, f := range operation.InputFields(t) {
		switch {
		case !f.IsExported():
		case reflect.PointerTo(f.Type).Implements(resolverType):
			out = append(out, fieldResolver{index: f.Index})
		case f.Type.Kind() == reflect.Pointer && f.Type.Implements(resolverType):
			out = append(out, fieldResolver{index: f.Index, ptr: true})
		}
	}
	return out
}

// resolveFields runs the field resolvers on the input in, in field order,
// and returns their failures.
func resolveFields[I any](list []fieldResolver, in *I, req *http.Request) []problem.FieldError {
	input := reflect.ValueOf(in).Elem()
	var errs []problem.FieldError
	for _, r := range list {
		f := input.FieldByIndex(r.index)
		var v any
		if r.ptr {
			if f.IsNil() {
				continue
			}
			v = f.Interface()
		} else {
			v = f.Addr().Interface()
		}
		errs = append(errs, v.(Resolver).Resolve(req)...)
	}
	return errs
}
