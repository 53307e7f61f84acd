package hazard

import (
	"testing"
)

// TestHazard is the hazard suite. Each case is a subtest that can be run
// alone, on each engine (-run 'TestHazard/<name>/<engine>'); see the
// package documentation.
func TestHazard(t *testing.T) {
	cases := []struct {
		name string
		test func(*testing.T, engine)
	}{
		{"background_without_cancel", testBackground},
		{"param_after_return", testParamAfterReturn},
		{"timeout_handler", testTimeoutHandler},
		{"mount", testMount},
		{"http2", testHTTP2},
		{"panic", testPanic},
		{"typed_keeps_body_pointer", testTypedBodyPointer},
		{"typed_keeps_body_bytes", testTypedBodyBytes},
		{"typed_ctx_after_return", testTypedContext},
		{"typed_ctx_of_vane_middleware", testTypedVaneContext},
		{"http_client", testHTTPClient},
		{"database_sql", testDatabaseSQL},
		{"reverse_proxy", testReverseProxy},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, e := range engines {
				t.Run(e.name(), func(t *testing.T) { c.test(t, e) })
			}
		})
	}
}
