package hazard

import (
	"testing"
)

// TestHazard is the hazard suite. Each case is a subtest that can be run
// alone (-run 'TestHazard/<name>'); see the package documentation.
func TestHazard(t *testing.T) {
	cases := []struct {
		name string
		test func(*testing.T)
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
		{"http_client", testHTTPClient},
		{"database_sql", testDatabaseSQL},
		{"reverse_proxy", testReverseProxy},
	}
	for _, c := range cases {
		t.Run(c.name, c.test)
	}
}
