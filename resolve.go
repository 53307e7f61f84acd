package vane

import (
	"context"
	"fmt"
	"net/http"
	"reflect"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
)

// Resolver is the one hook an input has beyond its tags: for rules the
// tags cannot say (one field against another, a value against the
// database) and for fields computed from the request (a tenant from the
// Host, the caller from a token, the client's address). A typed
// operation calls Resolve after the input was bound and its tag rules
// passed, before the handler, with the context the handler will get and
// the request; the failures it returns are answered as one 422 problem,
// as validation failures are, and the handler does not run:
//
//	type ListEvents struct {
//		From time.Time `query:"from"`
//		To   time.Time `query:"to"`
//	}
//
//	func (in *ListEvents) Resolve(ctx context.Context, req *http.Request) []problem.FieldError {
//		if in.To.Before(in.From) {
//			return []problem.FieldError{{Location: "query.to", Message: "must not be before from", Value: in.To}}
//		}
//		return nil
//	}
//
// The type of a top-level input field may be a Resolver too (on the
// pointer to the field, or a pointer field's own type when it is not
// nil), so that a resolving part (a tenant, a caller) is reused across
// inputs as a field: such fields resolve in field order, before the
// input's own Resolve, and their failures are answered together. An
// input that only needs to read the request can hold an untagged
// *http.Request field instead, which gets the request.
type Resolver interface {
	Resolve(ctx context.Context, req *http.Request) []problem.FieldError
}

var resolverType = reflect.TypeFor[Resolver]()

// checkResolvers returns an error when the input type t, or the type of
// one of its top-level fields, has a Resolve method that is not
// Resolver's (it would never run), or a Validate method of the form
// typed operations no longer call.
func checkResolvers(t reflect.Type) error {
	check := func(t reflect.Type, where string) error {
		for _, x := range []reflect.Type{t, reflect.PointerTo(t)} {
			if m, ok := x.MethodByName("Resolve"); ok && !x.Implements(resolverType) {
				return fmt.Errorf("%s%v has a Resolve method %v, not Resolve(context.Context, *http.Request) []problem.FieldError (vane.Resolver): it would never run", where, x, m.Type)
			}
			if m, ok := x.MethodByName("Validate"); ok && m.Type.NumIn() == 2 && m.Type.In(1) == contextType {
				return fmt.Errorf("%s%v has a method Validate(context.Context); vane calls none: say its rules in Resolve(ctx, req) (vane.Resolver)", where, x)
			}
		}
		return nil
	}
	if err := check(t, "input "); err != nil {
		return err
	}
	for _, f := range operation.InputFields(t) {
		if f.IsExported() && f.Type.Kind() != reflect.Interface {
			if err := check(f.Type, "field "+f.Name+": "); err != nil {
				return err
			}
		}
	}
	return nil
}

var contextType = reflect.TypeFor[context.Context]()

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
func resolveFields[I any](ctx context.Context, list []fieldResolver, in *I, req *http.Request) []problem.FieldError {
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
		errs = append(errs, v.(Resolver).Resolve(ctx, req)...)
	}
	return errs
}
