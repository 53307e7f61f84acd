package vanetest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vane-http/vane/vanetest"
)

// Events parses what an EventSource parses: ids, names, multi-line data,
// and no comments.
func TestEvents(t *testing.T) {
	body := ": opened\n\nid: 1\nevent: created\ndata: {\"a\":\ndata: 1}\n\n: keep-alive\n\nevent: gone\ndata:x\n\n"
	var got []string
	for e := range vanetest.Events(strings.NewReader(body)) {
		got = append(got, fmt.Sprintf("%s|%s|%s", e.ID, e.Name, e.Data))
	}
	if want := "1|created|{\"a\":\n1} |gone|x"; strings.Join(got, " ") != want {
		t.Errorf("%q", got)
	}
}
