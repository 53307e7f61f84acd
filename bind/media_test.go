package bind

import (
	"testing"
)

func TestParseMediaType(t *testing.T) {
	cases := []struct {
		in, mt  string
		ok      bool
		charset string
	}{
		{"application/json", "application/json", true, ""},
		{"Application/JSON; Charset=\"UTF-8\"", "application/json", true, "UTF-8"},
		{"application/json;charset=utf-8;;", "application/json", true, "utf-8"},
		{"application/json ; a=b ;charset=latin1", "application/json", true, "latin1"},
		{`multipart/form-data; boundary="a b\"c"`, "multipart/form-data", true, ""},
		{"", "", false, ""},
		{";;;", "", false, ""},
		{"application", "", false, ""},
		{"application/", "", false, ""},
		{"/json", "", false, ""},
		{"application/json x", "", false, ""},
		{"application/json; charset", "", false, ""},
		{"application/json; charset=", "", false, ""},
		{`application/json; charset="utf-8`, "", false, ""},
		{"application/json; ch@rset=x", "", false, ""},
		{"application/json; a=\"\x01\"", "", false, ""},
		{"text/plain", "text/plain", true, ""},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			mt, params, ok := parseMediaType(c.in)
			if mt != c.mt || ok != c.ok {
				t.Fatalf("got %q %v, want %q %v", mt, ok, c.mt, c.ok)
			}
			if cs, _ := mediaParam(params, "charset"); cs != c.charset {
				t.Errorf("charset %q, want %q", cs, c.charset)
			}
		})
	}
	if b, _ := mediaParam(`; boundary="a b\"c"`, "boundary"); b != `a b"c` {
		t.Errorf("quoted boundary: %q", b)
	}
}

func TestIsJSON(t *testing.T) {
	for mt, want := range map[string]bool{
		"application/json": true, "application/merge-patch+json": true, "application/problem+json": true,
		"application/+json": false, "text/json": false, "application/jsonx": false, "text/plain+json": false, "application/x-www-form-urlencoded": false,
	} {
		t.Run(mt, func(t *testing.T) {
			if isJSON(mt) != want {
				t.Errorf("isJSON(%q) = %v", mt, !want)
			}
		})
	}
}

func TestMediaTypeAllocatesNothingWhenLowerCase(t *testing.T) {
	n := testing.AllocsPerRun(100, func() {
		if checkJSONType([]string{"application/json; charset=utf-8"}) != nil {
			t.Fatal("refused")
		}
	})
	if n != 0 {
		t.Errorf("%v allocations", n)
	}
}

// TestCheckJSONType: the forms clients send most pass at once; everything
// else is parsed, and two Content-Type lines are refused even when the
// first is JSON.
func TestCheckJSONType(t *testing.T) {
	for ct, ok := range map[string]bool{
		"application/json":                 true,
		"application/json; charset=utf-8":  true,
		"application/json;charset=UTF-8":   true,
		"application/merge-patch+json":     true,
		"application/json; charset=latin1": false,
		"text/plain":                       false,
		"application/json x":               false,
	} {
		if got := checkJSONType([]string{ct}) == nil; got != ok {
			t.Errorf("%q: accepted %v, want %v", ct, got, ok)
		}
	}
	if checkJSONType([]string{"application/json", "text/plain"}) == nil {
		t.Error("two Content-Type lines accepted")
	}
}
