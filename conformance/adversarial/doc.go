// Package adversarial is the attacks tried on vane and its example
// service, kept as tests so that none comes back. The suite builds the
// example service (examples/petstore) as users run it, starts it on
// 127.0.0.1, and sends what an anonymous or hostile client would: odd
// request targets and framing, every header the service reads with values
// it does not expect, parameters in every spelling, patch documents that
// bend RFC 6901 and 6902, forged and borrowed cursors, more event streams
// than is fair, requests for the docs page's assets in every coding, and
// browser preflights, and thousands of header lines on connections kept
// open (the service's resident memory after them). Each case says what is tried, what the answer must
// be, and which rule it holds (an RFC section, or a promise of the brief);
// a case that came from a report names the report's row ("issue 31 row 7").
//
// Every request goes to 127.0.0.1, every load is bounded in count, and
// the suite stops by itself. Nothing in it asserts how long an answer
// takes; where cost matters, a case checks what can be counted from
// outside (a Content-Length that shows a body prepared ahead, an ETag that
// stays the same) and names the in-process test that counts the work.
//
// To add an attack: find the file of its area (framing, headers, params,
// patches, cursors, streams, docs, cors, writes, secrets, round2, memory), add a case with
// the rule it holds, and check that it fails against a build without the
// fix. docs/security.md lists the areas and what is out of scope.
package adversarial
