package vane

import (
	"net/http"
	"reflect"
	"unsafe"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
)

// fieldResolver is a top-level input field whose type is a Resolver: on
// the pointer to the field, or, for a pointer field, its own type (then
// it is called only when the pointer is not nil).
type fieldResolver struct {
	offset uintptr
	typ    reflect.Type // the field's type
	ptr    bool
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
			out = append(out, fieldResolver{offset: f.Offset, typ: f.Type})
		case f.Type.Kind() == reflect.Pointer && f.Type.Implements(resolverType):
			out = append(out, fieldResolver{offset: f.Offset, typ: f.Type, ptr: true})
		}
	}
	return out
}

// resolveFields runs the field resolvers on the input in, in field order,
// and returns their failures.
func resolveFields[I any](list []fieldResolver, in *I, req *http.Request) []problem.FieldError {
	base := unsafe.Pointer(in)
	var errs []problem.FieldError
	for _, r := range list {
		p := unsafe.Add(base, r.offset)
		var v any
		if r.ptr {
			if *(*unsafe.Pointer)(p) == nil {
				continue
			}
			v = reflect.NewAt(r.typ, p).Elem().Interface()
		} else {
			v = reflect.NewAt(r.typ, p).Interface()
		}
		errs = append(errs, v.(Resolver).Resolve(req)...)
	}
	return errs
}
