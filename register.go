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

// spec is what the options say of an operation (see Option): Register
// starts from the method and pattern, applies the options of the router,
// its groups and the operation's own, and compiles the result.
type spec struct {
	Method      string   // HTTP method
	Path        string   // pattern, relative to the router's group prefix
	ID          string   // operationId; derived from Method and the full pattern when empty ("get-items-by-id")
	Summary     string   // one line, for the docs
	Description string   // longer text (CommonMark)
	Tags        []string // groups the operation in the docs
	Deprecated  bool
	Hidden      bool // registered, but left out of the OpenAPI document

	// Security lists alternative requirements: each map names security
	// schemes (declared in the OpenAPI config) and their scopes. Empty:
	// the document's default, unless public.
	Security []map[string][]string
	public   bool // Public: no requirement, whatever the document's default
	// securityLevel is the level (see level) whose Security options
	// Security holds: a later level replaces them, one level adds
	// alternatives.
	securityLevel int

	// Status is the status of a successful response; zero: 200, 201 for
	// a POST that documents a 201 in Responses, 204 for an output without
	// fields.
	Status int

	Responses  map[int]string // further responses by status (Responds)
	Problems   []ProblemType
	Middleware []func(http.Handler) http.Handler // the operation's own, inside the group's

	BodyLimit         int64         // 0: the router's; negative: none
	Codec             codec.Codec   // nil: the router's
	Heartbeat         time.Duration // an event stream's; 0: DefaultHeartbeat; negative: none
	UnknownProperties UnknownPolicy // 0: the router's
	Extensions        map[string]any

	// MaxPatchOperations is a MergePatch's cap on a JSON Patch: 0:
	// jsonpatch.DefaultMaxOperations; negative: none.
	MaxPatchOperations int

	// Idempotency makes the operation take an Idempotency-Key (see
	// IdempotencyKeys). Nil: none.
	Idempotency *Idempotency

	// events, set by Stream, makes the operation an event stream: given
	// the operation's ID, it returns the event components and their
	// mapping by name, for respond.EventStream.
	events func(id string) ([]*schema.Schema, map[string]string, error)

	// level counts the lists of options applied so far: New's, each
	// group's, the operation's.
	level int
}

// security is what the description says of the operation's security:
// its requirements; for Public, an empty list (no requirement, whatever
// the document's default); nil to take the document's default.
func (s *spec) security() []map[string][]string {
	if s.public {
		return []map[string][]string{}
	}
	return s.Security
}

// spec returns the spec of an operation of method and pattern registered
// on r with opts: the defaults of r's router and groups, then opts.
func (r *Router) spec(method, pattern string, opts []Option) spec {
	s := spec{Method: method, Path: pattern}
	for _, level := range r.defaults {
		s.level++
		for _, o := range level {
			o.op(&s)
		}
	}
	s.level++
	each(opts, inOperation, method+" "+pattern, func(o Option) {
		if o.op != nil {
			o.op(&s)
		}
		if o.mw != nil {
			s.Middleware = append(s.Middleware, o.mw...)
			s.Problems = append(s.Problems, declared(o.mw)...)
		}
	})
	return s
}

// Register adds a typed operation of method and pattern (relative to r's
// group prefix) to r: h is called with the request bound to a new *I and
// validated, and its *O becomes the response. opts describe it (Summary,
// Tags, Responds, Security …) and set how it reads and answers
// (BodyLimit, Middleware …), after the options of r's router and groups
// (see Option). Get, Post, Put, Patch and Delete are its shorthands.
//
// A request runs these steps, in this order, each answering a problem
// and stopping at the first that fails:
//
//  1. binding: fields tagged path, query, header, cookie or form are
//     parameters, a field named Body is the request body, an untagged
//     *http.Request field gets the request (see package bind): a value
//     that does not parse is a 400 or 422, a body that is too large 413,
//     one of another media type 415;
//  2. validation: the tags of package schema (minimum, maxLength,
//     pattern, required …), every failure listed in one 422;
//  3. resolving: the Resolve methods of the input's fields and of the
//     input (see Resolver), for what the tags cannot say, their failures
//     in one 422;
//  4. the handler.
//
// Output: if O is a struct with a Body field, its fields tagged header are
// response headers (a time.Time as an HTTP date), an int field named
// Status sets the status when not zero, and Body is the response body;
// otherwise the whole *O is the body. A nil *O with a nil error is 204 No
// Content, and an output type without fields (*struct{}) is always 204,
// documented as that alone. A body is JSON, except a []byte or an
// io.Reader (an interface, or a concrete reader such as *os.File or
// *bytes.Reader, closed after it is sent when it is an io.Closer), which
// is copied as it is, with the Content-Type its header field gives. The
// Body field's mediaType tag lists the media types such a body may have,
// for the document and for whoever checks answers against it:
// `mediaType:"image/png,image/jpeg"`, or a range, `mediaType:"image/*"`;
// a single concrete type is also the default Content-Type. Without the
// tag the document, and the default, say application/octet-stream, and a
// client that checks answers against the document (vanetest) refuses an
// answer of any other type.
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
// and pattern, if the types cannot be bound, validated or documented, if
// an option cannot be given to an operation, or if the document could not
// describe the path beside those registered before (GET /a/{x} beside PUT
// /a/{y}: OpenAPI names a path's parameters once). What depends on the
// document's configuration (a security scheme it does not define, an Edit
// hook that fails) is checked by [Router.Check], before serving.
func Register[I, O any](r *Router, method, pattern string, h func(context.Context, *I) (*O, error), opts ...Option) {
	if h == nil {
		panic("vane: Register " + method + " " + pattern + " with a nil handler")
	}
	op := r.spec(method, pattern, opts)
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
func (r *Router) add(op *spec, d *operation.Description, h http.Handler) {
	if other := r.api.opByID(d.ID); other != nil {
		panic(fmt.Sprintf("vane: operation ID %q of %s %s is already used by %s %s", d.ID, d.Method, d.Pattern, other.Method, other.Pattern))
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
		r.api.wrapped(d.Method+" "+d.Pattern, h) // for an engine, which runs the Middleware's engine forms itself
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

// emptyOutput reports whether the output type t can say nothing but its
// status: a struct without fields, or with only a Body that has none.
func emptyOutput(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	if t.NumField() == 1 && t.Field(0).Name == "Body" {
		t = t.Field(0).Type
	}
	return t.Kind() == reflect.Struct && t.NumField() == 0
}

// wrap returns h inside mw, the first outermost.
func wrap(h http.Handler, mw []func(http.Handler) http.Handler) http.Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

// Get registers a typed GET operation: Register(r, "GET", pattern, h, opts...).
func Get[I, O any](r *Router, pattern string, h func(context.Context, *I) (*O, error), opts ...Option) {
	Register(r, http.MethodGet, pattern, h, opts...)
}

// Post registers a typed POST operation: Register(r, "POST", pattern, h, opts...).
func Post[I, O any](r *Router, pattern string, h func(context.Context, *I) (*O, error), opts ...Option) {
	Register(r, http.MethodPost, pattern, h, opts...)
}

// Put registers a typed PUT operation: Register(r, "PUT", pattern, h, opts...).
func Put[I, O any](r *Router, pattern string, h func(context.Context, *I) (*O, error), opts ...Option) {
	Register(r, http.MethodPut, pattern, h, opts...)
}

// Patch registers a typed PATCH operation: Register(r, "PATCH", pattern, h, opts...).
// MergePatch registers one that applies merge patches and JSON Patches
// to a resource that a GET reads and a PUT writes.
func Patch[I, O any](r *Router, pattern string, h func(context.Context, *I) (*O, error), opts ...Option) {
	Register(r, http.MethodPatch, pattern, h, opts...)
}

// Delete registers a typed DELETE operation: Register(r, "DELETE", pattern, h, opts...).
func Delete[I, O any](r *Router, pattern string, h func(context.Context, *I) (*O, error), opts ...Option) {
	Register(r, http.MethodDelete, pattern, h, opts...)
}

func compileOperation[I, O any](r *Router, op *spec) (*typedHandler[I, O], *operation.Description, error) {
	if op.Method == "" || op.Path == "" {
		return nil, nil, fmt.Errorf("Register: an operation needs a method and a pattern (got %q %q)", op.Method, op.Path)
	}
	op.Method = strings.ToUpper(op.Method)
	set := r.api
	full := r.Prefix() + op.Path
	names, err := router.ParamNames(full)
	if err != nil {
		return nil, nil, err
	}
	inT, outT := reflect.TypeFor[I](), reflect.TypeFor[O]()
	if inT.Kind() == reflect.Struct {
		if err := checkResolvers(inT); err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", op.Method, full, err)
		}
	}
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
	empty := emptyOutput(outT) // *struct{}: nothing to answer but the status
	switch {
	case status == 0 && empty:
		status = http.StatusNoContent
	case status == 0:
		_, documented201 := op.Responses[http.StatusCreated]
		status = operation.DefaultStatus(op.Method, documented201)
	}
	d := &operation.Description{
		Method: op.Method, Pattern: full, ID: op.ID, Summary: op.Summary, Description: op.Description,
		Tags: slices.Clone(op.Tags), Deprecated: op.Deprecated, Hidden: op.Hidden,
		Security: op.security(), Status: status, Parameters: b.Parameters, RequestBody: b.RequestBody,
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
	cursors := cursorFields(inT)
	if cursors != nil {
		documented = maps.Clone(documented) // never the spec's own map
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
	resolver, resolvers := reflect.PointerTo(inT).Implements(resolverType), fieldResolvers(inT)
	th := &typedHandler[I, O]{binder: b, validator: v, out: out, enc: enc, status: status, desc: d, pathNames: names,
		noRules: v.Empty(), hook: set.errorHook, resolver: resolver, resolvers: resolvers, cursors: cursors,
		after:      resolver || resolvers != nil || cursors != nil,
		negotiated: out.Negotiated(status), hasBody: b.RequestBody != nil, bodyRules: bodyRules,
		cond: cond, required: required && !safeMethod(op.Method), writes: cond || !safeMethod(op.Method)}
	th.idem = idem
	return th, d, nil
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
