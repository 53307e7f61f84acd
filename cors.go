package vane

import (
	"net/http"
	"slices"

	"github.com/vane-http/vane/operation"
)

// CORSHeaders returns what a CORS middleware in front of r's typed
// operations must let a page of another origin use, as the operations'
// descriptions (r.Operations) declare it, so that a browser client can
// use what the document promises:
//
//   - exposed, the response headers a page may read
//     (Access-Control-Expose-Headers): every header the operations'
//     responses document (an output's header fields, such as ETag,
//     Last-Modified, Location and Link; a ProblemType's, such as
//     WWW-Authenticate), Retry-After (every 503 carries it), and the
//     headers vane answers a body it cannot read with (Accept-Encoding,
//     and Accept-Patch for a PATCH);
//   - allowed, the request headers a page may send
//     (Access-Control-Allow-Headers): every header an input reads (a
//     header-tagged field: If-Match, If-Unmodified-Since and If-None-Match
//     of a Conditional, Last-Event-ID of a stream, Idempotency-Key, your
//     own), If-None-Match and If-Modified-Since where a GET answers 304,
//     Accept where the answer is negotiated, Content-Type and
//     Content-Encoding where there is a body (a JSON type is not one a
//     browser sends without asking; vane decodes gzip), and Authorization
//     where an operation declares a security requirement (Security; a
//     requirement the docs configuration sets for the whole document is
//     not seen here).
//
// Both are sorted, in canonical form, each name once; they are empty for
// a router without typed operations. What the descriptions do not say is
// left to the caller: the header of an API-key scheme, what middleware
// reads or writes (X-Request-Id), headers of routes that are not typed
// operations. Set-Cookie is never exposed (no page can read it).
//
// Call it once the operations are registered, and give the lists to the
// CORS middleware, such as github.com/rs/cors:
//
//	exposed, allowed := r.CORSHeaders()
//	r.Use(cors.New(cors.Options{
//		AllowedOrigins: []string{"https://app.example"},
//		AllowedMethods: []string{"GET", "POST", "PUT", "PATCH", "DELETE"},
//		AllowedHeaders: append(allowed, "X-Request-Id"),
//		ExposedHeaders: append(exposed, "X-Request-Id"),
//	}).Handler)
func (r *Router) CORSHeaders() (exposed, allowed []string) {
	var exp, allow headerSet
	for _, d := range r.api.ops {
		exp.add("Retry-After")
		for _, resp := range d.Responses {
			for _, h := range resp.Headers {
				if http.CanonicalHeaderKey(h.Name) != "Set-Cookie" {
					exp.add(h.Name)
				}
			}
		}
		for _, p := range d.Parameters {
			if p.In == operation.InHeader {
				allow.add(p.Name)
			}
		}
		if d.Response(http.StatusNotModified) != nil {
			allow.add("If-None-Match")
			allow.add("If-Modified-Since")
		}
		if d.Response(http.StatusNotAcceptable) != nil {
			allow.add("Accept")
		}
		if d.RequestBody != nil {
			allow.add("Content-Type")
			allow.add("Content-Encoding")
			exp.add("Accept-Encoding")
			if d.Method == http.MethodPatch {
				exp.add("Accept-Patch")
			}
		}
		if len(d.Security) > 0 {
			allow.add("Authorization")
		}
	}
	return exp.sorted(), allow.sorted()
}

// headerSet is a set of header names, in canonical form.
type headerSet map[string]struct{}

func (s *headerSet) add(name string) {
	if *s == nil {
		*s = headerSet{}
	}
	(*s)[http.CanonicalHeaderKey(name)] = struct{}{}
}

func (s headerSet) sorted() []string {
	out := make([]string, 0, len(s))
	for name := range s {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
