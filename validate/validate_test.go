package validate

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane/problem"
)

type Address struct {
	Street string `json:"street" minLength:"1"`
	Zip    string `json:"zip,omitempty" pattern:"^[0-9]{5}$"`
}

type Line struct {
	Name string  `json:"name" maxLength:"5"`
	Qty  int     `json:"qty" minimum:"1"`
	Note *string `json:"note,omitempty" maxLength:"3"`
}

type Order struct {
	ID       string            `json:"id" format:"uuid"`
	Email    string            `json:"email" format:"email"`
	Lines    []Line            `json:"lines" minItems:"1" maxItems:"3"`
	Tags     []string          `json:"tags,omitempty" uniqueItems:"true" enum:"a,b,c"`
	Address  *Address          `json:"address,omitempty"`
	Meta     map[string]int    `json:"meta,omitempty" maxProperties:"2"`
	Scores   map[string]Line   `json:"scores,omitempty"`
	Total    float64           `json:"total" exclusiveMinimum:"0" exclusiveMaximum:"100" multipleOf:"0.5"`
	Kind     string            `json:"kind,omitempty" enum:"x,y"`
	Priority int               `json:"priority,omitempty" enum:"1,2,3"`
	Express  bool              `json:"express,omitempty" enum:"false"`
	When     time.Time         `json:"when,omitempty"`
	Created  string            `json:"created,omitempty" readOnly:"true"`
	Extra    map[string]string `json:"extra,omitempty" minProperties:"1"`
}

func validOrder() *Order {
	return &Order{
		ID: "123e4567-e89b-12d3-a456-426614174000", Email: "a@example.com",
		Lines: []Line{{Name: "lamp", Qty: 1}}, Tags: []string{"a", "b"},
		Address: &Address{Street: "Main"}, Total: 10.5, Kind: "x", Priority: 2,
	}
}

func mustCompile(t *testing.T, typ reflect.Type) *Validator {
	t.Helper()
	v, err := Compile(typ, nil, "body")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func locs(errs []problem.FieldError) string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Location+": "+e.Message)
	}
	return strings.Join(out, "\n")
}

func TestValidOrderPassesWithoutAllocating(t *testing.T) {
	v := mustCompile(t, reflect.TypeFor[Order]())
	o := validOrder()
	raw, _ := json.Marshal(o)
	if errs := v.Validate(context.Background(), o, raw); errs != nil {
		t.Fatalf("unexpected failures:\n%s", locs(errs))
	}
	ctx := context.Background()
	o.Meta = nil
	if n := testing.AllocsPerRun(100, func() { v.Validate(ctx, o, raw) }); n != 0 {
		t.Errorf("Validate allocates %v times on success", n)
	}
}

func TestEveryFailureCollected(t *testing.T) {
	v := mustCompile(t, reflect.TypeFor[Order]())
	long := "long!"
	o := &Order{
		ID: "nope", Email: "a b@example.com",
		Lines:    []Line{{Name: "toolong", Qty: 0}, {Name: "ok", Qty: 1, Note: &long}},
		Tags:     []string{"a", "z", "a"},
		Address:  &Address{Zip: "12"},
		Meta:     map[string]int{"a": 1, "b": 2, "c": 3},
		Scores:   map[string]Line{"k": {Name: "ok", Qty: -1}},
		Total:    7.25,
		Kind:     "q",
		Priority: 9,
		Express:  true,
		Extra:    map[string]string{},
	}
	errs := v.Validate(context.Background(), o, nil)
	want := []string{
		"body.id: expected format uuid",
		"body.email: expected format email",
		"body.lines[0].name: expected length <= 5",
		"body.lines[0].qty: expected number >= 1",
		"body.lines[1].note: expected length <= 3",
		"body.tags[2]: expected unique items: same as item 0",
		"body.tags[1]: expected one of: a, b, c",
		"body.address.street: expected length >= 1",
		"body.address.zip: expected to match pattern ^[0-9]{5}$",
		"body.meta: expected at most 2 properties",
		"body.scores.k.qty: expected number >= 1",
		"body.total: expected a multiple of 0.5",
		"body.kind: expected one of: x, y",
		"body.priority: expected one of: 1, 2, 3",
		"body.express: expected false",
		"body.extra: expected at least 1 properties",
	}
	if got := locs(errs); got != strings.Join(want, "\n") {
		t.Errorf("failures:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	for _, e := range errs {
		if e.Location == "body.lines[0].name" && e.Value != "toolong" {
			t.Errorf("value of %s = %v", e.Location, e.Value)
		}
	}
}

func TestNumberBounds(t *testing.T) {
	type N struct {
		A int8    `json:"a" minimum:"-3" maximum:"3"`
		B uint16  `json:"b" exclusiveMaximum:"10"`
		C float32 `json:"c" exclusiveMinimum:"0.5"`
		D int64   `json:"d" multipleOf:"3"`
	}
	v := mustCompile(t, reflect.TypeFor[N]())
	cases := []struct {
		in   N
		want string
	}{
		{N{A: 3, B: 9, C: 0.6, D: 9}, ""},
		{N{A: -4, B: 9, C: 0.6, D: 0}, "body.a: expected number >= -3"},
		{N{A: 4, B: 9, C: 0.6, D: 0}, "body.a: expected number <= 3"},
		{N{B: 10, C: 0.6}, "body.b: expected number < 10"},
		{N{C: 0.5}, "body.c: expected number > 0.5"},
		{N{C: 1, D: 4}, "body.d: expected a multiple of 3"},
	}
	for _, tc := range cases {
		if got := locs(v.Validate(context.Background(), &tc.in, nil)); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFormats(t *testing.T) {
	good := map[string][]string{
		"date-time": {"2024-02-29T10:20:30Z", "2024-01-01T00:00:00.123+02:00"},
		"date":      {"2024-02-29", "1999-12-31"},
		"time":      {"10:20:30Z", "22:29:60.5-01:30"},
		"email":     {"a.b+c@example.com", "a@b", "\"a b\"@example.com", "x@[127.0.0.1]"},
		"uri":       {"https://example.com/a?b=c", "urn:isbn:123"},
		"uuid":      {"123e4567-e89b-12d3-a456-426614174000"},
		"ipv4":      {"192.168.0.1"},
		"ipv6":      {"::1", "2001:db8::1"},
		"hostname":  {"example.com", "a-b.c"},
		"duration":  {"P4DT12H30M5S", "P2W"},
	}
	bad := map[string][]string{
		"date-time": {"2024-02-30T10:20:30Z", "2024-01-01 10:20", "2024-01-01T25:00:00Z"},
		"date":      {"2023-02-29", "2024-13-01", "24-01-01"},
		"time":      {"10:20", "10:20:30", "10:20:30+2:00"},
		"email":     {"a@b@", "@example.com", "a b@example.com", "a..b@example.com"},
		"uri":       {"/relative", "http://a b", "1http://x"},
		"uuid":      {"123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g"},
		"ipv4":      {"::1", "256.0.0.1"},
		"ipv6":      {"192.168.0.1", "::g"},
		"hostname":  {"-a.com", "a_b.com", "", strings.Repeat("a", 64) + ".com", "example."},
		"duration":  {"P", "PT1D", "P1Y2W"},
	}
	for name, vals := range good {
		for _, s := range vals {
			if !formats[name](s) {
				t.Errorf("%s: %q rejected", name, s)
			}
		}
	}
	for name, vals := range bad {
		for _, s := range vals {
			if formats[name](s) {
				t.Errorf("%s: %q accepted", name, s)
			}
		}
	}
}

func TestRequiredPropertiesOnRawJSON(t *testing.T) {
	v := mustCompile(t, reflect.TypeFor[Order]())
	ctx := context.Background()
	check := func(raw string) string {
		var o Order
		if err := json.Unmarshal([]byte(raw), &o); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		var out []string
		for _, e := range v.Validate(ctx, &o, []byte(raw)) {
			if strings.HasSuffix(e.Message, "missing") || strings.Contains(e.Message, "null") {
				out = append(out, e.Location+": "+e.Message)
			}
		}
		return strings.Join(out, "\n")
	}
	// Keys match exactly, as the decoder matches them: {"ID":…} is not id.
	if got, want := check(`{"ID":"x","EMAIL":"x","lines":[{"name":"a","qty":1}],"total":1}`),
		"body.id: required property is missing\nbody.email: required property is missing"; got != want {
		t.Errorf("keys differing in case:\ngot  %s\nwant %s", got, want)
	}
	if got := check(`{"\u0069d":"x","email":"x","lines":[],"total":1}`); got != "" {
		t.Errorf("escaped names should count as present: %s", got)
	}
	got := check(`{"id":"x","email":null,"lines":[{"qty":1},{"name":"b","qty":1, "x":[1,{"y":"}"}]}],"address":{"zip":"1"},"scores":{"k":{"name":"a"}}}`)
	want := strings.Join([]string{
		"body.email: expected string, not null",
		"body.lines[0].name: required property is missing",
		"body.address.street: required property is missing",
		"body.scores.k.qty: required property is missing",
		"body.total: required property is missing",
	}, "\n")
	if got != want {
		t.Errorf("required:\n%s\nwant:\n%s", got, want)
	}
}

type Tree struct {
	Name     string  `json:"name" minLength:"1"`
	Children []*Tree `json:"children,omitempty"`
}

func TestRecursiveTypes(t *testing.T) {
	v := mustCompile(t, reflect.TypeFor[Tree]())
	tree := &Tree{Name: "a", Children: []*Tree{{Name: "b", Children: []*Tree{{Name: ""}}}}}
	raw := `{"name":"a","children":[{"name":"b","children":[{}]}]}`
	got := locs(v.Validate(context.Background(), tree, []byte(raw)))
	want := "body.children[0].children[0].name: expected length >= 1\nbody.children[0].children[0].name: required property is missing"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

type Signup struct {
	ID       int64    `path:"id" minimum:"1"`
	Tags     []string `query:"tag" maxLength:"3"`
	Token    string   `header:"X-Token" minLength:"2"`
	Session  string   `cookie:"session" pattern:"^s"`
	Internal string   // not bound: not checked
	Body     struct {
		Password string `json:"password" minLength:"8"`
		Again    string `json:"again"`
	}
}

func TestInputLocations(t *testing.T) {
	v, err := Input(reflect.TypeFor[Signup](), nil)
	if err != nil {
		t.Fatal(err)
	}
	in := &Signup{ID: 0, Tags: []string{"ok", "toolong"}, Token: "x", Session: "t"}
	in.Body.Password = "short"
	got := locs(v.Validate(context.Background(), in, []byte(`{"password":"short"}`)))
	want := strings.Join([]string{
		"path.id: expected number >= 1",
		"query.tag[1]: expected length <= 3",
		"header.X-Token: expected length >= 2",
		"cookie.session: expected to match pattern ^s",
		"body.password: expected length >= 8",
		"body.again: required property is missing",
	}, "\n")
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	in = &Signup{ID: 1, Token: "xy", Session: "s1"}
	in.Body.Password, in.Body.Again = "password1", "password2"
	if errs := v.Validate(context.Background(), in, nil); errs != nil {
		t.Errorf("valid: %v", errs)
	}
}

func TestNothingToCheck(t *testing.T) {
	type plain struct {
		A *string         `json:"a,omitempty" nullable:"true"`
		B map[string]any  `json:"b,omitempty" nullable:"true"`
		C json.RawMessage `json:"c,omitempty"`
	}
	v := mustCompile(t, reflect.TypeFor[plain]())
	if v.root != nil || v.body != nil {
		t.Errorf("expected an empty validator, got root=%v body=%v", v.root, v.body)
	}
	if v.bodyNul != "expected object, not null" {
		t.Errorf("a null document: %q", v.bodyNul) // the object itself is not nullable
	}
	// Optional properties without rules are still scanned: a null where
	// the schema does not allow one fails.
	type optional struct {
		A string `json:"a,omitempty"`
		B []int  `json:"b,omitempty"`
	}
	if v := mustCompile(t, reflect.TypeFor[optional]()); v.body == nil {
		t.Error("optional non-nullable properties are not scanned for null")
	}
}

func TestInt64Bounds(t *testing.T) {
	type in struct {
		A int64 `json:"a" exclusiveMinimum:"0" exclusiveMaximum:"10"`
		B int   `json:"b" minimum:"-5" maximum:"5.5"`
		C int64 `json:"c" minimum:"1e30"`
	}
	v := mustCompile(t, reflect.TypeFor[in]())
	cases := []struct {
		in   in
		want string
	}{
		{in{A: 1, B: 5, C: 0}, "body.c: expected number >= 1e+30"},
		{in{A: 0, B: -5, C: 0}, "body.a: expected number > 0\nbody.c: expected number >= 1e+30"},
		{in{A: 10, B: 6, C: 0}, "body.a: expected number < 10\nbody.b: expected number <= 5.5\nbody.c: expected number >= 1e+30"},
		{in{A: 9, B: -6, C: 9223372036854775807}, "body.b: expected number >= -5\nbody.c: expected number >= 1e+30"},
	}
	for _, tc := range cases {
		if got := locs(v.Validate(context.Background(), &tc.in, nil)); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNullableAndReadOnlyInRequests(t *testing.T) {
	type in struct {
		ID      int64   `json:"id" readOnly:"true"`
		Note    *string `json:"note" required:"true" nullable:"true"`
		Comment string  `json:"comment"`
	}
	v := mustCompile(t, reflect.TypeFor[in]())
	check := func(raw string) string {
		var x in
		if err := json.Unmarshal([]byte(raw), &x); err != nil {
			t.Fatal(err)
		}
		return locs(v.Validate(context.Background(), &x, []byte(raw)))
	}
	if got := check(`{"note":null,"comment":"c"}`); got != "" {
		t.Errorf("a nullable required property may be null, a readOnly one absent: %s", got)
	}
	if got := check(`{"comment":null}`); got != "body.comment: expected string, not null\nbody.note: required property is missing" {
		t.Errorf("got %q", got)
	}
}

type presentLeaf struct {
	Offset int    `json:"offset,omitempty" minimum:"0" maximum:"0"`
	Label  string `json:"label,omitempty" maxLength:"0"`
}

type presentBody struct {
	Offset int            `json:"offset,omitempty" minimum:"1"`
	Leaf   *presentLeaf   `json:"leaf,omitempty"`
	Leaves []presentLeaf  `json:"leaves,omitempty"`
	Ptrs   []*presentLeaf `json:"ptrs,omitempty"`
}

// Properties sent at their zero value are checked on the decoded value,
// at any depth; absent ones are not; without the raw JSON, a zero value
// counts as absent.
func TestPresentZeroValuesChecked(t *testing.T) {
	v := mustCompile(t, reflect.TypeFor[presentBody]())
	ctx := context.Background()
	for _, tc := range []struct{ raw, want string }{
		{`{}`, ""},
		{`{"offset":0}`, "body.offset: expected number >= 1"},
		{`{"leaf":{"offset":0,"label":""}}`, ""},
		{`{"leaves":[{},{"offset":0}],"offset":0}`, "body.offset: expected number >= 1"},
		{`{"leaves":[{},{"offset":0}],"ptrs":[null,{"label":""}]}`, "body.ptrs[0]: expected object, not null"},
	} {
		var b presentBody
		if err := json.Unmarshal([]byte(tc.raw), &b); err != nil {
			t.Fatal(err)
		}
		if got := locs(v.Validate(ctx, &b, []byte(tc.raw))); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.raw, got, tc.want)
		}
	}
	// Items of an array, each with its own presence.
	type deep struct {
		Items []struct {
			N int `json:"n,omitempty" minimum:"1"`
		} `json:"items"`
	}
	vd := mustCompile(t, reflect.TypeFor[deep]())
	raw := `{"items":[{"n":1},{},{"n":0},{"n":0}]}`
	var d deep
	json.Unmarshal([]byte(raw), &d)
	want := "body.items[2].n: expected number >= 1\nbody.items[3].n: expected number >= 1"
	if got := locs(vd.Validate(ctx, &d, []byte(raw))); got != want {
		t.Errorf("%s: %q, want %q", raw, got, want)
	}
	if errs := vd.Validate(ctx, &d, nil); errs != nil {
		t.Errorf("without the raw JSON: %s", locs(errs))
	}
}

// Checking properties sent at their zero value costs no allocation.
func TestPresentZeroValuesPassWithoutAllocating(t *testing.T) {
	v := mustCompile(t, reflect.TypeFor[presentBody]())
	raw := []byte(`{"offset":3,"leaf":{"offset":0,"label":""},"leaves":[{"offset":0},{"label":""}],"ptrs":[{"offset":0,"label":""}]}`)
	var b presentBody
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if errs := v.Validate(ctx, &b, raw); errs != nil {
		t.Fatalf("unexpected failures:\n%s", locs(errs))
	}
	if n := testing.AllocsPerRun(100, func() { v.Validate(ctx, &b, raw) }); n != 0 {
		t.Errorf("Validate allocates %v times on success", n)
	}
}

// TestUniqueItemsEveryIntegerSize: uniqueItems reads an integer or a
// boolean by its own size, in short lists (pairs compared) and long ones
// (a set of keys): values that differ only in their top byte are distinct,
// and a repeat is found.
func TestUniqueItemsEveryIntegerSize(t *testing.T) {
	uniqueBySize(t, 0, 100, func(x uint64) int8 { return int8(x) })
	uniqueBySize(t, 8, 100, func(x uint64) uint16 { return uint16(x) })
	uniqueBySize(t, 24, 100, func(x uint64) int32 { return int32(x) })
	uniqueBySize(t, 56, 100, func(x uint64) uint64 { return x })
	uniqueBySize(t, 56, 100, func(x uint64) int { return int(x) })
	uniqueBySize(t, 0, 2, func(x uint64) bool { return x != 0 })
}

// uniqueList is a list of T whose items must be unique.
type uniqueList[T any] struct {
	L []T `json:"l" uniqueItems:"true"`
}

// uniqueBySize checks uniqueItems on lists of T made by conv from values
// i<<hi, for up to max distinct values.
func uniqueBySize[T any](t *testing.T, hi uint, max int, conv func(uint64) T) {
	t.Helper()
	v := mustCompile(t, reflect.TypeFor[uniqueList[T]]())
	for _, n := range []int{min(5, max), min(40, max)} { // pairs, then keys (above smallList)
		l := make([]T, n, n+1)
		for i := range l {
			l[i] = conv(uint64(i) << hi)
		}
		if errs := v.Validate(context.Background(), &uniqueList[T]{l}, nil); errs != nil {
			t.Errorf("%T, %d distinct items: %v", l, n, errs)
		}
		l = append(l, l[n/2])
		errs := v.Validate(context.Background(), &uniqueList[T]{l}, nil)
		if len(errs) != 1 || errs[0].Location != "body.l["+strconv.Itoa(n)+"]" {
			t.Errorf("%T, %d items, the last repeating item %d: %v", l, n+1, n/2, errs)
		}
	}
}
