package validate

import (
	"reflect"
	"strings"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// MessageTag is the struct tag that replaces the message of every failure
// of a field, whatever rule failed: `message:"a name has 1 to 80
// characters"`. Failures found by the binder (a value that does not
// parse) are replaced too, through Messages.
const MessageTag = "message"

// messagesOf returns the messages of the fields of an input type, keyed by
// location with item indexes left out (body.lines.name).
func messagesOf(t reflect.Type) map[string]string {
	out := map[string]string{}
	for _, sf := range operation.InputFields(t) {
		if !sf.IsExported() {
			continue
		}
		loc := ""
		if in, name, ok := operation.Source(sf.Tag); ok {
			loc = in + "." + name
		} else if sf.Name == "Body" {
			loc = "body"
		} else {
			continue
		}
		if m, ok := sf.Tag.Lookup(MessageTag); ok {
			out[loc] = m
		}
		if loc == "body" {
			if operation.IsForm(sf.Type) {
				for i := 0; i < sf.Type.NumField(); i++ {
					f := sf.Type.Field(i)
					if name, ok := f.Tag.Lookup("form"); ok {
						if m, ok := f.Tag.Lookup(MessageTag); ok {
							out["body."+name] = m
						}
					}
				}
				continue
			}
			walkMessages(sf.Type, "body", out, map[reflect.Type]bool{})
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func walkMessages(t reflect.Type, loc string, out map[string]string, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	defer delete(seen, t)
	for _, f := range schema.Fields(t) {
		at := loc + "." + f.Name
		if m, ok := f.Struct.Tag.Lookup(MessageTag); ok {
			out[at] = m
		}
		walkMessages(f.Type, at, out, seen)
	}
}

// Messages replaces, in errs, the message of every failure of a field
// that has a message tag (see MessageTag), and returns errs.
func (v *Validator) Messages(errs []problem.FieldError) []problem.FieldError {
	if v.messages == nil {
		return errs
	}
	for i := range errs {
		if m, ok := v.messages[withoutIndexes(errs[i].Location)]; ok {
			errs[i].Message = m
		}
	}
	return errs
}

// withoutIndexes drops the [n] of a location: body.lines[2].name is
// body.lines.name.
func withoutIndexes(loc string) string {
	if !strings.Contains(loc, "[") {
		return loc
	}
	var b strings.Builder
	for i := 0; i < len(loc); i++ {
		if loc[i] == '[' {
			if j := strings.IndexByte(loc[i:], ']'); j > 0 {
				i += j
				continue
			}
		}
		b.WriteByte(loc[i])
	}
	return b.String()
}
