package measure

import (
	stdjson "encoding/json"
	"testing"
)

type withMarshaler struct{ X int }

func (w withMarshaler) MarshalJSON() ([]byte, error) { return []byte(`"custom"`), nil }

type sem struct {
	A string        `json:"a,omitempty"`
	B int           `json:"b,string"`
	M withMarshaler `json:"m"`
	H string        `json:"-"`
	E []int         `json:"e"`
	F float64       `json:"f"`
}

// Semantics differences worth knowing, printed for the doc.
func TestSemantics(t *testing.T) {
	v := sem{B: 3, E: nil, F: 1e21}
	for _, c := range codecs {
		b, err := c.m(v)
		t.Logf("%-10s marshal: %s %v", c.name, b, err)
		var x GreetingIn
		err = c.u([]byte(`{"suffix":"\xff"}`), &x)
		t.Logf("%-10s invalid utf8: %q %v", c.name, x.Suffix, err)
		var y GreetingIn
		err = c.u([]byte(`{"SUFFIX":"x"}`), &y)
		t.Logf("%-10s case-insensitive key: %q %v", c.name, y.Suffix, err)
		var z GreetingIn
		err = c.u([]byte(`{"suffix":"x"} trailing`), &z)
		t.Logf("%-10s trailing garbage err: %v", c.name, err)
		err = c.u([]byte(`{"suffix":1}`), &z)
		t.Logf("%-10s type error: %v", c.name, err)
		err = c.u([]byte(`{"suffix":"x",}`), &z)
		t.Logf("%-10s syntax error: %v", c.name, err)
	}
	_ = stdjson.Valid
}
