package measure

import (
	stdjson "encoding/json"
	"flag"
	"reflect"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/vane-http/vane/codec"
)

// The behaviours that decided the default codec (docs/design/json-codec.md), per
// candidate: whether it matches keys exactly, refuses duplicate keys and
// invalid UTF-8, and keeps encoding/json's rules for the string option.
// A library that changes any of them fails here, and the decision must be
// looked at again.
func TestSemantics(t *testing.T) {
	type row struct {
		exact, noDup, noBadUTF8, stringOpt bool
	}
	want := map[string]row{
		"std":                      {false, false, false, true},
		"goccy":                    {false, false, false, true},
		"goccy+dupscan":            {false, true, true, true},
		"v2-v1compat":              {false, false, false, true},
		"v2-strict":                {true, true, true, true},
		"v2-strict-v2errors":       {true, true, true, true},
		"goccy-v2-v1compat":        {false, false, false, true},
		"goccy-v2-strict":          {true, true, true, true},
		"goccy-v2-strict-v2errors": {true, true, true, true},
		"vane":                     {true, true, true, true},
		"sonic":                    {false, false, false, true},
		"segmentio":                {false, false, false, true},
	}
	type withString struct {
		N int `json:"n,string"`
	}
	for _, c := range candidates {
		t.Run(c.name, func(t *testing.T) {
			var got row
			var g GreetingIn
			got.exact = c.u([]byte(`{"SUFFIX":"x"}`), &g) == nil && g.Suffix == ""
			got.noDup = c.u([]byte(`{"suffix":"a","suffix":"b"}`), &GreetingIn{}) != nil
			got.noBadUTF8 = c.u([]byte("{\"suffix\":\"\xff\"}"), &GreetingIn{}) != nil
			var w withString
			got.stringOpt = c.u([]byte(`{"n":"5"}`), &w) == nil && w.N == 5
			if got != want[c.name] {
				t.Errorf("got %+v, want %+v", got, want[c.name])
			}
		})
	}
}

// Every candidate decodes the two payloads to encoding/json's values.
func TestSameValues(t *testing.T) {
	var wantItem Item
	if err := stdjson.Unmarshal(itemIn, &wantItem); err != nil {
		t.Fatal(err)
	}
	for _, c := range candidates {
		t.Run(c.name, func(t *testing.T) {
			var g GreetingIn
			var it Item
			if err := c.u(smallIn, &g); err != nil || g.Suffix != "!" {
				t.Errorf("greeting: %+v %v", g, err)
			}
			if err := c.u(itemIn, &it); err != nil || !reflect.DeepEqual(it, wantItem) {
				t.Errorf("item: %+v %v", it, err)
			}
		})
	}
}

type diffDoc struct {
	Name  string             `json:"name"`
	Count int8               `json:"count,omitempty"`
	Price float64            `json:"price"`
	Tags  []string           `json:"tags"`
	When  time.Time          `json:"when"`
	Meta  map[string]any     `json:"meta"`
	Next  *diffDoc           `json:"next"`
	Num   int64              `json:"num,string"`
	Arr   [2]int             `json:"arr"`
	Flags map[string]bool    `json:"flags"`
	Raw   stdjson.RawMessage `json:"raw"`
}

// FuzzStrictAgainstReference: vane's codec and encoding/json/v2's
// reference implementation (go-json-experiment/json), with the same
// options, accept the same inputs and decode them to the same values.
func FuzzStrictAgainstReference(f *testing.F) {
	for _, s := range []string{
		string(itemIn), string(smallIn),
		`{"name":"a","count":3,"price":1.5,"tags":["x"],"when":"2024-01-02T03:04:05Z","meta":{"a":[1,{"b":null}]},"next":{"name":"b"},"num":"7","arr":[1,2,3],"flags":{"x":true},"raw":{"k":[1]}}`,
		`{"name":"a","name":"b"}`, `{"NAME":1}`, `{"count":300}`, `{"when":"x"}`, `[`, `{"a":1}x`, "{\"name\":\"\xff\"}",
		`{"meta":{"k":1,"k":2}}`, `{"next":{"next":{"count":1.5}}}`, `{"num":"0x10"}`, `{"arr":[1]}`, `null`, `{"next":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var a, b diffDoc
		start := time.Now()
		errA := codec.JSON.Unmarshal(data, &a)
		tookA := time.Since(start)
		errB := jsonv2.Unmarshal(data, &b, v2Strict)
		// While fuzzing, an input that takes long is a finding; a plain
		// go test run of the seed corpus asserts nothing on time.
		if fuzzing() && tookA > 500*time.Millisecond {
			t.Fatalf("%d bytes took %v", len(data), tookA)
		}
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%q: vane %v, reference %v", data, errA, errB)
		}
		if errA == nil {
			ja, _ := stdjson.Marshal(a)
			jb, _ := stdjson.Marshal(b)
			if string(ja) != string(jb) {
				t.Fatalf("%q:\nvane      %s\nreference %s", data, ja, jb)
			}
		}
	})
}

// fuzzing reports whether the test binary runs the fuzzer (go test -fuzz),
// not only the seed corpus as a plain go test run does.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}
