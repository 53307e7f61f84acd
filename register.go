package vane

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/vane-http/vane/bind"
	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/operation"
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
// and pattern, if the types cannot be bound, validated or documented, or
// if the document could not describe the path beside those registered
// before (GET /a/{x} beside PUT /a/{y}: OpenAPI names a path's parameters
// once). What depends on the document's configuration (a security scheme
// it does not define, an Edit hook that fails) is checked by
// [Router.Check], before serving.
func Register[I, O any](r *Router, op Op, h func(context.Context, *I) (*O, error)) {
	if h == nil {
		panic("vane: Register " + op.Method + " " + op.Path + " with a nil handler")
	}
	th, d, err := compileOperation[I, O](r, &op)
	if err != nil {
		panic("vane: " + err.Error())
	}
	th.fn = h
	r.add(&op, d, th)
}

// add puts an operation that is compiled on r, the end of every
// registration (Register, Stream, MergePatch): its operationId must be
// new, op.Middleware wraps h (the first outermost), the route goes into
// the tree, and d into the list the document is built from.
func (r *Router) add(op *Op, d *operation.Description, h http.Handler) {
	for _, other := range r.api.ops {
		if other.ID == d.ID {
			panic(fmt.Sprintf("vane: operation ID %q of %s %s is already used by %s %s", d.ID, d.Method, d.Pattern, other.Method, other.Pattern))
		}
	}
	if !d.Hidden {
		r.api.documentable(d)
	}
	r.Handle(op.Method, op.Path, wrap(h, op.Middleware))
	r.api.ops = append(r.api.ops, d)
	if len(op.Middleware) > 0 {
		if r.api.middleware == nil {
			r.api.middleware = map[string][]func(http.Handler) http.Handler{}
		}
		r.api.middleware[d.Method+" "+d.Pattern] = op.Middleware
	}
}

// documentable panics when the document could not describe d beside
// the operations already registered: OpenAPI names a path's parameters
// once for all its methods, and has no catch-all, so /a/{x} beside
// /a/{y}, and GET /f/{p} beside GET /f/{p...}, are routes the router
// tells apart and the document cannot (openapi.Build refuses them too).
// It keeps each path's shape, its parameters unnamed, in a map: the check
// costs the same whatever the number of operations.
func (a *api) documentable(d *operation.Description) {
	path, shape := documentedPath(d.Pattern)
	where := d.Method + " " + d.Pattern
	if a.shapes == nil {
		a.shapes = map[string]shapeOrigin{}
	}
	if prev, ok := a.shapes[shape]; ok && prev.path != path {
		panic(fmt.Sprintf("vane: %s and %s are the same OpenAPI path (%s): the document cannot describe both; "+
			"give the parameters the same names, or leave one out of the document (Hidden)", prev.where, where, shape))
	}
	if prev, ok := a.shapes[shape+" "+d.Method]; ok {
		panic(fmt.Sprintf("vane: %s and %s are the same OpenAPI operation (%s %s): OpenAPI has no catch-all; "+
			"leave one out of the document (Hidden)", prev.where, where, d.Method, path))
	}
	a.shapes[shape] = shapeOrigin{path, where}
	a.shapes[shape+" "+d.Method] = shapeOrigin{path, where}
}

// shapeOrigin is the first documented operation of a path's shape.
type shapeOrigin struct{ path, where string }

// documentedPath is the OpenAPI path of pattern ({rest...} is {rest}) and
// its shape, the path with its parameters unnamed (/a/{}).
func documentedPath(pattern string) (path, shape string) {
	path = strings.Replace(pattern, "...}", "}", 1)
	var b strings.Builder
	rest := path
	for {
		open := strings.IndexByte(rest, '{')
		end := strings.IndexByte(rest, '}')
		if open < 0 || end < open {
			b.WriteString(rest)
			return path, b.String()
		}
		b.WriteString(rest[:open+1])
		rest = rest[end:]
	}
}

// wrap returns h inside mw, the first outermost.
func wrap(h http.Handler, mw []func(http.Handler) http.Handler) http.Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
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
