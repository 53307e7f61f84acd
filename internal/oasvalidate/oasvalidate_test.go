package oasvalidate

import (
	"fmt"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"JSON 3.1", "{\n  \"openapi\": \"3.1.0\",\n  \"info\": {}\n}", "3.1"},
		{"JSON 3.0", "{\n  \"openapi\": \"3.0.3\",\n  \"info\": {}\n}", "3.0"},
		{"YAML 3.1", "openapi: 3.1.0\ninfo:\n  title: x\n", "3.1"},
		{"YAML quoted 3.0", "openapi: '3.0.3'\n", "3.0"},
		{"2.0", "{\n  \"swagger\": \"2.0\"\n}", ""},
		{"3.2", "openapi: 3.2.0\n", ""},
		{"only in a description", "info:\n  description: 'openapi: 3.1.0 is it'\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Version([]byte(tc.doc))
			if got != tc.want || (err != nil) != (tc.want == "") {
				t.Errorf("Version = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// errors is a testing.TB that keeps the errors reported to it.
type errors struct {
	testing.TB
	msgs []string
}

func (e *errors) Errorf(format string, args ...any) {
	e.msgs = append(e.msgs, fmt.Sprintf(format, args...))
}

// TestValidate runs the real validator: each document is checked against
// its own version's schema, so a 3.1 type union is fine in a 3.1 document
// and an error in a 3.0 one.
func TestValidate(t *testing.T) {
	const paths = `"paths": {"/a": {"get": {"responses": {"200": {"description": "OK",
	  "content": {"application/json": {"schema": {"type": %s}}}}}}}}`
	doc := func(version, typ string) []byte {
		return fmt.Appendf(nil, "{\n\"openapi\": %q,\n\"info\": {\"title\": \"t\", \"version\": \"1\"},\n"+paths+"\n}\n", version, typ)
	}
	e := &errors{TB: t}
	Validate(e, map[string][]byte{
		"good31.json": doc("3.1.0", `["string", "null"]`),
		"good30.json": doc("3.0.3", `"string"`),
	})
	if len(e.msgs) > 0 {
		t.Errorf("valid documents reported: %v", e.msgs)
	}
	e = &errors{TB: t}
	Validate(e, map[string][]byte{"bad30.json": doc("3.0.3", `["string", "null"]`)})
	if len(e.msgs) != 1 || !strings.Contains(e.msgs[0], "bad30.json") {
		t.Errorf("a 3.0 document with a type union: reported %q, want one error naming bad30.json", e.msgs)
	}
}
