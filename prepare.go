package vane

import (
	"reflect"
)

// prepareEncoders has the router's codec encode, for the response body
// type of each typed operation, a nil pointer of that type: a codec that
// compiles an encoder per type on its first use (codec.JSON does) compiles
// it now, for Check, rather than on the type's first request. A nil
// pointer encodes as null, so no method of the type runs.
func (a *api) prepareEncoders() {
	if a.codec == nil {
		return
	}
	seen := map[reflect.Type]bool{}
	for _, d := range a.ops {
		t := responseBody(d.Output)
		if t == nil || seen[t] {
			continue
		}
		seen[t] = true
		func() {
			defer func() { recover() }() //nolint:errcheck // a codec that cannot encode a nil pointer compiles on first use
			a.codec.Marshal(reflect.Zero(reflect.PointerTo(t)).Interface())
		}()
	}
}

// responseBody returns the type a typed operation's output encodes as its
// body: its Body field's, or the output's own.
func responseBody(out reflect.Type) reflect.Type {
	if out == nil {
		return nil
	}
	if out.Kind() == reflect.Struct {
		if f, ok := out.FieldByName("Body"); ok && f.IsExported() && len(f.Index) == 1 {
			return f.Type
		}
	}
	return out
}
