// Package vane is a schema-first HTTP framework: a router that serves
// standard net/http handlers, and typed operations whose input is bound
// from the request and validated before the handler runs, with an
// OpenAPI 3.1 document and a docs page made from the same Go types.
//
// The tags that validate an input are the tags that document it, so the
// server accepts exactly what its published document allows. Errors are
// RFC 9457 problems (application/problem+json) that list every failed
// field with its location ("path.id", "body.items[2].name").
//
// # A first service
//
// An input type says where each value comes from and what it must be; an
// output type is the answer, sent as JSON. Options given to a group are
// defaults of every operation registered through it: here its middleware,
// its security (which the document states and the middleware checks),
// an answer it can give, and a tag.
//
//	type GetPet struct {
//		ID int64 `path:"id" minimum:"1"`
//	}
//
//	type Pet struct {
//		ID   int64  `json:"id"`
//		Name string `json:"name" minLength:"1" maxLength:"80"`
//	}
//
//	func getPet(ctx context.Context, in *GetPet) (*Pet, error) {
//		if in.ID != 1 {
//			return nil, vane.NotFound("no pet has this ID")
//		}
//		return &Pet{ID: 1, Name: "Rex"}, nil
//	}
//
//	// requireToken is plain net/http middleware: 401 unless the request
//	// carries the token.
//	func requireToken(next http.Handler) http.Handler {
//		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
//			if req.Header.Get("Authorization") != "Bearer s3cret" {
//				problem.Write(w, vane.Unauthorized("a valid bearer token is required").WithHeader("WWW-Authenticate", "Bearer"))
//				return
//			}
//			next.ServeHTTP(w, req)
//		})
//	}
//
//	func newPetRouter() *vane.Router {
//		r := vane.New()
//		pets := r.Group("/v1", // defaults of every operation registered through pets
//			vane.Middleware(requireToken), // checks the credentials
//			vane.Security("bearer"),       // says so in the document
//			vane.Problems(vane.ProblemType{Status: http.StatusUnauthorized, Description: "No valid token."}),
//			vane.Tags("pets"))
//		vane.Get(pets, "/pets/{id}", getPet, vane.ID("getPet"), vane.Summary("Get a pet"))
//		vane.Docs(r, vane.DocsConfig{Config: openapi.Config{
//			Info:            openapi.Info{Title: "Pets", Version: "1.0.0"},
//			SecuritySchemes: map[string]*openapi.SecurityScheme{"bearer": openapi.BearerAuth("")},
//		}}) // GET /openapi.json, /openapi.yaml, /openapi-3.0.json, /docs
//		return r
//	}
//
// [Serve] runs it with safe timeouts and limits, panic recovery, and a
// graceful shutdown on SIGINT or SIGTERM; [Server] sets them otherwise:
//
//	r := newPetRouter()
//	if err := vane.Serve(context.Background(), ":8080", r); err != nil {
//		log.Fatal(err)
//	}
//
// GET /v1/pets/1 with the token answers {"id":1,"name":"Rex"};
// GET /v1/pets/0 a 422 naming path.id; without the token, a 401.
//
// # Typed operations
//
// [Register] adds an operation of a method and a pattern, and [Get],
// [Post], [Put], [Patch] and [Delete] are its shorthands. The handler is
// func(ctx context.Context, in *I) (*O, error). Fields of I tagged path,
// query, header, cookie or form are parameters, a field named Body is the
// request body, and the tags of package schema (minimum, maxLength,
// pattern, enum, required, default …) are its rules. Fields of O tagged
// header are response headers, and its Body field the body. A request is
// bound, validated, resolved ([Resolver], for rules the tags cannot say),
// and only then handed to the handler; the first step that fails answers
// a problem. An error the handler returns answers with its status when
// it has one ([Error], [NotFound], [Unavailable] …), and a 500 that
// reveals nothing otherwise.
//
// Beside the plain operation: [Stream] serves server-sent events,
// [MergePatch] a PATCH (JSON merge patch and JSON Patch) built from a GET
// and a PUT, [Conditional] conditional requests (ETag, If-Match) compared
// in the same step as the write, [Idempotent] retries with an
// Idempotency-Key, and [Pager] the cursors and links of a page.
//
// Patterns are those of net/http.ServeMux: {name} is one segment and
// {name...} the rest of the path. Where several routes match a path, the
// most specific wins segment by segment from the left: static text beats
// {name}, which beats {name...}. Plain handlers go in with
// [Router.Handle] and [Router.HandleFunc]; vane neither binds nor
// documents them.
//
// # Options
//
// One [Option] type configures the router ([New]), a group
// ([Router.Group]) and one operation. An operation takes New's options,
// then each group's, outermost first, then its own: a later [Summary],
// [Status], [Security] or [BodyLimit] replaces an earlier one, while
// [Tags], [Problems], [Responds], [Middleware] and [Extension] add up.
// [Public] says an operation needs no credentials, and [Options] bundles
// several options into one. An option given where it means nothing (a
// routing option to a group, [ID] to a group) panics at once. Zero is a
// setting's default everywhere; [Off] turns a limit, a timeout or a
// heartbeat off.
//
// Registration decides everything once: a type that cannot be bound,
// validated or documented, an option out of place, or a path the
// document cannot describe beside an earlier one panics, naming the type,
// field and pattern. What depends on the document's configuration (a
// security scheme it does not declare) is reported by [Router.Check],
// which Serve calls before it listens.
//
// # The document
//
// [Docs] serves the OpenAPI 3.1 document as JSON and YAML, its 3.0
// translation for generators that read only 3.0, and a docs page that
// works without network access. [OpenAPI] returns the document to code,
// and package cli writes it from the command line without serving.
// Package vanetest sends requests to a router in a test and fails it when
// an answer is not one the document allows.
//
// # Where each concern lives
//
// A request flows through these packages, each usable alone:
//
//   - [github.com/vane-http/vane/router]: routing, path parameters,
//     middleware, groups and mounts;
//   - [github.com/vane-http/vane/bind]: the request into a typed input;
//   - [github.com/vane-http/vane/validate]: the input against its tags'
//     rules, every failure listed;
//   - this package: the typed handler that runs these steps, then the
//     handler's own function;
//   - [github.com/vane-http/vane/respond]: the output into a response
//     (encoding, negotiation, conditional requests, event streams);
//   - [github.com/vane-http/vane/problem]: RFC 9457 problems.
//
// Beside them: [github.com/vane-http/vane/schema] (Go types into JSON
// Schema), [github.com/vane-http/vane/operation] (the compiled
// description of an operation, which binding and the document both
// read), [github.com/vane-http/vane/openapi] (the document and the docs
// page), [github.com/vane-http/vane/codec] (JSON codecs),
// [github.com/vane-http/vane/jsonpatch] (RFC 6902 and 7396),
// [github.com/vane-http/vane/middleware] (logging, request IDs, real IP,
// timeouts, throttling, recovery), [github.com/vane-http/vane/vanetest]
// (tests) and [github.com/vane-http/vane/cli] (flags, the environment and
// an openapi command).
//
// # Guides
//
// The user's guide, task by task, is docs/guide/ in the repository
// ([the guide]): testing with vanetest, the command line, and adopting
// vane inside a chi, gin, echo or ServeMux application among its pages.
// examples/petstore is a complete service to copy.
//
// [the guide]: https://github.com/vane-http/vane/tree/main/docs/guide
package vane
