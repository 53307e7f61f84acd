package fast

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// TestPutHeader: a handler's header goes out as net/http's server writes
// it: names sorted and as written, every value, line breaks in a value
// never breaking the header (the Content-Type too, which is set without
// fasthttp's Add), and whether there was a Content-Type.
func TestPutHeader(t *testing.T) {
	for _, tc := range []struct {
		h     http.Header
		typed bool
		want  []string // the header lines after the status line, in order
	}{
		{http.Header{"X-B": {"2"}, "Content-Type": {"application/json"}, "X-A": {"1", "1b"}, "x-lower": {"l"}}, true,
			[]string{"Content-Type: application/json", "X-A: 1", "X-A: 1b", "X-B: 2", "x-lower: l"}},
		{http.Header{"Content-Type": {"text/plain\r\nX-Injected: yes"}}, true,
			[]string{"Content-Type: text/plain  X-Injected: yes"}},
		{http.Header{"X-Value": {"a\r\nX-Injected: yes"}}, false,
			[]string{"X-Value: a  X-Injected: yes"}},
		{http.Header{"Content-Type": nil, "Z": {"z"}}, true, []string{"Z: z"}},
	} {
		got, typed := put(tc.h, nil)
		if typed != tc.typed || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%v: lines %q, typed %v; want %q, %v", tc.h, got, typed, tc.want, tc.typed)
		}
	}
}

// put is putHeader of h into a new response: its header lines after the
// status line (but Content-Length and Date), and whether h has a
// Content-Type.
func put(h http.Header, sc *headerScratch) ([]string, bool) {
	var resp fasthttp.Response
	resp.Header.SetNoDefaultContentType(true)
	typed := putHeader(&resp.Header, h, sc)
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(resp.Header.String()), "\r\n")[1:] {
		if !strings.HasPrefix(line, "Content-Length:") && !strings.HasPrefix(line, "Date:") {
			lines = append(lines, line)
		}
	}
	return lines, typed
}

// TestPutHeaderKnown: headers put one after another with a connection's
// scratch, which remembers the names of the header before, go out as
// each does alone: whether a header repeats the names before (with other
// values), has as many other names, fewer, more, names that differ in
// case only, or more names than are remembered.
func TestPutHeaderKnown(t *testing.T) {
	many := http.Header{}
	for i := range maxKnownNames + 1 {
		many[fmt.Sprintf("X-%02d", i)] = []string{"v"}
	}
	headers := []http.Header{
		{"Content-Type": {"application/json"}, "X-Content-Type-Options": {"nosniff"}},
		{"Content-Type": {"text/plain"}, "X-Content-Type-Options": {"nosniff", "again"}},
		{"Content-Type": {"text/plain"}, "X-Other": {"o"}},
		{"X-Other": {"o"}},
		{"X-Other": {"p"}, "Content-Type": nil, "": {"empty name"}},
		{"x-other": {"q"}, "content-type": {"a/b"}, "": {"e"}},
		{},
		many,
		many,
		{"Content-Type": {"application/json"}, "X-Content-Type-Options": {"nosniff"}, "Etag": {`"1"`}},
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var sc headerScratch
	h := headers[0]
	for i := range 2000 {
		if rng.IntN(2) == 0 {
			h = headers[rng.IntN(len(headers))] // else the header before again
		}
		got, gotTyped := put(h, &sc)
		want, wantTyped := put(h, nil)
		if gotTyped != wantTyped || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("put %d, %v: %q, typed %v; alone: %q, %v", i, h, got, gotTyped, want, wantTyped)
		}
	}
}
