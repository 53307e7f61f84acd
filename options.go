package vane

import (
	"fmt"
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/vane-http/vane/bind"
	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/respond"
	"github.com/vane-http/vane/router"
)

// An Option configures a router, a group or one operation. The same
// options go to all three:
//
//	r := vane.New(vane.BodyLimit(64 << 10))                  // every operation of the router
//	admin := r.Group("/admin", vane.Middleware(requireAdmin), // every operation of the group
//		vane.Security("bearer", "admin"), vane.Tags("admin"))
//	vane.Delete(admin, "/users/{id}", deleteUser,             // one operation
//		vane.Summary("Remove a user"), vane.Responds(404, "No user has this ID."))
//
// An operation takes the options of New first, then those of each Group
// it is registered through, outermost first, then its own: a later
// option overrides an earlier one (Summary, Status, BodyLimit,
// Security, …), except where it adds to a list (Tags, Problems,
// Responds, Middleware, Extension).
//
// An option that means nothing where it is given is refused with a panic
// that says where it belongs: the router's own settings (the routing
// options, Encode, ErrorHook, MaxStreams, MaxStreamsPerClient) go to New
// only, and ID, which names one operation, to the operation only.
//
// Every option is in this file:
//
//   - routing (package router's options), New only: RedirectTrailingSlash,
//     RedirectCleanPath, AutoOptions, StdPathValues;
//   - the router's typed layer, New only: Encode, ErrorHook, MaxStreams,
//     MaxStreamsPerClient;
//   - what the document says of an operation: ID (the operation only),
//     Summary, Description, Tags, Deprecated, Hidden, Status, Responds,
//     Problems, Security, Public, Extension;
//   - how an operation reads and answers: BodyLimit, Codec,
//     UnknownProperties, Middleware, Heartbeat (Stream),
//     MaxPatchOperations (MergePatch), IdempotencyKeys;
//   - several as one: Options.
type Option struct {
	name  string // the function that made it, for the panic that refuses it
	where scope  // where it may be given

	router router.Option // a routing option (New)
	api    func(*api)    // what it sets for the whole tree (New)
	op     func(*spec)   // what it sets on an operation (in New and Group, a default)
	mw     []func(http.Handler) http.Handler
	list   []Option // Options
}

// scope is a set of the places an Option may be given.
type scope uint8

const (
	inNew scope = 1 << iota
	inGroup
	inOperation
	anywhere = inNew | inGroup | inOperation
)

func (s scope) String() string {
	switch {
	case s == inNew:
		return "vane.New"
	case s == inOperation:
		return "the operation"
	}
	return "vane.New, a Group or an operation"
}

// Off, given to a setting that limits, times or repeats something (a
// body limit, a cap on streams or patch operations, a timeout, a
// heartbeat, a retention), turns it off: no limit, no timeout, no
// heartbeat. Any negative value means the same. Zero always means the
// setting's documented default, never "none".
const Off = -1

// defaultBodyLimit is the body limit of typed operations when none is set.
const defaultBodyLimit = bind.DefaultBodyLimit

// Options returns opts as one option, given where each of them may be:
//
//	secured := vane.Options(vane.Security("bearer"), vane.Problems(unauthorized))
//	vane.Post(r, "/pets", createPet, secured)
func Options(opts ...Option) Option {
	o := Option{name: "Options", where: anywhere, list: opts}
	for _, x := range opts {
		o.where &= x.where
	}
	return o
}

// RedirectTrailingSlash is router.RedirectTrailingSlash.
func RedirectTrailingSlash(on bool) Option {
	return Option{name: "RedirectTrailingSlash", where: inNew, router: router.RedirectTrailingSlash(on)}
}

// RedirectCleanPath is router.RedirectCleanPath.
func RedirectCleanPath(on bool) Option {
	return Option{name: "RedirectCleanPath", where: inNew, router: router.RedirectCleanPath(on)}
}

// AutoOptions is router.AutoOptions.
func AutoOptions(on bool) Option {
	return Option{name: "AutoOptions", where: inNew, router: router.AutoOptions(on)}
}

// StdPathValues is router.StdPathValues.
func StdPathValues(on bool) Option {
	return Option{name: "StdPathValues", where: inNew, router: router.StdPathValues(on)}
}

// ID sets the operation's operationId, by which clients generated from
// the document name it ("getPet"); the default is derived from the method
// and the full pattern ("get-pets-by-id"). Two operations of one router
// cannot have the same ID (Register panics).
func ID(id string) Option {
	return Option{name: "ID", where: inOperation, op: func(s *spec) { s.ID = id }}
}

// Summary sets the operation's one-line summary in the document.
func Summary(text string) Option {
	return Option{name: "Summary", where: anywhere, op: func(s *spec) { s.Summary = text }}
}

// Description sets the operation's longer description in the document
// (CommonMark).
func Description(text string) Option {
	return Option{name: "Description", where: anywhere, op: func(s *spec) { s.Description = text }}
}

// Tags adds tags, by which the document and its docs page group
// operations; a group's tags and an operation's add up.
func Tags(tags ...string) Option {
	return Option{name: "Tags", where: anywhere, op: func(s *spec) { s.Tags = append(s.Tags, tags...) }}
}

// Deprecated marks the operation deprecated in the document.
func Deprecated() Option {
	return Option{name: "Deprecated", where: anywhere, op: func(s *spec) { s.Deprecated = true }}
}

// Hidden leaves the operation out of the document; it is served all the
// same.
func Hidden() Option {
	return Option{name: "Hidden", where: anywhere, op: func(s *spec) { s.Hidden = true }}
}

// Status sets the status of the operation's success (the default is 200;
// 201 for a POST that Responds(201, …) documents; 204 for an output with
// no fields, such as *struct{}). An output's Status field, when set,
// overrides it for one response.
func Status(code int) Option {
	return Option{name: "Status", where: anywhere, op: func(s *spec) { s.Status = code }}
}

// Responds documents a further response of the operation by its status:
// vane.Responds(404, "No pet has this ID."). An error status is
// documented with the problem+json schema. A group's and an operation's
// add up; the operation's text wins for the same status.
func Responds(status int, text string) Option {
	return Option{name: "Responds", where: anywhere, op: func(s *spec) {
		if s.Responses == nil {
			s.Responses = map[int]string{}
		}
		s.Responses[status] = text
	}}
}

// Problems documents answers of the operation beyond the plain problem:
// problem types of its own, their extension members and headers (see
// ProblemType), and what middleware in front of it sends of its own
// accord (an authentication check's 401, a rate limit's 429). On a
// group, every operation registered through it documents them:
//
//	auth := r.Group("", vane.Middleware(requireToken), vane.Problems(vane.ProblemType{
//		Status: 401, Description: "No valid token.",
//		Headers: map[string]string{"WWW-Authenticate": "How to log in."}}))
func Problems(types ...ProblemType) Option {
	return Option{name: "Problems", where: anywhere, op: func(s *spec) { s.Problems = append(s.Problems, types...) }}
}

// Security says that the operation requires the security scheme named
// (one the document's configuration declares, openapi.Config's
// SecuritySchemes) with the scopes given. Given more than once in one
// list of options, it lists alternatives, any one of which suffices;
// given to an operation, it replaces what its groups and router said.
// The document states it; checking credentials is the job of middleware
// (Middleware) or a Resolver.
//
// An operation without Security, and none from its groups, has the
// document's default (openapi.Config's Security); Public says that it
// needs none.
func Security(scheme string, scopes ...string) Option {
	return Option{name: "Security", where: anywhere, op: func(s *spec) {
		if s.securityLevel != s.level {
			s.Security, s.securityLevel = nil, s.level
		}
		if scopes == nil {
			scopes = []string{}
		}
		s.Security = append(s.Security, map[string][]string{scheme: scopes})
		s.public = false
	}}
}

// Public says that the operation needs no credentials, whatever its
// groups or the document's default require: the document gives it an
// empty security requirement.
func Public() Option {
	return Option{name: "Public", where: anywhere, op: func(s *spec) {
		s.Security, s.securityLevel, s.public = nil, s.level, true
	}}
}

// Extension adds an x- member to the operation's object in the document:
// vane.Extension("x-rate-limit", 100).
func Extension(name string, value any) Option {
	if !strings.HasPrefix(name, "x-") {
		panic(fmt.Sprintf("vane: Extension %q: an extension's name begins with x-", name))
	}
	return Option{name: "Extension", where: anywhere, op: func(s *spec) {
		s.Extensions = maps.Clone(s.Extensions)
		if s.Extensions == nil {
			s.Extensions = map[string]any{}
		}
		s.Extensions[name] = value
	}}
}

// BodyLimit limits the request body of typed operations, in bytes
// (default 1 MiB, whether or not the router is served by Serve). A
// larger body is answered 413, and memory follows the bytes received,
// never a declared Content-Length.
//
// Off (any negative limit) means none: a JSON or urlencoded body is then
// read whole before it is decoded, so a client can make one request take
// all the process's memory. Use it only behind a proxy that limits
// bodies, or for operations whose io.Reader Body the handler reads as a
// stream.
func BodyLimit(n int64) Option {
	return Option{name: "BodyLimit", where: anywhere,
		api: func(a *api) { a.bodyLimit = n },
		op:  func(s *spec) { s.BodyLimit = n }}
}

// Codec sets the codec typed operations decode and encode JSON with
// (default codec.JSON).
func Codec(c codec.Codec) Option {
	return Option{name: "Codec", where: anywhere,
		api: func(a *api) { a.codec = c },
		op:  func(s *spec) { s.Codec = c }}
}

// UnknownPolicy says what typed operations do with a member of a JSON body
// object that the struct it is decoded into has no field for.
type UnknownPolicy int

const (
	// IgnoreUnknown decodes the body as if the member were absent, and the
	// document says nothing of other members. The default: a client that
	// sends a field a newer version of the API added, or an older one
	// removed, is served.
	IgnoreUnknown UnknownPolicy = iota + 1
	// RefuseUnknown answers 422 naming the member, and every schema
	// derived from a struct says additionalProperties: false, so that a
	// misspelt optional field is reported rather than silently dropped.
	// It needs a codec that implements codec.ClosedDecoder, as codec.JSON
	// does.
	RefuseUnknown
)

// UnknownProperties sets the policy for unknown members of JSON bodies
// (default IgnoreUnknown). Given to New, it is the router's: its struct
// schemas are published accordingly, and an operation or group of the
// other policy refers to variants of them ("PetClosed", "PetOpen").
func UnknownProperties(p UnknownPolicy) Option {
	return Option{name: "UnknownProperties", where: anywhere,
		api: func(a *api) { a.unknown = p },
		op:  func(s *spec) { s.UnknownProperties = p }}
}

// Middleware adds standard middleware. Given to New or Group, it is the
// router's or the group's, as Router.Use adds it: it wraps every route
// registered through it, typed or not. Given to an operation, it wraps
// that operation's handler only, inside its group's.
//
// The answers a middleware sends of its own accord and declares
// (middleware.Answers: Timeout's and Throttle's 503) are documented on
// every typed operation behind it; to document the answers of middleware
// of your own, give Problems beside it.
func Middleware(mw ...func(http.Handler) http.Handler) Option {
	for i, m := range mw {
		if m == nil {
			panic(fmt.Sprintf("vane: Middleware: middleware %d is nil", i))
		}
	}
	return Option{name: "Middleware", where: anywhere, mw: mw}
}

// Heartbeat sets how often an event stream (Stream) sends a comment line
// while it sends nothing else, so that proxies keep its connection open:
// zero means DefaultHeartbeat, Off none.
func Heartbeat(every time.Duration) Option {
	return Option{name: "Heartbeat", where: anywhere, op: func(s *spec) { s.Heartbeat = every }}
}

// MaxPatchOperations sets the most operations a JSON Patch sent to a
// PATCH registered by MergePatch may hold: zero means
// jsonpatch.DefaultMaxOperations (1,000), Off no cap (the patch's work is
// still bounded by the sizes of patch and resource). More is a 422, and
// the document's schema says so (maxItems).
func MaxPatchOperations(n int) Option {
	return Option{name: "MaxPatchOperations", where: anywhere, op: func(s *spec) { s.MaxPatchOperations = n }}
}

// IdempotencyKeys makes the operation take an Idempotency-Key under cfg:
// its input embeds Idempotent, and a retry with the key is answered with
// the first outcome (see Idempotent and Idempotency).
func IdempotencyKeys(cfg Idempotency) Option {
	return Option{name: "IdempotencyKeys", where: anywhere, op: func(s *spec) { s.Idempotency = &cfg }}
}

// Encode adds a media type that typed operations can answer a body with,
// encoded by c, after JSON (the default) and the encodings added before:
// a request's Accept chooses among them (406 Not Acceptable when it
// accepts none), and the document lists each. Package
// github.com/vane-http/vane/codec/cbor, a module of its own, has one for
// application/cbor.
func Encode(mediaType string, c codec.Codec) Option {
	return Option{name: "Encode", where: inNew, api: func(a *api) {
		a.encoders = append(a.encoders, respond.Encoder{MediaType: mediaType, Codec: c})
	}}
}

// ErrorHook sets a function that sees every problem a typed operation of
// the router answers with (a 400 or 422 for bad input, 413, 415, a
// handler's error) before it is written, and returns the problem to write:
// the same one, changed (its Type, Detail, messages translated, headers
// added), or another. It runs on the request's goroutine; p is the
// operation's own copy: the hook may change it, whatever the handler
// returned (a shared, package-level problem value stays as it is).
func ErrorHook(fn func(req *http.Request, p *problem.Details) *problem.Details) Option {
	return Option{name: "ErrorHook", where: inNew, api: func(a *api) { a.errorHook = fn }}
}

// MaxStreams sets how many event streams (see Stream) the router's tree
// serves at once, across all its streams: past it, a new stream is
// answered 503 Service Unavailable with Retry-After, before its handler
// runs. Zero means DefaultMaxStreams, Off no cap. Each open stream holds
// a connection, a goroutine or two and its buffers (tens of KiB).
func MaxStreams(n int) Option {
	return Option{name: "MaxStreams", where: inNew, api: func(a *api) { a.maxStreams = int64(n) }}
}

// MaxStreamsPerClient sets how many event streams one client may hold
// open at once, beside MaxStreams' cap on all of them, so that no client
// can take every slot. A client is what key returns for its request; nil
// means StreamClientAddress, the client's address. A request whose key is
// "" counts towards MaxStreams only. Past the cap, a new stream of that
// client is answered 429 Too Many Requests with Retry-After, before its
// handler runs: the client is over its own allowance (RFC 6585 section
// 4), while the server still has room, which a 503 would deny. Zero
// means DefaultMaxStreamsPerClient, Off no cap per client.
//
// Behind a proxy or load balancer, every stream comes from its address:
// install middleware.RealIP with the proxy as trusted, so that the key is
// the client's, or give a key of your own (an authenticated user's ID;
// keep it short, it is held while the client's streams are open). Many
// people behind one address (an office's NAT) are one client to the
// default key.
func MaxStreamsPerClient(n int, key func(*http.Request) string) Option {
	return Option{name: "MaxStreamsPerClient", where: inNew, api: func(a *api) {
		a.streamClients.max, a.streamClients.key = int64(n), key
	}}
}

// each calls fn with every option of opts, those of Options in their
// place, after checking that it may be given at place (named by what,
// for the panic).
func each(opts []Option, place scope, what string, fn func(Option)) {
	for _, o := range opts {
		if o.name == "" {
			panic("vane: " + what + ": a zero Option; options are made by vane's functions (vane.Summary, vane.BodyLimit, …)")
		}
		if o.where&place == 0 {
			panic(fmt.Sprintf("vane: %s: vane.%s cannot be given here; give it to %s", what, o.name, o.where))
		}
		if o.list != nil {
			each(o.list, place, what, fn)
			continue
		}
		fn(o)
	}
}

// declared returns the answers that mw declare of their own accord
// (middleware.Answers), as problem types to document.
func declared(mw []func(http.Handler) http.Handler) []ProblemType {
	var out []ProblemType
	for _, m := range mw {
		for _, a := range middleware.Answers(m) {
			out = append(out, ProblemType{Status: a.Status, Description: a.Description, Headers: a.Headers})
		}
	}
	return out
}
