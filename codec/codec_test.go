package codec

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

type custom struct{ X int }

func (c custom) MarshalJSON() ([]byte, error) { return []byte(`"custom"`), nil }
func (c *custom) UnmarshalJSON(b []byte) error {
	c.X = len(b)
	return nil
}

type Embedded struct {
	E string `json:"e"`
}

type sample struct {
	Embedded
	A    string            `json:"a,omitempty"`
	B    int               `json:"b,string"`
	C    custom            `json:"c"`
	Skip string            `json:"-"`
	E2   []int             `json:"e2"`
	T    time.Time         `json:"t"`
	M    map[string]string `json:"m,omitempty"`
	P    *int              `json:"p"`
	D    time.Duration     `json:"d"`
	Raw  json.RawMessage   `json:"raw"`
}

// The default codec follows encoding/json's rules for Go types: tags,
// omitempty, the string option, methods, embedded structs, durations.
func TestSameAsEncodingJSON(t *testing.T) {
	v := sample{Embedded: Embedded{E: "x"}, B: 3, T: time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC), Skip: "x", D: time.Second, Raw: json.RawMessage(`{"z":1}`)}
	want, _ := json.Marshal(v)
	got, err := JSON.Marshal(v)
	if err != nil || string(got) != string(want) {
		t.Errorf("Marshal:\n got %s %v\nwant %s", got, err, want)
	}
	in := `{"e":"emb","a":"x","b":"7","c":[1,2],"e2":[1,2],"t":"2024-01-02T03:04:05Z","m":{"k":"v"},"p":5,"d":1000,"raw":{"y":[1]},"extra":1}`
	var a, b sample
	if err := json.Unmarshal([]byte(in), &a); err != nil {
		t.Fatal(err)
	}
	if err := JSON.Unmarshal([]byte(in), &b); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) || a.C.X != b.C.X {
		t.Errorf("Unmarshal:\n got %s\nwant %s", jb, ja)
	}
}

// Keys match fields exactly: a key that matches only case-insensitively
// is an unknown key, ignored.
func TestKeysMatchExactly(t *testing.T) {
	type item struct {
		Name string `json:"name"`
		ID   int    // no tag: the key is "ID"
	}
	cases := []struct {
		in   string
		want item
	}{
		{`{"name":"a","ID":1}`, item{Name: "a", ID: 1}},
		{`{"NAME":"a"}`, item{}},
		{`{"Name":"a","id":1,"Id":2}`, item{}},
		{`{"na\u006de":"escaped"}`, item{Name: "escaped"}},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			var got item
			if err := JSON.Unmarshal([]byte(c.in), &got); err != nil || got != c.want {
				t.Errorf("got %+v %v, want %+v", got, err, c.want)
			}
		})
	}
}

func TestDuplicateKeysAreRefused(t *testing.T) {
	type item struct {
		Name string `json:"name"`
	}
	type doc struct {
		Name  string          `json:"name"`
		Items []item          `json:"items"`
		M     map[string]item `json:"m"`
		Any   any             `json:"any"`
	}
	cases := []struct {
		in, key, path string
		offset        int64
	}{
		{`{"name":"a","name":"b"}`, "name", "name", 12},
		{`{"items":[{"name":"a"},{"name":"b"},{"name":"c","name":"d"}]}`, "name", "items[2].name", 48},
		{`{"m":{"2":{},"2":{}}}`, "2", "m.2", 13},
		{`{"any":[{"k":1,"k":2}]}`, "k", "any[0].k", 15},
		{`{"unknown":{"k":1,"k":2}}`, "k", "unknown.k", 18},
		{`{"name":"a","na\u006de":"b"}`, "name", "name", 12},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			var d doc
			err := JSON.Unmarshal([]byte(c.in), &d)
			var dup *DuplicateKeyError
			if !errors.As(err, &dup) {
				t.Fatalf("got %v, want a duplicate key error", err)
			}
			if dup.Key != c.key || dup.Path != c.path || dup.Offset != c.offset {
				t.Errorf("got %+v, want key %q at %s, offset %d", dup, c.key, c.path, c.offset)
			}
			if off, ok := Offset(err); !ok || off != c.offset {
				t.Errorf("Offset: %d %v", off, ok)
			}
		})
	}
}

func TestTypeErrorsCarryLocations(t *testing.T) {
	type item struct {
		Name  string    `json:"name"`
		Count int8      `json:"count"`
		When  time.Time `json:"when"`
		Level level     `json:"level"`
	}
	type doc struct {
		Items []item          `json:"items"`
		M     map[string]item `json:"m"`
	}
	cases := []struct {
		in, path, msg string
	}{
		{`{"items":[{"name":"a"},{"name":3}]}`, "items[1].name", "expected string, got number 3"},
		{`{"items":[{"count":1.5}]}`, "items[0].count", "expected integer, got number 1.5"},
		{`{"items":[{"count":300}]}`, "items[0].count", "got number 300, out of range for int8"},
		{`{"items":[{"count":1e400}]}`, "items[0].count", "expected integer, got number 1e400"},
		{`{"items":[{"count":"1"}]}`, "items[0].count", `expected integer, got string "1"`},
		{`{"m":{"2":{"when":"yesterday"}}}`, "m.2.when", `expected a date-time (RFC 3339), got string "yesterday"`},
		{`{"items":[{"level":"mid"}]}`, "items[0].level", "invalid value: no such level"},
		{`{"items":{}}`, "items", "expected array, got object"},
		{`[]`, "", "expected object, got array"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			var d doc
			err := JSON.Unmarshal([]byte(c.in), &d)
			te, ok := AsTypeError(err)
			if !ok {
				t.Fatalf("got %v, want a type error", err)
			}
			if te.Path != c.path || te.Message != c.msg {
				t.Errorf("got %q %q, want %q %q", te.Path, te.Message, c.path, c.msg)
			}
			if off, ok := Offset(err); !ok || off <= 0 && c.path != "" {
				t.Errorf("offset %d %v", off, ok)
			}
		})
	}
}

type level int

func (l *level) UnmarshalText(b []byte) error {
	if string(b) != "low" {
		return errors.New("no such level")
	}
	*l = 1
	return nil
}

func TestSyntaxErrorsCarryOffsets(t *testing.T) {
	type doc struct {
		Name  string `json:"name"`
		Items []int  `json:"items"`
	}
	cases := []struct {
		in     string
		offset int64
		path   string
	}{
		{`{"items":[}`, 10, "items[0]"},
		{`{"name": "x",}`, 12, ""},
		{`{"name": "x"`, 12, ""},
		{"{\"name\":\"\xff\"}", 9, "name"},
		{`{"name":"a"} trailing`, 13, ""},
		{``, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.in[:min(len(c.in), 20)], func(t *testing.T) {
			var d doc
			err := JSON.Unmarshal([]byte(c.in), &d)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a syntax error", err)
			}
			if se.Offset != c.offset || (c.path != "" && se.Path != c.path) {
				t.Errorf("got %+v, want offset %d at %q", se, c.offset, c.path)
			}
			if _, ok := AsTypeError(err); ok {
				t.Error("a syntax error is not a type error")
			}
		})
	}
}

// Nesting deeper than 10000 is malformed, whatever the target.
func TestDeepNestingIsRefused(t *testing.T) {
	var v any
	err := JSON.Unmarshal([]byte(strings.Repeat("[", 10001)+strings.Repeat("]", 10001)), &v)
	var se *SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "depth") {
		t.Fatalf("got %v, want a syntax error on depth", err)
	}
}

// Locations are bounded, however long the keys or deep the nesting.
func TestLocationsAreBounded(t *testing.T) {
	long := strings.Repeat("k", 100000)
	var v any
	err := JSON.Unmarshal([]byte(`{"`+long+`":1,"`+long+`":2}`), &v)
	var dup *DuplicateKeyError
	if !errors.As(err, &dup) || len(dup.Key) > 2*maxToken || len(dup.Path) > 2*maxToken {
		t.Errorf("duplicate long key: %d %d", len(dup.Key), len(dup.Path))
	}
	deep := strings.Repeat(`{"a":`, 5000) + `"x"` + strings.Repeat(`,"a":1}`, 5000)
	err = JSON.Unmarshal([]byte(deep), &v)
	if !errors.As(err, &dup) || len(dup.Path) > maxPath+100 {
		t.Errorf("deep duplicate: %v", err)
	}
}

// encoding/json tolerates some Go types that encoding/json/v2 refuses (two
// fields of one name, the string option where it does not apply): the
// default codec decodes them as encoding/json does.
func TestToleratedTypesAsEncodingJSON(t *testing.T) {
	// Two fields named "x" (built at run time, since vet rightly objects
	// to them in source).
	conflict := reflect.StructOf([]reflect.StructField{
		{Name: "A", Type: reflect.TypeFor[string](), Tag: `json:"x"`},
		{Name: "B", Type: reflect.TypeFor[string](), Tag: `json:"x"`},
		{Name: "C", Type: reflect.TypeFor[string](), Tag: `json:"c"`},
	})
	type stringOnSlice struct {
		S []int `json:"s,string"`
	}
	for _, c := range []struct {
		in string
		v  func() any
	}{
		{`{"x":"1","c":"2"}`, func() any { return reflect.New(conflict).Interface() }},
		{`{"s":[1,2]}`, func() any { return new(stringOnSlice) }},
	} {
		t.Run(c.in, func(t *testing.T) {
			want, got := c.v(), c.v()
			if err := json.Unmarshal([]byte(c.in), want); err != nil {
				t.Fatal(err)
			}
			if err := JSON.Unmarshal([]byte(c.in), got); err != nil {
				t.Fatal(err)
			}
			jw, _ := json.Marshal(want)
			jg, _ := json.Marshal(got)
			if string(jw) != string(jg) {
				t.Errorf("got %s, want %s", jg, jw)
			}
		})
	}
}

func TestDecodedStringsDoNotAliasInput(t *testing.T) {
	data := []byte(`{"a":"hello","m":{"key":"value"}}`)
	var s sample
	if err := JSON.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 'X' // the pooled buffer is reused
	}
	if s.A != "hello" || s.M["key"] != "value" {
		t.Errorf("decoded strings changed with their input: %q %v", s.A, s.M)
	}
}

// The body buffer is pooled and has room to spare: decoded strings must
// still not point into it.
func TestDecodedStringsDoNotAliasPooledBuffers(t *testing.T) {
	type s struct {
		A string `json:"a"`
	}
	var x s
	buf := make([]byte, 0, 4096)
	buf = append(buf, `{"a":"first-value"}`...)
	if err := JSON.Unmarshal(buf, &x); err != nil {
		t.Fatal(err)
	}
	buf = buf[:cap(buf)]
	for i := range buf {
		buf[i] = 'X'
	}
	if x.A != "first-value" {
		t.Fatalf("decoded string changed with its buffer: %q", x.A)
	}
}

func TestGreetingBodyDecodesWithOneAllocation(t *testing.T) {
	type in struct {
		Suffix string `json:"suffix"`
	}
	data := []byte(`{"suffix":"!"}`)
	var v in
	n := testing.AllocsPerRun(100, func() {
		if err := JSON.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
	})
	if n > 1 {
		t.Errorf("%v allocations, want at most 1", n)
	}
}

func TestUnmarshalClosed(t *testing.T) {
	type line struct {
		Name string `json:"name"`
	}
	type order struct {
		ID    int               `json:"id"`
		Lines []line            `json:"lines"`
		Meta  map[string]string `json:"meta"`
	}
	cd := JSON.(ClosedDecoder)
	cases := []struct{ in, path, key string }{
		{`{"id":1,"lines":[{"name":"a"}],"meta":{"any":"x"}}`, "", ""},
		{`{"id":1,"ID":2}`, "ID", "ID"},
		{`{"id":1,"lines":[{"name":"a"},{"nmae":"b"}]}`, "lines[1].nmae", "nmae"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			var o order
			err := cd.UnmarshalClosed([]byte(c.in), &o)
			if c.key == "" {
				if err != nil {
					t.Fatal(err)
				}
				if err := JSON.Unmarshal([]byte(`{"id":1,"extra":2}`), &o); err != nil {
					t.Errorf("Unmarshal refused an unknown member: %v", err)
				}
				return
			}
			var u *UnknownPropertyError
			if !errors.As(err, &u) || u.Key != c.key || u.Path != c.path {
				t.Fatalf("%v (%T), want unknown property %s at %s", err, err, c.key, c.path)
			}
		})
	}
}
