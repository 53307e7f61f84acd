package fast

import (
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
		var resp fasthttp.Response
		resp.Header.SetNoDefaultContentType(true)
		_, typed := putHeader(&resp.Header, tc.h, nil)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(resp.Header.String()), "\r\n")[1:] {
			if !strings.HasPrefix(line, "Content-Length:") && !strings.HasPrefix(line, "Date:") {
				got = append(got, line)
			}
		}
		if typed != tc.typed || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%v: lines %q, typed %v; want %q, %v", tc.h, got, typed, tc.want, tc.typed)
		}
	}
}
