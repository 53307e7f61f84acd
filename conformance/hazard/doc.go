// Package hazard holds vane's hazard suite: tests, run under the race
// detector, that net/http's request contract holds for handlers served by
// vane. A request, its context, every context derived from it, its path
// parameters and a typed operation's input stay valid for as long as anyone
// holds them: nothing a handler can reach is reused after it returns.
//
// Each case of TestHazard runs on each engine: net/http's server
// (nethttp) and vane's fast engine (fast, module
// github.com/vane-http/vane/fast), which serves typed operations natively
// from fasthttp's reused buffers and everything else through its net/http
// adapter. Each is a subtest that can be run alone:
//
//	cd conformance && go test -race -run 'TestHazard/background/fast' ./hazard/
//
// The HTTP/2 case runs on net/http only: the fast engine speaks HTTP/1.x.
//
// Two kinds of case:
//
//   - Overlap cases order the events with channels, so that a failure does
//     not depend on luck. In each round a first request's handler leaves a
//     reader behind (a goroutine, or the handler itself under
//     http.TimeoutHandler) and returns; later requests are then served to
//     completion, one more is held in flight inside its handler, and only
//     then does the reader read what it kept: it must see its own request's
//     data (for a path parameter, its own value or ""), never another
//     request's. Each round checks that the order really was so before the
//     read.
//   - Load cases hand the request's context to the standard library, whose
//     own goroutines (http.Transport's, database/sql's) keep using it after
//     the handler returns. There is no reader of ours to order; under -race
//     a reuse of the context is a data race that fails the test, and every
//     answer is checked against the request that asked.
//
// The race detector reports each distinct race once per process, so a load
// case that fails by a race alone is best shown failing on its own
// (-run 'TestHazard/http_client/nethttp$'), not after -count repeats or after
// another case that hit the same race.
//
// The suite uses vane's public API only, and lives in its own module so
// that its drivers (a pure-Go SQLite) stay out of vane's go.mod.
package hazard
