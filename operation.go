package vane

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/vane-http/vane/bind"
	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/respond"
	"github.com/vane-http/vane/router"
	"github.com/vane-http/vane/schema"
	"github.com/vane-http/vane/validate"
)

// Op describes a typed operation for [Register]. Method and Path are
// required; everything else has a default.
type Op struct {
	Method      string   // HTTP method
	Path        string   // pattern, relative to the router's group prefix
	ID          string   // operationId; derived from Method and the full pattern when empty ("get-items-by-id")
	Summary     string   // one line, for the docs
	Description string   // longer text (CommonMark)
	Tags        []string // groups the operation in the docs
	Deprecated  bool
	Hidden      bool // registered, but left out of the OpenAPI document

	// Security lists alternative requirements: each map names security
	// schemes (declared in the OpenAPI config) and their scopes.
	Security []map[string][]string

	// Status is the status of a successful response. Zero means 200, or
	// 201 for a POST that documents a 201 in Responses. An output's
	// Status field, when set, overrides it per response.
	Status int

	// Responses documents further responses by status: {404: "no such
	// item"}. Error statuses are documented with the problem+json schema.
	Responses map[int]string

	// Problems documents the problem types of its own the operation
	// answers with, their extension members and headers (see
	// ProblemType).
	Problems []ProblemType

	// Middleware wraps this operation's handler, inside the group's.
	Middleware []func(http.Handler) http.Handler

	// BodyLimit limits the request body in bytes: 0 means the router's
	// limit (see BodyLimit, default 1 MiB), negative means none, which
	// lets a client decide how much memory its request takes (see
	// BodyLimit).
	BodyLimit int64

	// Codec encodes and decodes JSON; nil means the router's (see
	// Codec), by default codec.JSON.
	Codec codec.Codec

	// Heartbeat is how often an event stream (see Stream) sends a comment
	// line while it sends nothing else: 0 means DefaultHeartbeat, a
	// negative value none.
	Heartbeat time.Duration

	// UnknownProperties is the operation's policy for unknown members of
	// its JSON body; zero means the router's (see UnknownProperties).
	UnknownProperties UnknownPolicy

	// Extensions are x- keys for the OpenAPI operation object.
	Extensions map[string]any

	// MaxPatchOperations is, for a PATCH registered by MergePatch, the
	// most operations a JSON Patch may hold: 0 means
	// jsonpatch.DefaultMaxOperations (1,000). More is a 422, and the
	// document's schema says so (maxItems).
	MaxPatchOperations int

	// Idempotency makes the operation take an Idempotency-Key, whose
	// input embeds Idempotent (see Idempotent): a retry with the key is
	// answered with the first outcome. Nil: none.
	Idempotency *Idempotency

	// events, set by Stream, makes the operation an event stream: given
	// the operation's ID, it returns the event components and their
	// mapping by name, for respond.EventStream.
	events func(id string) ([]*schema.Schema, map[string]string, error)
}

// Register adds a typed operation to r: h is called with the request bound
// to a new *I and validated, and its *O becomes the response.
//
// Input: fields tagged path, query, header or cookie are parameters, a
// field named Body is the request body (see package bind); the tags of
// package schema validate them. A request that fails gets a problem+json
// response listing every failure, and h is not called.
//
// Output: if O is a struct with a Body field, its fields tagged header are
// response headers (a time.Time as an HTTP date), an int field named
// Status sets the status when not zero, and Body is the response body;
// otherwise the whole *O is the body. A nil *O with a nil error is 204 No
// Content. A body is JSON, except a []byte (application/octet-stream unless
// a Content-Type header field says otherwise) or an io.Reader (an
// interface, or a concrete reader such as *os.File or *bytes.Reader, closed
// after it is sent when it is an io.Closer), which are copied as they are.
//
// Errors: an error that implements [StatusError] (such as those from
// [Error] and [NotFound]) sets the status and, below 500, is shown to the
// client; any other error is a 500 whose body says nothing of the error,
// which is logged with log/slog.
//
// Each request gets a new *I, and ctx is the request's own context: the
// handler may keep either, or anything reachable from them (&in.Body, a
// []byte or json.RawMessage from the body), for as long as it likes.
//
// Everything is decided here, once: Register panics, naming the type, field
// and pattern, if the types cannot be bound, validated or documented.
func Register[I, O any](r *Router, op Op, h func(context.Context, *I) (*O, error)) {
	if h == nil {
		panic("vane: Register " + op.Method + " " + op.Path + " with a nil handler")
	}
	th, d, err := compileOperation[I, O](r, &op)
	if err != nil {
		panic("vane: " + err.Error())
	}
	th.fn = h
	if other := r.api.opByID(d.ID); other != nil {
		panic(fmt.Sprintf("vane: operation ID %q of %s %s is already used by %s %s", d.ID, d.Method, d.Pattern, other.Method, other.Pattern))
	}
	var h2 http.Handler = th
	for i := len(op.Middleware) - 1; i >= 0; i-- {
		h2 = op.Middleware[i](h2)
	}
	r.Handle(op.Method, op.Path, h2)
	r.api.ops = append(r.api.ops, d)
	if len(op.Middleware) > 0 {
		if r.api.middleware == nil {
			r.api.middleware = map[string][]func(http.Handler) http.Handler{}
		}
		r.api.middleware[d.Method+" "+d.Pattern] = op.Middleware
	}
}

// opByID returns the operation registered with the operationId id, or
// nil. The index takes in the operations appended since the last call,
// whoever appended them, so that each operation is indexed once.
func (a *api) opByID(id string) *operation.Description {
	if a.indexed < len(a.ops) {
		if a.byID == nil {
			a.byID = make(map[string]*operation.Description, len(a.ops))
		}
		for _, d := range a.ops[a.indexed:] {
			if _, dup := a.byID[d.ID]; !dup {
				a.byID[d.ID] = d
			}
		}
		a.indexed = len(a.ops)
	}
	return a.byID[id]
}

// Get registers a typed GET operation; opts adjust its Op.
func Get[I, O any](r *Router, pattern string, h func(context.Context, *I) (*O, error), opts ...func(*Op)) {
	Register(r, newOp(http.MethodGet, pattern, opts), h)
}

// Post registers a typed POST operation; opts adjust its Op.
func Post[I, O any](r *Router, pattern string, h func(context.Context, *I) (*O, error), opts ...func(*Op)) {
	Register(r, newOp(http.MethodPost, pattern, opts), h)
}

// Put registers a typed PUT operation; opts adjust its Op.
func Put[I, O any](r *Router, pattern string, h func(context.Context, *I) (*O, error), opts ...func(*Op)) {
	Register(r, newOp(http.MethodPut, pattern, opts), h)
}

// Patch registers a typed PATCH operation; opts adjust its Op.
func Patch[I, O any](r *Router, pattern string, h func(context.Context, *I) (*O, error), opts ...func(*Op)) {
	Register(r, newOp(http.MethodPatch, pattern, opts), h)
}

// Delete registers a typed DELETE operation; opts adjust its Op.
func Delete[I, O any](r *Router, pattern string, h func(context.Context, *I) (*O, error), opts ...func(*Op)) {
	Register(r, newOp(http.MethodDelete, pattern, opts), h)
}

func newOp(method, pattern string, opts []func(*Op)) Op {
	op := Op{Method: method, Path: pattern}
	for _, o := range opts {
		o(&op)
	}
	op.Method, op.Path = method, pattern
	return op
}

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

// Resolver is implemented by inputs that compute or check fields from the
// request beyond their parameters and body: a tenant from the Host, the
// client's address, a value from a header with rules of its own. Resolve
// is called with the request after the input was bound and its tag rules
// (and its Validate method, for a validate.Checker) passed, before the
// handler; the failures it returns are answered as one 422 problem, like
// validation failures, and the handler does not run. An input that needs
// only to read the request can hold an untagged *http.Request field
// instead, which gets the request.
//
// The type of a top-level input field may be a Resolver too (on the
// pointer to the field, or a pointer field's own type when it is not
// nil), so that a resolving part (a tenant, a caller) is reused across
// inputs as a field: such fields resolve in field order, before the
// input's own Resolve, and their failures are answered together.
type Resolver interface {
	Resolve(req *http.Request) []problem.FieldError
}

var resolverType = reflect.TypeFor[Resolver]()

// defaultBodyLimit is the body limit of typed operations when none is set.
const defaultBodyLimit = bind.DefaultBodyLimit

// typedHandler serves one typed operation.
type typedHandler[I, O any] struct {
	fn         func(context.Context, *I) (*O, error)
	binder     *bind.Binder
	validator  *validate.Validator
	out        *respond.Output
	enc        *respond.Encoders // the response encodings, JSON first
	status     int
	desc       *operation.Description
	pathNames  []string                                               // the pattern's parameter names, in order
	noRules    bool                                                   // the validator checks nothing
	hook       func(*http.Request, *problem.Details) *problem.Details // the router's ErrorHook; nil for none
	resolver   bool                                                   // *I is a Resolver
	resolvers  []fieldResolver                                        // top-level fields that are Resolvers
	stream     func(http.ResponseWriter, *http.Request, *I)           // an event stream's: runs instead of fn
	negotiated bool                                                   // the output's body is chosen by Accept: 406 before the handler when nothing is acceptable
	hasBody    bool                                                   // the input has a Body field
	cond       bool                                                   // the input embeds Conditional
	required   bool                                                   // … with required:"true": a precondition is mandatory (428)
	bodyRules  *validate.InstanceValidator                            // a JSON body's schema, for a body whose values did not all fit their types
	writes     bool                                                   // the method changes state, or the input embeds Conditional: preconditions to see to
	idem       *idempotency                                           // the input embeds Idempotent: the operation takes idempotency keys
}

func compileOperation[I, O any](r *Router, op *Op) (*typedHandler[I, O], *operation.Description, error) {
	if op.Method == "" || op.Path == "" {
		return nil, nil, fmt.Errorf("Register: Op needs a Method and a Path (got %q %q)", op.Method, op.Path)
	}
	op.Method = strings.ToUpper(op.Method)
	set := r.api
	full := r.Prefix() + op.Path
	names, err := router.ParamNames(full)
	if err != nil {
		return nil, nil, err
	}
	inT, outT := reflect.TypeFor[I](), reflect.TypeFor[O]()
	c := op.Codec
	if c == nil {
		c = set.codec
	}
	limit := op.BodyLimit
	if limit == 0 {
		limit = set.bodyLimit
	}
	policy := op.UnknownProperties
	if policy == 0 {
		policy = set.unknown
	}
	refuse := policy == RefuseUnknown
	b, err := bind.Compile(inT, bind.Config{
		Method: op.Method, Pattern: full, PathParams: names, Codec: c, BodyLimit: limit, Registry: set.registry(),
		RefuseUnknown: refuse,
	})
	if err != nil {
		return nil, nil, err
	}
	v, err := validate.InputFor(inT, set.registry(), refuse)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", op.Method, full, err)
	}
	probe := new(I)
	if bits := b.Defaults(probe); bits != 0 {
		if errs := v.CheckParams(probe, bits); errs != nil {
			return nil, nil, fmt.Errorf("%s %s: %v: a default breaks its own rules: %s", op.Method, full, inT, errs[0].Error())
		}
	}
	out, err := respond.Compile(outT, set.registry())
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: output %v: %w", op.Method, full, outT, err)
	}
	status := op.Status
	if status == 0 {
		_, documented201 := op.Responses[http.StatusCreated]
		status = operation.DefaultStatus(op.Method, documented201)
	}
	d := &operation.Description{
		Method: op.Method, Pattern: full, ID: op.ID, Summary: op.Summary, Description: op.Description,
		Tags: slices.Clone(op.Tags), Deprecated: op.Deprecated, Hidden: op.Hidden,
		Security: op.Security, Status: status, Parameters: b.Parameters, RequestBody: b.RequestBody,
		BodyLimit: limit, Input: inT, Output: outT, Schemas: set.registry(), Extensions: op.Extensions,
	}
	if d.ID == "" {
		d.ID = operation.DefaultID(op.Method, full)
	}
	documented := op.Responses
	cond, required := conditionalOf(inT)
	if cond {
		documented = maps.Clone(op.Responses)
		if documented == nil {
			documented = map[int]string{}
		}
		if _, ok := documented[http.StatusPreconditionFailed]; !ok {
			documented[http.StatusPreconditionFailed] = "Precondition Failed: the resource's current version does not match If-Match, If-Unmodified-Since or If-None-Match"
		}
		if _, ok := documented[http.StatusPreconditionRequired]; required && !safeMethod(op.Method) && !ok {
			documented[http.StatusPreconditionRequired] = preconditionRequiredDoc
		}
	}
	if hasCursor(inT) {
		documented = maps.Clone(documented) // never the Op's own map
		if documented == nil {
			documented = map[int]string{}
		}
		if _, ok := documented[http.StatusBadRequest]; !ok {
			documented[http.StatusBadRequest] = "Bad Request: the cursor cannot be used (changed, cut short, or made for another order or filter)."
		}
	}
	enc := respond.NewEncoders(c, set.encoders...)
	if op.events != nil {
		d.Status = http.StatusOK
		var events []*schema.Schema
		var mapping map[string]string
		if events, mapping, err = op.events(d.ID); err == nil {
			d.Responses, err = respond.EventStream(d, events, mapping, documented, set.registry())
		}
	} else {
		d.Responses, err = out.Responses(d, documented, set.registry(), enc)
	}
	if err == nil {
		d.Responses, err = documentProblems(d.Responses, append(slices.Clip(r.problems), op.Problems...), set.registry())
	}
	var idem *idempotency
	if err == nil {
		if idem, err = compileIdempotency(op, inT, d, names); idem != nil {
			d.Responses, err = idem.document(d, set.registry())
		}
	}
	if err != nil {
		return nil, nil, err
	}
	var bodyRules *validate.InstanceValidator
	if rb := b.RequestBody; rb != nil && len(rb.Content) > 0 && rb.Content[0].MediaType == "application/json" && rb.Content[0].Schema != nil {
		if bodyRules, err = validate.NewInstanceValidator(set.registry(), rb.Content[0].Schema); err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", op.Method, full, err)
		}
	}
	th := &typedHandler[I, O]{bodyRules: bodyRules, binder: b, validator: v, out: out, enc: enc, status: status, desc: d, pathNames: names, noRules: v.Empty(), hasBody: b.RequestBody != nil, hook: set.errorHook, negotiated: out.Negotiated(status), resolver: reflect.PointerTo(inT).Implements(resolverType), resolvers: fieldResolvers(inT),
		cond: cond, required: required && !safeMethod(op.Method), writes: cond || !safeMethod(op.Method)}
	th.idem = idem
	return th, d, nil
}

func (h *typedHandler[I, O]) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h.serve(w, req, new(I))
}

func (h *typedHandler[I, O]) serve(w http.ResponseWriter, req *http.Request, in *I) {
	ctx := req.Context()
	var buf [4]string
	path := buf[:0]
	for _, name := range h.pathNames {
		path = append(path, router.Param(req, name))
	}
	if h.hasBody {
		bodyDeadline(w, req)
	}
	var st bind.State
	defer st.Cleanup() // a multipart body's temporary files, once the handler is done
	if prob := h.binder.Bind(req, path, in, &st); prob != nil {
		if prob.Status == http.StatusUnprocessableEntity {
			// Report the tag rules' failures too, except where a value
			// did not even parse; a body that did not decode is not
			// checked further.
			var errs []problem.FieldError
			if st.RawJSON != nil || !h.hasBody {
				errs = h.validator.ValidateInput(ctx, in, st.RawJSON, st.Present)
			} else {
				errs = h.validator.CheckParams(in, st.Present)
				if st.Mistyped != nil && h.bodyRules != nil {
					// A value of the wrong type stopped the decoding: the
					// body's other failures come from its JSON.
					errs = append(errs, h.bodyRules.Validate(st.Mistyped, "body")...)
				}
			}
			prob.Errors = h.validator.Messages(mergeErrors(prob.Errors, errs))
		}
		st.Release()
		h.fail(w, req, prob)
		return
	}
	var errs []problem.FieldError
	if !h.noRules {
		errs = h.validator.ValidateInput(ctx, in, st.RawJSON, st.Present)
	}
	st.Release()
	if errs == nil && (h.resolver || h.resolvers != nil) {
		errs = resolveFields(h.resolvers, in, req)
		if h.resolver {
			errs = append(errs, any(in).(Resolver).Resolve(req)...)
		}
	}
	if errs != nil {
		h.fail(w, req, problem.New(http.StatusUnprocessableEntity, "validation failed", errs...))
		return
	}
	if h.stream != nil {
		h.stream(w, req, in)
		return
	}
	if h.negotiated && !h.enc.Acceptable(req) {
		// Before the handler: a refused request must not have changed anything.
		h.fail(w, req, problem.New(http.StatusNotAcceptable, h.enc.NotAcceptable()))
		return
	}
	if h.writes && !h.preconditions(w, req, in) {
		return
	}
	if h.idem != nil && h.serveKeyed(w, req, in) {
		return
	}
	out, err := h.fn(ctx, in)
	if err != nil {
		if out != nil {
			h.out.Discard(out) // its body, a file perhaps, is not sent
		}
		h.fail(w, req, problemOf(req, h.desc, err))
		return
	}
	if out == nil {
		respond.NoContent(w)
		return
	}
	if err := h.out.Write(w, req, out, h.status, h.enc); err != nil {
		switch err {
		case respond.ErrNotAcceptable:
			h.fail(w, req, problem.New(http.StatusNotAcceptable, h.enc.NotAcceptable()))
			return
		case respond.ErrPreconditionFailed:
			h.fail(w, req, preconditionFailed())
			return
		}
		h.fail(w, req, problemOf(req, h.desc, err))
	}
}

// fail writes the problem p, through the router's ErrorHook if it has one.
func (h *typedHandler[I, O]) fail(w http.ResponseWriter, req *http.Request, p *problem.Details) {
	writeProblem(h.hook, w, req, p)
}

// writeProblem writes p through hook, when there is one, which gets a
// copy: every problem vane writes for a router goes through here.
func writeProblem(hook func(*http.Request, *problem.Details) *problem.Details, w http.ResponseWriter, req *http.Request, p *problem.Details) {
	if hook != nil {
		if q := hook(req, p.Clone()); q != nil {
			p = q
		}
	}
	problem.Write(w, p) // a 503 without Retry-After gets problem.DefaultRetryAfter
}

// preconditions prepares the input's Conditional (a list over several
// header lines joined) and answers 428 when it requires a precondition
// the request does not carry, or, for an input without one, answers 412
// to an If-Match that names entity tags; a POST with If-None-Match: * is
// a 412 either way. It reports whether to go on.
func (h *typedHandler[I, O]) preconditions(w http.ResponseWriter, req *http.Request, in *I) bool {
	if req.Method == http.MethodPost && listHasAny(strings.Join(req.Header["If-None-Match"], ",")) {
		h.fail(w, req, postIfNoneMatchAny())
		return false
	}
	if h.cond {
		c := any(in).(conditionalInput).conditional()
		c.joinLines(req.Header)
		if h.required {
			c.required = true
			if !c.guarded() {
				h.fail(w, req, missingPrecondition())
				return false
			}
		}
		return true
	}
	if unmatchableIfMatch(req.Header) {
		h.fail(w, req, preconditionFailed())
		return false
	}
	return true
}

// bodyDeadline makes a body that stalls a 408 before the deadline of the
// request's context (middleware.Timeout's) takes the answer: reading
// stops a tenth of the time left, at most bodyDeadlineMargin, before it.
//
//go:noinline
func bodyDeadline(w http.ResponseWriter, req *http.Request) {
	if req.Body == nil || req.Body == http.NoBody {
		return
	}
	if dl, ok := req.Context().Deadline(); ok {
		margin := min(time.Until(dl)/10, bodyDeadlineMargin)
		http.NewResponseController(w).SetReadDeadline(dl.Add(-margin)) //nolint:errcheck // not every writer has deadlines
	}
}

// bodyDeadlineMargin is how long before the request context's deadline
// the reading of a typed operation's body stops, at most: time to answer
// 408.
const bodyDeadlineMargin = 250 * time.Millisecond

// safeMethod reports whether method is one of RFC 9110's safe methods.
func safeMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

func mergeErrors(first, more []problem.FieldError) []problem.FieldError {
	for _, e := range more {
		dup := false
		for _, f := range first {
			if f.Location == e.Location {
				dup = true
				break
			}
		}
		if !dup {
			first = append(first, e)
		}
	}
	return first
}

// logHandlerError logs an error a client does not see.
func logHandlerError(req *http.Request, d *operation.Description, err error) {
	slog.ErrorContext(req.Context(), "vane: operation failed",
		"operation", d.ID, "method", d.Method, "pattern", d.Pattern, "error", err)
}
