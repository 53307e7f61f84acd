package validate

import (
	"reflect"
	"strings"

	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// MessageTag is the struct tag that replaces the message of every failure
// of a field, whatever rule failed: `message:"a name has 1 to 80
// characters"`. Failures found by the binder (a value that does not
// parse) are replaced too, through Messages.
const MessageTag = "message"

// messageTags are the messages of an input's message tags, by location
// with item indexes left out (body.lines.name).
type messageTags map[string]string

// tag records the message of tag, if it has one, for loc.
func (m messageTags) tag(tag reflect.StructTag, loc string) {
	if msg, ok := tag.Lookup(MessageTag); ok {
		m[loc] = msg
	}
}

// walkMessages records the message tags of the fields of the JSON body
// type t at loc, at any depth.
func walkMessages(t reflect.Type, loc string, out messageTags, seen map[reflect.Type]bool) {
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
		out.tag(f.Struct.Tag, at)
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
