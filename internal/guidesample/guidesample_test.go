package guidesample

import (
	"strings"
	"testing"
)

func TestSamples(t *testing.T) {
	page := "# Page\n\n<!-- sample: a/b_test.go -->\n```go\nfunc A() {\n\treturn\n}\n```\n\ntext\n\n```sh\nls\n```\n"
	s, err := Samples([]byte(page))
	if err != nil || len(s) != 1 || s[0].File != "a/b_test.go" || s[0].Line != 4 || s[0].Code != "func A() {\n\treturn\n}\n" {
		t.Fatalf("%+v %v", s, err)
	}
	for _, bad := range []string{
		"```go\nx\n```\n", // no comment
		"<!-- sample: a.go -->\ntext\n```go\nx\n```\n", // not right before
		"<!-- sample: a.go -->\n```go\nx\n",            // not closed
	} {
		if _, err := Samples([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestContains(t *testing.T) {
	have := lines([]byte("a\n\tb\n\n  c\nd\n"))
	for want, ok := range map[string]bool{"b\nc": true, "a\nb\nc\nd": true, "\t\tc\n\nd": true, "b\nd": false, "d\ne": false, "": true} {
		if got := contains(have, lines([]byte(want))); got != ok {
			t.Errorf("%q in %q: %v", want, strings.Join(have, "|"), got)
		}
	}
}
