package vane

import (
	"net/http"

	"github.com/vane-http/vane/bind"
	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/respond"
	"github.com/vane-http/vane/router"
)

// An Option configures a Router made by New. Every option is in this
// file:
//
//   - routing (package router's own options): RedirectTrailingSlash,
//     RedirectCleanPath, AutoOptions, StdPathValues;
//   - typed operations: BodyLimit, Codec, Encode, UnknownProperties,
//     ErrorHook;
//   - event streams: MaxStreams, MaxStreamsPerClient.
type Option struct {
	router router.Option
	api    func(*api)
}

// RedirectTrailingSlash is router.RedirectTrailingSlash.
func RedirectTrailingSlash(on bool) Option { return Option{router: router.RedirectTrailingSlash(on)} }

// RedirectCleanPath is router.RedirectCleanPath.
func RedirectCleanPath(on bool) Option { return Option{router: router.RedirectCleanPath(on)} }

// AutoOptions is router.AutoOptions.
func AutoOptions(on bool) Option { return Option{router: router.AutoOptions(on)} }

// StdPathValues is router.StdPathValues.
func StdPathValues(on bool) Option { return Option{router: router.StdPathValues(on)} }

// BodyLimit sets the router's request body limit for typed operations, in
// bytes (default 1 MiB, whether or not the router is served by Serve). An
// Op's BodyLimit overrides it. A larger body is answered 413, and memory
// follows the bytes received, never a declared Content-Length.
//
// A negative limit means none: a JSON or urlencoded body is then read
// whole before it is decoded, so a client can make one request take all
// the process's memory. Use it only behind a proxy that limits bodies, or
// for operations whose io.Reader Body the handler reads as a stream.
func BodyLimit(n int64) Option {
	return Option{api: func(a *api) { a.bodyLimit = n }}
}

// defaultBodyLimit is the body limit of typed operations when none is set.
const defaultBodyLimit = bind.DefaultBodyLimit

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

// UnknownProperties sets the router's policy for unknown members of JSON
// bodies (default IgnoreUnknown), for every typed operation of the router
// and its groups whose Op does not set its own. The router's struct
// schemas are published accordingly; an operation of the other policy
// refers to variants of them ("PetClosed", "PetOpen").
func UnknownProperties(p UnknownPolicy) Option {
	return Option{api: func(a *api) {
		a.unknown = p
	}}
}

// Encode adds a media type that typed operations can answer a body with,
// encoded by c, after JSON (the default) and the encodings added before:
// a request's Accept chooses among them (406 Not Acceptable when it
// accepts none), and the document lists each. Package
// github.com/vane-http/vane/codec/cbor, a module of its own, has one for
// application/cbor.
func Encode(mediaType string, c codec.Codec) Option {
	return Option{api: func(a *api) { a.encoders = append(a.encoders, respond.Encoder{MediaType: mediaType, Codec: c}) }}
}

// Codec sets the router's JSON codec for typed operations (default
// codec.JSON). An Op's Codec overrides it.
func Codec(c codec.Codec) Option {
	return Option{api: func(a *api) { a.codec = c }}
}

// ErrorHook sets a function that sees every problem a typed operation of
// the router answers with (a 400 or 422 for bad input, 413, 415, a
// handler's error) before it is written, and returns the problem to write:
// the same one, changed (its Type, Detail, messages translated, headers
// added), or another. It runs on the request's goroutine; p is the
// operation's own copy: the hook may change it, whatever the handler
// returned (a shared, package-level problem value stays as it is).
func ErrorHook(fn func(req *http.Request, p *problem.Details) *problem.Details) Option {
	return Option{api: func(a *api) { a.errorHook = fn }}
}

// MaxStreams sets how many event streams (see Stream) the router's tree
// serves at once, across all its streams: past it, a new stream is
// answered 503 Service Unavailable with Retry-After, before its handler
// runs. n <= 0 means DefaultMaxStreams. Each open stream holds a
// connection, a goroutine or two and its buffers (tens of KiB).
func MaxStreams(n int) Option {
	return Option{api: func(a *api) {
		if n <= 0 {
			n = DefaultMaxStreams
		}
		a.maxStreams = int64(n)
	}}
}

// MaxStreamsPerClient sets how many event streams one client may hold
// open at once, beside MaxStreams' cap on all of them, so that no client
// can take every slot. A client is what key returns for its request; nil
// means StreamClientAddress, the client's address. A request whose key is
// "" counts towards MaxStreams only. Past the cap, a new stream of that
// client is answered 429 Too Many Requests with Retry-After, before its
// handler runs: the client is over its own allowance (RFC 6585 section
// 4), while the server still has room, which a 503 would deny. n == 0
// means DefaultMaxStreamsPerClient; n < 0 means no cap per client.
//
// Behind a proxy or load balancer, every stream comes from its address:
// install middleware.RealIP with the proxy as trusted, so that the key is
// the client's, or give a key of your own (an authenticated user's ID;
// keep it short, it is held while the client's streams are open). Many
// people behind one address (an office's NAT) are one client to the
// default key.
func MaxStreamsPerClient(n int, key func(*http.Request) string) Option {
	return Option{api: func(a *api) {
		a.streamClients.max, a.streamClients.key = int64(n), key
	}}
}
