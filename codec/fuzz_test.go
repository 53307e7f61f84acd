package codec

import (
	"errors"
	"flag"
	"testing"
	"time"
)

// budget is the time one input of n bytes may take while fuzzing:
// generous, so that a loaded machine does not fail it, and far below what
// a super-linear decoder takes on a hostile input.
func budget(n int) time.Duration {
	d := 200*time.Millisecond + time.Duration(n)*time.Microsecond
	if raceEnabled {
		d *= 10
	}
	return d
}

// fuzzing reports whether the test binary runs the fuzzer (go test -fuzz,
// make fuzz), not only the seed corpus as a plain go test run does: only
// then is an input's time checked against its budget, which on a loaded
// machine would make a plain run fail for no fault of the code.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

type fuzzDoc struct {
	Name  string             `json:"name"`
	Count int8               `json:"count,omitempty"`
	Price float64            `json:"price"`
	Tags  []string           `json:"tags"`
	When  time.Time          `json:"when"`
	Meta  map[string]any     `json:"meta"`
	Next  *fuzzDoc           `json:"next"`
	Flags map[string]bool    `json:"flags"`
	Num   int64              `json:"num,string"`
	Arr   [2]int             `json:"arr"`
	Any   any                `json:"any"`
	Lvl   level              `json:"lvl"`
	Sub   struct{ A, B int } `json:"sub"`
}

// FuzzUnmarshal: any input decodes or fails with one of the package's
// errors, at an offset inside the input, in time linear in its size
// (checked while fuzzing).
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","count":3,"price":1.5,"tags":["x"],"when":"2024-01-02T03:04:05Z","meta":{"a":[1,{"b":null}]},"next":{"name":"b"},"num":"7","arr":[1,2],"any":true,"lvl":"low","sub":{"A":1}}`,
		`{"name":"a","name":"b"}`, `{"NAME":1}`, `{"count":300}`, `{"when":"x"}`, `[`, `{"a":1}x`, "{\"name\":\"\xff\"}",
		`{"meta":{"k":1,"k":2}}`, `{"next":{"next":{"next":{"count":1.5}}}}`, `1e400`, `{"price":1e400}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		var d fuzzDoc
		err := JSON.Unmarshal(data, &d)
		var a any
		err2 := JSON.Unmarshal(data, &a)
		if took := time.Since(start); fuzzing() && took > budget(len(data)) {
			t.Fatalf("%d bytes took %v", len(data), took)
		}
		for _, err := range []error{err, err2} {
			if err == nil {
				continue
			}
			var se *SyntaxError
			var de *DuplicateKeyError
			var te *TypeError
			if !errors.As(err, &se) && !errors.As(err, &de) && !errors.As(err, &te) {
				t.Fatalf("%q: error of an unknown kind: %T %v", data, err, err)
			}
			if off, ok := Offset(err); !ok || off < 0 || off > int64(len(data)) {
				t.Fatalf("%q: offset %d %v outside the input", data, off, ok)
			}
		}
		// What decodes into any is well-formed: it decodes again from its
		// own encoding to the same value.
		if err2 == nil {
			b, err := JSON.Marshal(a)
			if err != nil {
				t.Fatalf("%q: re-encoding: %v", data, err)
			}
			var again any
			if err := JSON.Unmarshal(b, &again); err != nil {
				t.Fatalf("%q: re-decoding %s: %v", data, b, err)
			}
		}
	})
}
