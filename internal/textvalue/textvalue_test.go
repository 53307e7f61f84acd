package textvalue

import (
	"log/slog"
	"reflect"
	"testing"
	"time"
)

func TestSet(t *testing.T) {
	var v struct {
		S string
		B bool
		I int8
		U uint16
		F float32
		D time.Duration
		L slog.Level
		M map[string]int
	}
	rv := reflect.ValueOf(&v).Elem()
	for _, c := range []struct {
		field, text string
		ok          bool
	}{
		{"S", "x y", true}, {"B", "true", true}, {"B", "yes", false},
		{"I", "-128", true}, {"I", "128", false}, {"I", "0x10", false},
		{"U", "65535", true}, {"U", "-1", false}, {"F", "1.5", true}, {"F", "1e39", false},
		{"D", "1m30s", true}, {"D", "90", false}, {"L", "warn", true}, {"L", "loud", false}, {"M", "a=1", false},
	} {
		if err := Set(rv.FieldByName(c.field), c.text); (err == nil) != c.ok {
			t.Errorf("%s %q: %v", c.field, c.text, err)
		}
	}
	if v.S != "x y" || !v.B || v.I != -128 || v.U != 65535 || v.F != 1.5 || v.D != 90*time.Second || v.L != slog.LevelWarn {
		t.Errorf("%+v", v)
	}
}
