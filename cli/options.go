package cli

import (
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/vane-http/vane/internal/textvalue"
)

// option is one field of an options struct: where it is read from, and
// the field it sets.
type option struct {
	field string // the field's path, for errors: "Options.DB.URL"
	flag  string // without the dash; "" for none
	env   string // the variable; "" for none
	def   string // the default tag, as written
	doc   string
	value *value
}

// value sets one field from text; it is the flag.Value of its flag.
type value struct {
	v reflect.Value // the field, settable
	// flagged reports whether a flag has set the field: a list's first
	// flag replaces the default or the variable's values, later flags add
	// to it.
	flagged bool
	// enum, if not empty, holds the values a string (or each item of a
	// list) may take: the enum tag's.
	enum []string
}

// notOneOf is the error for a value outside an option's enum. It does not
// hold the value, which may come from a variable.
type notOneOf struct{ enum []string }

func (e *notOneOf) Error() string { return "not one of " + strings.Join(e.enum, ", ") }

// check returns a *notOneOf if s is not in the option's enum.
func (v *value) check(s string) error {
	if len(v.enum) > 0 && !slices.Contains(v.enum, s) {
		return &notOneOf{v.enum}
	}
	return nil
}

var (
	durationType        = reflect.TypeFor[time.Duration]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// options reads the options of the struct *o, whose fields it sets to
// their defaults. envPrefix goes before derived variable names.
func options(o any, envPrefix string) ([]option, error) {
	v := reflect.ValueOf(o).Elem()
	if v.Kind() != reflect.Struct {
		return nil, fmt.Errorf("cli: the options are a %v, not a struct", v.Type())
	}
	var opts []option
	if err := collect(v, v.Type().Name(), "", envPrefix, &opts); err != nil {
		return nil, err
	}
	flags, envs := map[string]string{}, map[string]string{}
	for _, o := range opts {
		if other, ok := flags[o.flag]; ok && o.flag != "" {
			return nil, fmt.Errorf("cli: %s and %s both have the flag -%s", other, o.field, o.flag)
		}
		if other, ok := envs[o.env]; ok && o.env != "" {
			return nil, fmt.Errorf("cli: %s and %s both read $%s", other, o.field, o.env)
		}
		flags[o.flag], envs[o.env] = o.field, o.field
	}
	return opts, nil
}

// collect adds the options of struct v, whose fields' flags and derived
// variables are prefixed with flagPrefix and envPrefix.
func collect(v reflect.Value, path, flagPrefix, envPrefix string, opts *[]option) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		fv := v.Field(i)
		fpath := path + "." + sf.Name
		if sf.Type.Kind() == reflect.Struct && !settable(sf.Type) {
			// A group of options: embedded, its fields are the struct's
			// own; named, they are prefixed with its name.
			fp, ep := flagPrefix, envPrefix
			if !sf.Anonymous {
				fp += kebab(sf.Name) + "-"
				ep += snake(sf.Name) + "_"
			}
			if err := collect(fv, fpath, fp, ep, opts); err != nil {
				return err
			}
			continue
		}
		if !settable(sf.Type) {
			return fmt.Errorf("cli: option %s: a %v cannot be read from text (use a string, bool, number, time.Duration, []string or an encoding.TextUnmarshaler)", fpath, sf.Type)
		}
		o := option{field: fpath, doc: sf.Tag.Get("doc"), value: &value{v: fv}}
		switch name, ok := sf.Tag.Lookup("flag"); {
		case name == "-":
		case ok && name != "":
			o.flag = name
		default:
			o.flag = flagPrefix + kebab(sf.Name)
		}
		switch name, ok := sf.Tag.Lookup("env"); {
		case name == "-":
		case ok && name != "":
			o.env = name
		default:
			o.env = envPrefix + snake(sf.Name)
		}
		if o.flag != "" && (strings.HasPrefix(o.flag, "-") || strings.ContainsAny(o.flag, "= \t")) {
			return fmt.Errorf("cli: option %s: %q is no flag name", fpath, o.flag)
		}
		if e, ok := sf.Tag.Lookup("enum"); ok {
			t := sf.Type
			if t.Kind() == reflect.Slice && !o.value.isText() {
				t = t.Elem()
			}
			if t.Kind() != reflect.String || o.value.isText() {
				return fmt.Errorf("cli: option %s: an enum is for a string or a []string, not a %v", fpath, sf.Type)
			}
			for item := range strings.SplitSeq(e, ",") {
				if item = strings.TrimSpace(item); item != "" {
					o.value.enum = append(o.value.enum, item)
				}
			}
			if len(o.value.enum) == 0 {
				return fmt.Errorf("cli: option %s: an empty enum", fpath)
			}
		}
		if d, ok := sf.Tag.Lookup("default"); ok {
			o.def = d
			if err := o.value.setText(d); err != nil {
				return fmt.Errorf("cli: option %s: default %q: %v", fpath, d, err)
			}
		}
		*opts = append(*opts, o)
	}
	return nil
}

// settable reports whether a field of type t is set from text.
func settable(t reflect.Type) bool {
	if reflect.PointerTo(t).Implements(textUnmarshalerType) || t == durationType {
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Slice:
		return t.Elem().Kind() == reflect.String
	}
	return false
}

// setFromEnv sets the option from its variable, if set and not empty.
// The error does not repeat the value, which may be a secret.
func (o *option) setFromEnv(getenv func(string) string) error {
	if o.env == "" {
		return nil
	}
	s := getenv(o.env)
	if s == "" {
		return nil
	}
	if err := o.value.setText(s); err != nil {
		if e := (*notOneOf)(nil); errors.As(err, &e) {
			return fmt.Errorf("$%s (option %s) is %v", o.env, o.field, e)
		}
		return fmt.Errorf("$%s (option %s) is not a valid %s", o.env, o.field, o.typeName())
	}
	return nil
}

// setText sets the field from the text s: a list from comma-separated
// items.
func (v *value) setText(s string) error {
	if v.v.Kind() == reflect.Slice && !v.isText() {
		v.v.Set(reflect.MakeSlice(v.v.Type(), 0, 0))
		return v.add(s)
	}
	if err := v.check(s); err != nil {
		return err
	}
	return textvalue.Set(v.v, s)
}

// add appends the comma-separated items of s to a list, leaving out
// empty ones; with an enum, it adds none unless all are in it.
func (v *value) add(s string) error {
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			if err := v.check(item); err != nil {
				return err
			}
		}
	}
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			v.v.Set(reflect.Append(v.v, reflect.ValueOf(item).Convert(v.v.Type().Elem())))
		}
	}
	return nil
}

func (v *value) isText() bool { return reflect.PointerTo(v.v.Type()).Implements(textUnmarshalerType) }

// Set is flag.Value's: a list's first flag replaces its values, later
// ones add to them.
func (v *value) Set(s string) error {
	if v.v.Kind() == reflect.Slice && !v.isText() {
		if !v.flagged {
			v.v.Set(reflect.MakeSlice(v.v.Type(), 0, 0))
		}
		v.flagged = true
		return v.add(s)
	}
	if err := v.check(s); err != nil {
		return err
	}
	v.flagged = true
	return textvalue.Set(v.v, s)
}

// String is flag.Value's.
func (v *value) String() string {
	if v == nil || !v.v.IsValid() {
		return ""
	}
	if m, ok := v.v.Interface().(fmt.Stringer); ok {
		return m.String()
	}
	if v.v.Kind() == reflect.Slice {
		var items []string
		for i := 0; i < v.v.Len(); i++ {
			items = append(items, v.v.Index(i).String())
		}
		return strings.Join(items, ",")
	}
	return fmt.Sprint(v.v.Interface())
}

// IsBoolFlag makes a bool option's flag work without a value (-debug).
func (v *value) IsBoolFlag() bool { return v.isBool() }

func (v *value) isBool() bool { return v.v.Kind() == reflect.Bool && !v.isText() }

// words splits a Go name into its words: "DatabaseURL" into "Database"
// and "URL", "HTTPAddr" into "HTTP" and "Addr".
func words(name string) []string {
	rs := []rune(name)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prevLower := unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])
		nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
		if unicode.IsUpper(rs[i]) && (prevLower || nextLower) {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	return append(out, string(rs[start:]))
}

// kebab is a Go name as a flag name: "DatabaseURL" is "database-url".
func kebab(name string) string { return strings.ToLower(strings.Join(words(name), "-")) }

// snake is a Go name as a variable name: "DatabaseURL" is "DATABASE_URL".
func snake(name string) string { return strings.ToUpper(strings.Join(words(name), "_")) }
