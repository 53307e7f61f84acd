package adversarial

import (
	"encoding/json"
	"strings"
	"testing"
)

// secrets: what the service must never show, to a client or in its log.
func secrets(t *testing.T, s *target) {
	t.Run("secrets supplied by the operator are never printed", func(t *testing.T) {
		// Issue 31 row 1: the token was printed at every start, even when
		// the operator supplied it.
		out := s.svc.Output()
		for what, secret := range map[string]string{"the bearer token": s.token, "the cursor key": cursorKey} {
			if strings.Contains(out, secret) {
				t.Errorf("the service's output shows %s", what)
			}
		}
	})

	t.Run("the log is JSON, each line with its request ID", func(t *testing.T) {
		// The report behind issue 31: "operation failed" lines were plain
		// text inside the JSON log, with no request ID.
		s.do(t, "GET", "/pets/999999999", nil)
		for _, line := range strings.Split(strings.TrimSpace(s.svc.Output()), "\n") {
			if !strings.HasPrefix(line, "{") {
				continue // the start-up banner is for people
			}
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Errorf("a log line that is not JSON: %q", line)
				continue
			}
			if _, isRequest := rec["method"]; isRequest && rec["request_id"] == nil {
				t.Errorf("a request's log line without its request ID: %q", line)
			}
		}
	})

	t.Run("problems show no internals", func(t *testing.T) {
		for _, c := range []struct{ method, path, body, ctype string }{
			{"POST", "/pets", `{"name":`, "application/json"},
			{"POST", "/pets", `{"name":"x","species":"cat","tags":[1]}`, "application/json"},
			{"PUT", "/pets/1", `[]`, "application/json"},
			{"PATCH", "/pets/1", `[{"op":"add"}]`, "application/json-patch+json"},
			{"GET", "/pets?cursor=%ff%fe", "", ""},
		} {
			hs := []string{s.auth()}
			if c.ctype != "" {
				hs = append(hs, "Content-Type: "+c.ctype)
			}
			var body []byte
			if c.body != "" {
				body = []byte(c.body)
			}
			res := s.do(t, c.method, c.path, body, hs...)
			for _, leak := range []string{"sql", "SQL", "goroutine", ".go:", "panic", "runtime.", "0x"} {
				if strings.Contains(string(res.body), leak) {
					t.Errorf("%s %s %s: the answer shows %q: %s", c.method, c.path, c.body, leak, res)
				}
			}
			if res.status >= 500 {
				t.Errorf("%s %s %s: %s", c.method, c.path, c.body, res)
			}
		}
	})
}
