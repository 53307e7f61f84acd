package codec

import (
	"encoding/json"
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

type sample struct {
	A    string            `json:"a,omitempty"`
	B    int               `json:"b,string"`
	C    custom            `json:"c"`
	Skip string            `json:"-"`
	E    []int             `json:"e"`
	T    time.Time         `json:"t"`
	M    map[string]string `json:"m,omitempty"`
	P    *int              `json:"p"`
}

// The default codec must say what encoding/json says.
func TestSameAsEncodingJSON(t *testing.T) {
	v := sample{B: 3, T: time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC), Skip: "x"}
	want, _ := json.Marshal(v)
	got, err := JSON.Marshal(v)
	if err != nil || string(got) != string(want) {
		t.Errorf("Marshal:\n got %s %v\nwant %s", got, err, want)
	}
	in := `{"A":"x","b":"7","c":[1,2],"e":[1,2],"t":"2024-01-02T03:04:05Z","m":{"k":"v"},"p":5,"extra":1}`
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

func TestErrorsAreEncodingJSONs(t *testing.T) {
	type item struct {
		Name string `json:"name"`
	}
	type doc struct {
		Items []item `json:"items"`
	}
	var d doc
	err := JSON.Unmarshal([]byte(`{"items":[{"name":"a"},{"name":3}]}`), &d)
	te, ok := AsTypeError(err)
	if !ok || te.Path != "items.name" || te.Expected != "string" || te.Got != "number" {
		t.Errorf("type error: %v %+v", err, te)
	}
	err = JSON.Unmarshal([]byte(`{"items":[}`), &d)
	if off, ok := Offset(err); !ok || off != 11 {
		t.Errorf("syntax error: %v offset %d", err, off)
	}
	if _, ok := AsTypeError(err); ok {
		t.Error("a syntax error is not a type error")
	}
}

func TestDecodedStringsDoNotAliasInput(t *testing.T) {
	data := []byte(`{"a":"hello"}`)
	var s sample
	if err := JSON.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 'X' // the pooled buffer is reused
	}
	if s.A != "hello" {
		t.Errorf("decoded string changed with its input: %q", s.A)
	}
}

func TestFuzzishInputsNeverPanic(t *testing.T) {
	for _, in := range []string{"", "{", `{"a":`, `{"a":"\ud800"}`, `[`, `{"e":[1,}`, "\x00", `{"t":"nope"}`, strings.Repeat("[", 10000)} {
		var s sample
		_ = JSON.Unmarshal([]byte(in), &s)
	}
}

// The body buffer is pooled and has room to spare: go-json then decodes in
// place, and its strings must still not point into the buffer.
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
	for i := range buf {
		buf[i] = 'X'
	}
	if x.A != "first-value" {
		t.Fatalf("decoded string changed with its buffer: %q", x.A)
	}
}
