package schema

import (
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

type Base struct {
	ID      int64     `json:"id" readOnly:"true" doc:"server-assigned"`
	Created time.Time `json:"created" readOnly:"true"`
}

type Item struct {
	Base
	Name   string            `json:"name" minLength:"1" maxLength:"80" example:"lamp"`
	Email  string            `json:"email,omitempty" format:"email"`
	Price  float64           `json:"price" minimum:"0" exclusiveMaximum:"1000" multipleOf:"0.01"`
	Tags   []string          `json:"tags,omitempty" maxItems:"5" uniqueItems:"true" enum:"a,b,c"`
	Note   *string           `json:"note" nullable:"true"`
	Owner  *Person           `json:"owner,omitempty" nullable:"true"`
	Meta   map[string]int    `json:"meta,omitempty" minProperties:"1" maxProperties:"3"`
	Kind   string            `json:"kind" enum:"x,y" default:"x"`
	Old    bool              `json:"old,omitempty" deprecated:"true"`
	Secret string            `json:"secret,omitempty" writeOnly:"true"`
	Raw    json.RawMessage   `json:"raw,omitempty"`
	Bytes  []byte            `json:"bytes,omitempty"`
	Count  int               `json:"count,string"`
	Skip   string            `json:"-"`
	hidden string            //nolint:unused
	Extra  map[string]string `json:",omitempty"`
}

type Person struct {
	Name     string   `json:"name"`
	Children []Person `json:"children,omitempty"` // recursion
	Friend   *Person  `json:"friend,omitempty"`
}

type Page[T any] struct {
	Items []T `json:"items"`
	Next  string
}

type Cookie struct { // collides with net/http.Cookie
	Flavor string `json:"flavor"`
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDeriveStruct(t *testing.T) {
	r := NewRegistry("#/components/schemas/")
	s, err := r.Schema(reflect.TypeFor[Item]())
	if err != nil {
		t.Fatal(err)
	}
	if s.Ref != "#/components/schemas/Item" {
		t.Fatalf("ref = %q", s.Ref)
	}
	item := r.Schemas()["Item"]
	wantOrder := "id created name email price tags note owner meta kind old secret raw bytes count Extra"
	if got := strings.Join(item.PropertyOrder, " "); got != wantOrder {
		t.Errorf("order:\n got %s\nwant %s", got, wantOrder)
	}
	if got, want := strings.Join(item.Required, ","), "id,created,name,price,count"; got != want {
		t.Errorf("required = %s, want %s", got, want)
	}
	checks := map[string]string{
		"id":      `{"type":"integer","description":"server-assigned","format":"int64","readOnly":true}`,
		"created": `{"type":"string","format":"date-time","readOnly":true,"pattern":` + mustJSON(TimePattern) + `}`,
		"name":    `{"type":"string","examples":["lamp"],"minLength":1,"maxLength":80}`,
		"email":   `{"type":"string","format":"email"}`,
		"price":   `{"type":"number","format":"double","minimum":0,"exclusiveMaximum":1000,"multipleOf":0.01}`,
		"tags":    `{"type":"array","items":{"type":"string","enum":["a","b","c"]},"maxItems":5,"uniqueItems":true}`,
		"note":    `{"type":["string","null"]}`,
		"owner":   `{"anyOf":[{"$ref":"#/components/schemas/Person"},{"type":"null"}]}`,
		"meta":    `{"type":"object","additionalProperties":{"type":"integer","format":"int64"},"minProperties":1,"maxProperties":3}`,
		"kind":    `{"type":"string","enum":["x","y"],"default":"x"}`,
		"old":     `{"type":"boolean","deprecated":true}`,
		"secret":  `{"type":"string","writeOnly":true}`,
		"raw":     `{}`,
		"bytes":   `{"type":"string","contentEncoding":"base64"}`,
		"count":   `{"type":"string"}`,
	}
	for name, want := range checks {
		if got := marshal(t, item.Properties[name]); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	person := r.Schemas()["Person"]
	if got, want := marshal(t, person), `{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/components/schemas/Person"}},"friend":{"$ref":"#/components/schemas/Person"}},"required":["name"]}`; got != want {
		t.Errorf("Person:\n got %s\nwant %s", got, want)
	}
	if got := r.Resolve(item.Properties["owner"]); got != person {
		t.Error("Resolve of a nullable ref wrapper should follow the ref")
	}
}

func TestGenericAndCollidingNames(t *testing.T) {
	r := NewRegistry("#/$defs/")
	for _, typ := range []reflect.Type{
		reflect.TypeFor[Page[Item]](), reflect.TypeFor[Page[*Person]](),
		reflect.TypeFor[Cookie](), reflect.TypeFor[http.Cookie](),
	} {
		if _, err := r.Schema(typ); err != nil {
			t.Fatal(err)
		}
	}
	got := strings.Join(r.Names(), " ")
	if want := "PageItem Item Person PagePerson SchemaCookie HttpCookie"; got != want {
		t.Errorf("names:\n got %s\nwant %s", got, want)
	}
	if r.Type("HttpCookie") != reflect.TypeFor[http.Cookie]() {
		t.Error("HttpCookie is not net/http.Cookie")
	}
	// Registering again yields the same names.
	s, _ := r.Schema(reflect.TypeFor[http.Cookie]())
	if s.Ref != "#/$defs/HttpCookie" {
		t.Errorf("second lookup: %s", s.Ref)
	}
}

// Names do not depend on the order of registration: once two packages
// types share a name, both are qualified, and the $refs already handed out
// follow.
func TestCollidingNamesDoNotDependOnOrder(t *testing.T) {
	type holder struct {
		C Cookie `json:"c"`
	}
	orders := [][]reflect.Type{
		{reflect.TypeFor[holder](), reflect.TypeFor[http.Cookie](), reflect.TypeFor[Page[Cookie]](), reflect.TypeFor[Page[http.Cookie]]()},
		{reflect.TypeFor[Page[http.Cookie]](), reflect.TypeFor[http.Cookie](), reflect.TypeFor[Page[Cookie]](), reflect.TypeFor[holder]()},
	}
	var docs []string
	for _, order := range orders {
		r := NewRegistry("#/$defs/")
		refs := map[reflect.Type]*Schema{}
		for _, typ := range order {
			s, err := r.Schema(typ)
			if err != nil {
				t.Fatal(err)
			}
			refs[typ] = s
		}
		for typ, s := range refs {
			if name := strings.TrimPrefix(s.Ref, r.Prefix); r.Type(name) != typ {
				t.Errorf("$ref %s of %v names %v", s.Ref, typ, r.Type(name))
			}
		}
		if got := marshal(t, r.Schemas()["holder"]); got != `{"type":"object","properties":{"c":{"$ref":"#/$defs/SchemaCookie"}},"required":["c"]}` {
			t.Errorf("holder: %s", got)
		}
		if r.Type("SchemaCookie") != reflect.TypeFor[Cookie]() || r.Type("HttpCookie") != reflect.TypeFor[http.Cookie]() ||
			r.Type("PageCookie") != reflect.TypeFor[Page[Cookie]]() || r.Type("PageCookie2") != reflect.TypeFor[Page[http.Cookie]]() {
			t.Errorf("names: %v", r.Names())
		}
		docs = append(docs, marshal(t, r.Schemas()))
	}
	if docs[0] != docs[1] {
		t.Errorf("the schemas depend on the order:\n%s\n%s", docs[0], docs[1])
	}
}

type Outer struct {
	A string `json:"a"`
	*Inner
	Inner2
}
type Inner struct {
	A string `json:"a"` // shadowed by Outer.A
	B string `json:"b"`
	C string
}
type Inner2 struct {
	C string // same depth as Inner.C, both untagged: dropped
	D int    `json:"d,omitempty"`
}

func TestEmbeddingFollowsEncodingJSON(t *testing.T) {
	var names []string
	for _, f := range Fields(reflect.TypeFor[Outer]()) {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "a,b,d" {
		t.Errorf("fields = %s, want a,b,d", got)
	}
	// Cross-check against encoding/json itself.
	b, _ := json.Marshal(Outer{A: "1", Inner: &Inner{B: "2", C: "x"}, Inner2: Inner2{C: "y", D: 3}})
	if string(b) != `{"a":"1","b":"2","d":3}` {
		t.Errorf("encoding/json disagrees: %s", b)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	in := &Schema{Type: TypeString, Nullable: true, MinLength: ptr(2), Extensions: map[string]any{"x-go": "T"}}
	b := marshal(t, in)
	if b != `{"type":["string","null"],"minLength":2,"x-go":"T"}` {
		t.Fatalf("marshal: %s", b)
	}
	var out Schema
	if err := json.Unmarshal([]byte(b), &out); err != nil {
		t.Fatal(err)
	}
	if out.Type != TypeString || !out.Nullable || *out.MinLength != 2 {
		t.Errorf("unmarshal: %+v", out)
	}
	if got := marshal(t, &Schema{}); got != `{}` {
		t.Errorf("empty schema: %s", got)
	}
}

func TestTagErrors(t *testing.T) {
	type bad1 struct {
		N int `minimum:"x"`
	}
	type bad2 struct {
		S string `pattern:"("`
	}
	type bad3 struct {
		N int `enum:"1,two"`
	}
	type bad4 struct {
		M map[[2]int]string
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[bad1](), reflect.TypeFor[bad2](), reflect.TypeFor[bad3](), reflect.TypeFor[bad4]()} {
		_, err := NewRegistry("").Schema(typ)
		if err == nil {
			t.Errorf("%v: no error", typ)
		} else if !strings.Contains(err.Error(), typ.Name()) {
			t.Errorf("%v: error does not name the type: %v", typ, err)
		}
	}
}

type Money struct{ Cents int64 }

func (Money) JSONSchema(*Registry) *Schema { return &Schema{Type: TypeString, Pattern: `^\d+\.\d\d$`} }

func TestProviderAndTextTypes(t *testing.T) {
	r := NewRegistry("")
	s, err := r.Schema(reflect.TypeFor[Money]())
	if err != nil || s.Pattern == "" {
		t.Fatalf("provider: %v %+v", err, s)
	}
	s, _ = r.Schema(reflect.TypeFor[time.Duration]())
	if s.Type != TypeInteger {
		t.Errorf("duration: %+v", s)
	}
	type withDefaults struct {
		Ints  []int    `default:"1,2"`
		Float *float64 `default:"1.5" example:"2"`
	}
	s, err = r.Schema(reflect.TypeFor[withDefaults]())
	if err != nil {
		t.Fatal(err)
	}
	s = r.Resolve(s)
	if got := marshal(t, s.Properties["Ints"].Default); got != "[1,2]" {
		t.Errorf("slice default: %s", got)
	}
	if got := marshal(t, s.Properties["Float"]); got != `{"type":"number","format":"double","default":1.5,"examples":[2]}` {
		t.Errorf("float: %s", got)
	}
}

func TestGenericNamesAreValidComponentNames(t *testing.T) {
	type pair[A, B any] struct {
		First  A `json:"first"`
		Second B `json:"second"`
	}
	r := NewRegistry("")
	if _, err := r.Schema(reflect.TypeFor[pair[map[string]int, struct{ X int }]]()); err != nil {
		t.Fatal(err)
	}
	for _, name := range r.Names() {
		for _, c := range name {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				t.Errorf("name %q has %q", name, c)
			}
		}
	}
}

// DurationPattern accepts what time.ParseDuration accepts.
func TestDurationPattern(t *testing.T) {
	re := regexp.MustCompile(DurationPattern)
	for _, s := range []string{"0", "1m30s", "-1.5h", "+2h45m", "250ms", "1us", "1µs", "1μs", "3ns", ".5s", "1.s",
		"", "1", "1d", "m", "1.5", "s1", "--1s", "1 s", ".s", "0s1"} {
		_, err := time.ParseDuration(s)
		if got, want := re.MatchString(s), err == nil; got != want {
			t.Errorf("%q: pattern matches %v, time.ParseDuration accepts %v", s, got, want)
		}
	}
	for _, d := range []time.Duration{0, 1, -1500 * time.Millisecond, 90 * time.Second, 1<<63 - 1} {
		if !re.MatchString(d.String()) {
			t.Errorf("%v does not match", d)
		}
	}
}

// In a JSON body a time.Duration is integer nanoseconds, as encoding/json
// writes it; the tags still say durations in Go syntax.
func TestDurationInJSONIsNanoseconds(t *testing.T) {
	type timing struct {
		Timeout time.Duration `json:"timeout" default:"1m" enum:"1m,2m" example:"2m"`
	}
	r := NewRegistry("#/$defs/")
	if _, err := r.Schema(reflect.TypeFor[timing]()); err != nil {
		t.Fatal(err)
	}
	got := marshal(t, r.Schemas()["timing"].Properties["timeout"])
	want := `{"type":"integer","description":"a duration in nanoseconds","format":"int64","enum":[60000000000,120000000000],"default":60000000000,"examples":[120000000000]}`
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

type withDefault struct {
	A string `json:"a"`
	B string `json:"b" default:"x"`
	C int    `json:"c" default:"1" required:"true"`
}

// A property with a default is not required, unless its tag says so.
func TestDefaultIsOptional(t *testing.T) {
	r := NewRegistry("#/components/schemas/")
	if _, err := r.Schema(reflect.TypeFor[withDefault]()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Schemas()["withDefault"].Required, ","); got != "a,c" {
		t.Errorf("required = %s, want a,c", got)
	}
}
