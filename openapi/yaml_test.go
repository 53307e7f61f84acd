package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestJSONToYAMLRoundTrip checks that reading the YAML back gives the same
// value as reading the JSON, for the strings YAML is known to misread.
func TestJSONToYAMLRoundTrip(t *testing.T) {
	tricky := []string{
		"", " ", "true", "false", "yes", "no", "on", "off", "null", "~", "1", "1.0", "-1e3", "0x1F", "0o17",
		"2026-01-01", "12:30", "a: b", "- x", "#comment", "&anchor", "*alias", "!tag", "%", "@", "`",
		"{a}", "[a]", "'q'", "\"q\"", "multi\nline", "trailing\n", "  leading spaces\nx", "tab\tx",
		"line with trailing space \nnext", "\n", "unicode é ☃", "x-ext", "#/components/schemas/Pet",
		"^[a-z]+$", "\\d+", "ends with colon:", "?", "|", ">", "=", "<<",
	}
	in := map[string]any{"strings": tricky, "nums": []any{1, -2, 3.5, 1e21, 0}, "b": []any{true, false, nil},
		"empty": map[string]any{}, "list": []any{}, "nested": map[string]any{"y": "z", "n": []any{map[string]any{"a": 1}}}}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := JSONToYAML(data)
	if err != nil {
		t.Fatal(err)
	}
	var fromYAML, fromJSON any
	if err := yaml.Unmarshal(out, &fromYAML); err != nil {
		t.Fatalf("YAML does not parse: %v\n%s", err, out)
	}
	if err := json.Unmarshal(data, &fromJSON); err != nil {
		t.Fatal(err)
	}
	// Normalise numbers: YAML gives ints, JSON float64.
	norm := func(v any) any { b, _ := json.Marshal(v); var x any; json.Unmarshal(b, &x); return x }
	if got, want := norm(fromYAML), norm(fromJSON); !reflect.DeepEqual(got, want) {
		t.Errorf("round trip differs\nYAML:\n%s\ngot  %v\nwant %v", out, got, want)
	}
}

// YAML 1.1 reads U+0085, U+2028 and U+2029 as line breaks and YAML 1.2
// as characters: the YAML form writes them escaped, never as themselves,
// so that a reader of either version reads the string the JSON has.
func TestJSONToYAMLEscapesUnicodeLineBreaks(t *testing.T) {
	for _, s := range []string{"^[^\u2028-\u202e]*$", "a\u2029b", "next\u0085line", "both\nand\u2028"} {
		data, _ := json.Marshal(map[string]string{"pattern": s})
		out, err := JSONToYAML(data)
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(string(out), "\u0085\u2028\u2029") {
			t.Errorf("%q is written as itself: %q", s, out)
		}
		var back map[string]string
		if err := yaml.Unmarshal(out, &back); err != nil || back["pattern"] != s {
			t.Errorf("%q read back as %q (%v) from %q", s, back["pattern"], err, out)
		}
	}
}

func TestJSONToYAMLKeepsKeyOrder(t *testing.T) {
	out, err := JSONToYAML([]byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "openapi: 3.1.0\ninfo:\n  title: t\n  version: '1'\npaths: {}\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if _, err := JSONToYAML([]byte(`{"a":1} x`)); err == nil || !strings.Contains(err.Error(), "JSON") {
		t.Errorf("trailing data: err = %v", err)
	}
}
