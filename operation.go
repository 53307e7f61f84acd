package vane

import (
	"context"
	"encoding"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/vane-http/vane/bind"
	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
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
	// WithCodec), by default codec.JSON.
	Codec codec.Codec

	// Extensions are x- keys for the OpenAPI operation object.
	Extensions map[string]any
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
// a Content-Type header field says otherwise) or an io.Reader, which are
// copied as they are.
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
	for _, other := range r.api.ops {
		if other.ID == d.ID {
			panic(fmt.Sprintf("vane: operation ID %q of %s %s is already used by %s %s", d.ID, d.Method, d.Pattern, other.Method, other.Pattern))
		}
	}
	var h2 http.Handler = th
	for i := len(op.Middleware) - 1; i >= 0; i-- {
		h2 = op.Middleware[i](h2)
	}
	r.Handle(op.Method, op.Path, h2)
	r.api.ops = append(r.api.ops, d)
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

// WithCodec sets the router's JSON codec for typed operations (default
// codec.JSON). An Op's Codec overrides it.
func WithCodec(c codec.Codec) Option {
	return Option{api: func(a *api) { a.codec = c }}
}

// defaultBodyLimit is the body limit of typed operations when none is set.
const defaultBodyLimit = bind.DefaultBodyLimit

// typedHandler serves one typed operation.
type typedHandler[I, O any] struct {
	fn        func(context.Context, *I) (*O, error)
	binder    *bind.Binder
	validator *validate.Validator
	out       *output
	codec     codec.Codec
	status    int
	desc      *operation.Description
	pathNames []string // the pattern's parameter names, in order
	noRules   bool     // the validator checks nothing
	hasBody   bool     // the input has a Body field
	errs      *errorConfig
	resolves  bool // the input has resolvers (bind.Resolver)
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
	b, err := bind.Compile(inT, bind.Config{
		Method: op.Method, Pattern: full, PathParams: names, Codec: c, BodyLimit: limit, Registry: set.schemas,
	})
	if err != nil {
		return nil, nil, err
	}
	v, err := validate.Input(inT, set.schemas)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", op.Method, full, err)
	}
	probe := new(I)
	if bits := b.Defaults(probe); bits != 0 {
		if errs := v.CheckParams(probe, bits); errs != nil {
			return nil, nil, fmt.Errorf("%s %s: %v: a default breaks its own rules: %s", op.Method, full, inT, errs[0].Error())
		}
	}
	out, err := compileOutput(outT, set.schemas)
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
		BodyLimit: limit, Input: inT, Output: outT, Schemas: set.schemas, Extensions: op.Extensions,
	}
	if d.ID == "" {
		d.ID = operation.DefaultID(op.Method, full)
	}
	d.Responses, err = responses(d, op, out, set.schemas)
	if err != nil {
		return nil, nil, err
	}
	th := &typedHandler[I, O]{binder: b, validator: v, out: out, codec: c, status: status, desc: d, pathNames: names, noRules: v.Empty(), hasBody: b.RequestBody != nil, errs: &set.errors, resolves: b.Resolves()}
	return th, d, nil
}

// responses documents the success response, the Op's extra responses and
// the errors vane itself may answer with.
func responses(d *operation.Description, op *Op, out *output, reg *schema.Registry) ([]operation.Response, error) {
	probSchema, err := reg.Schema(reflect.TypeFor[problem.Details]())
	if err != nil {
		return nil, err
	}
	probContent := []operation.Content{{MediaType: problem.ContentType, Schema: probSchema}}
	success := operation.Response{Status: d.Status, Description: http.StatusText(d.Status), Headers: out.headerDocs}
	if out.bodySchema != nil && !noBody(d.Status) {
		success.Content = []operation.Content{{MediaType: out.mediaType, Schema: out.bodySchema}}
	}
	list := []operation.Response{success}
	add := func(status int, desc string) {
		for i := range list {
			if list[i].Status == status {
				if desc != "" {
					list[i].Description = desc
				}
				return
			}
		}
		if desc == "" {
			desc = http.StatusText(status)
		}
		r := operation.Response{Status: status, Description: desc}
		if status >= 400 {
			r.Content = probContent
		}
		list = append(list, r)
	}
	for status, desc := range op.Responses {
		add(status, desc)
	}
	if out.empty {
		// A nil output is answered 204, and an output that can only be
		// {} is usually returned nil: document both answers.
		add(http.StatusNoContent, "")
	}
	if d.RequestBody != nil {
		add(http.StatusBadRequest, "")
		add(http.StatusRequestEntityTooLarge, "")
		add(http.StatusUnsupportedMediaType, "")
	}
	if d.RequestBody != nil || len(d.Parameters) > 0 {
		add(http.StatusUnprocessableEntity, "")
	}
	add(http.StatusInternalServerError, "")
	sort.SliceStable(list[1:], func(i, j int) bool { return list[1+i].Status < list[1+j].Status })
	return documentProblems(list, op.Problems, reg)
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
			}
			if h.resolves {
				errs = append(errs, h.binder.Resolve(req, in)...)
			}
			prob.Errors = mergeErrors(prob.Errors, errs)
		}
		st.Release()
		h.errs.request(w, req, prob)
		return
	}
	var errs []problem.FieldError
	if h.resolves {
		errs = h.binder.Resolve(req, in)
	}
	if !h.noRules {
		errs = append(errs, h.validator.ValidateInput(ctx, in, st.RawJSON, st.Present)...)
	}
	st.Release()
	if errs != nil {
		h.errs.request(w, req, problem.New(http.StatusUnprocessableEntity, "validation failed", errs...))
		return
	}
	out, err := h.fn(ctx, in)
	if err != nil {
		h.errs.handler(w, req, h.desc, err)
		return
	}
	if out == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err := h.out.write(w, unsafe.Pointer(out), h.status, h.codec); err != nil {
		h.errs.handler(w, req, h.desc, err)
	}
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

// output writes one output type, compiled from its fields.
type output struct {
	typ        reflect.Type
	headers    []outHeader
	statusOff  uintptr
	hasStatus  bool
	bodyOff    uintptr
	bodyType   reflect.Type // nil: no body at all
	bodyKind   int
	mediaType  string
	bodySchema *schema.Schema
	headerDocs []operation.Header
	ctHeader   bool // a header field sets Content-Type
	empty      bool // nothing to say: a JSON body that is always {}, no headers, no Status
}

const (
	outJSON = iota
	outBytes
	outReader
)

type outHeader struct {
	name   string // canonical
	offset uintptr
	format func(p unsafe.Pointer) (string, bool) // the value, and whether to send it
	multi  bool                                  // a []string: one header line per element
}

var (
	jsonContentType   = []string{"application/json"}
	octetContentType  = []string{"application/octet-stream"}
	nosniff           = []string{"nosniff"}
	timeType          = reflect.TypeFor[time.Time]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	stringerType      = reflect.TypeFor[fmt.Stringer]()
	readerType        = reflect.TypeFor[io.Reader]()
	bytesType         = reflect.TypeFor[[]byte]()
)

func compileOutput(t reflect.Type, reg *schema.Registry) (*output, error) {
	o, err := compileOutputFields(t, reg)
	if err != nil {
		return nil, err
	}
	o.empty = o.bodyKind == outJSON && len(o.headers) == 0 && !o.hasStatus && isEmptyStruct(o.bodyType)
	return o, nil
}

// isEmptyStruct reports whether t (or what it points to) is a struct whose
// JSON is always {}: no properties and no marshalling of its own.
func isEmptyStruct(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || len(schema.Fields(t)) > 0 {
		return false
	}
	p := reflect.PointerTo(t)
	return !p.Implements(jsonMarshalerType) && !p.Implements(textMarshalerType)
}

func compileOutputFields(t reflect.Type, reg *schema.Registry) (*output, error) {
	o := &output{typ: t, mediaType: "application/json"}
	if t.Kind() != reflect.Struct {
		return o, o.setBody(t, 0, reg)
	}
	if f, ok := t.FieldByName("Body"); !ok || len(f.Index) != 1 {
		return o, o.setBody(t, 0, reg)
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		switch {
		case f.Name == "Body":
			if err := o.setBody(f.Type, f.Offset, reg); err != nil {
				return nil, err
			}
			if doc := f.Tag.Get("doc"); doc != "" && o.bodySchema != nil && o.bodySchema.Ref == "" {
				o.bodySchema.Description = doc
			}
		case f.Name == "Status" && f.Tag.Get("header") == "":
			if f.Type.Kind() != reflect.Int {
				return nil, fmt.Errorf("field Status must be an int, not %v", f.Type)
			}
			o.statusOff, o.hasStatus = f.Offset, true
		default:
			name, ok := f.Tag.Lookup("header")
			if !ok {
				continue
			}
			h, err := headerWriter(f)
			if err != nil {
				return nil, fmt.Errorf("field %s: %v", f.Name, err)
			}
			h.name = http.CanonicalHeaderKey(name)
			o.headers = append(o.headers, h)
			o.ctHeader = o.ctHeader || h.name == "Content-Type"
			hs, err := reg.TextSchema(&schema.Field{Name: name, GoName: f.Name, Index: f.Index, Type: f.Type, Tag: f.Tag, Struct: f})
			if err != nil {
				return nil, fmt.Errorf("field %s: %v", f.Name, err)
			}
			if f.Type == timeType || f.Type == reflect.PointerTo(timeType) {
				hs = &schema.Schema{Type: schema.TypeString, Description: hs.Description, Examples: []any{"Wed, 21 Oct 2015 07:28:00 GMT"}}
			}
			o.headerDocs = append(o.headerDocs, operation.Header{Name: h.name, Description: f.Tag.Get("doc"), Schema: hs, Field: f.Name})
		}
	}
	return o, nil
}

func (o *output) setBody(t reflect.Type, off uintptr, reg *schema.Registry) error {
	o.bodyType, o.bodyOff = t, off
	switch {
	case t == bytesType:
		o.bodyKind, o.mediaType = outBytes, "application/octet-stream"
		o.bodySchema = &schema.Schema{Type: schema.TypeString, ContentMediaType: "application/octet-stream"}
		return nil
	case t.Kind() == reflect.Interface && t.Implements(readerType):
		o.bodyKind, o.mediaType = outReader, "application/octet-stream"
		o.bodySchema = &schema.Schema{Type: schema.TypeString, ContentMediaType: "application/octet-stream"}
		return nil
	}
	s, err := reg.Schema(t)
	if err != nil {
		return err
	}
	o.bodySchema = s
	return nil
}

func headerWriter(f reflect.StructField) (outHeader, error) {
	h := outHeader{offset: f.Offset}
	t := f.Type
	if t.Kind() == reflect.Pointer {
		// A nil pointer sends no header; otherwise the value's.
		ef := f
		ef.Type, ef.Offset = t.Elem(), 0
		elem, err := headerWriter(ef)
		if err != nil || elem.multi {
			return h, fmt.Errorf("type %v cannot be a response header", t)
		}
		h.format = func(p unsafe.Pointer) (string, bool) {
			q := *(*unsafe.Pointer)(p)
			if q == nil {
				return "", false
			}
			return elem.format(q)
		}
		return h, nil
	}
	switch {
	case t == timeType:
		h.format = func(p unsafe.Pointer) (string, bool) {
			tm := *(*time.Time)(p)
			if tm.IsZero() {
				return "", false
			}
			return tm.UTC().Format(http.TimeFormat), true
		}
	case t.Kind() == reflect.String:
		h.format = func(p unsafe.Pointer) (string, bool) {
			s := *(*string)(p)
			return s, s != ""
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		h.multi = true
	case t.Implements(textMarshalerType) || t.Implements(stringerType):
		h.format = func(p unsafe.Pointer) (string, bool) {
			v := reflect.NewAt(t, p).Elem()
			if v.IsZero() {
				return "", false
			}
			if m, ok := v.Interface().(encoding.TextMarshaler); ok {
				b, err := m.MarshalText()
				return string(b), err == nil
			}
			return v.Interface().(fmt.Stringer).String(), true
		}
	default:
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			k := t.Kind()
			h.format = func(p unsafe.Pointer) (string, bool) {
				var v int64
				switch k {
				case reflect.Int:
					v = int64(*(*int)(p))
				case reflect.Int8:
					v = int64(*(*int8)(p))
				case reflect.Int16:
					v = int64(*(*int16)(p))
				case reflect.Int32:
					v = int64(*(*int32)(p))
				default:
					v = *(*int64)(p)
				}
				return strconv.FormatInt(v, 10), true
			}
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			h.format = func(p unsafe.Pointer) (string, bool) {
				return strconv.FormatUint(reflect.NewAt(t, p).Elem().Uint(), 10), true
			}
		case reflect.Bool:
			h.format = func(p unsafe.Pointer) (string, bool) {
				return strconv.FormatBool(*(*bool)(p)), true
			}
		case reflect.Float32, reflect.Float64:
			h.format = func(p unsafe.Pointer) (string, bool) {
				return strconv.FormatFloat(reflect.NewAt(t, p).Elem().Float(), 'g', -1, 64), true
			}
		default:
			return h, fmt.Errorf("type %v cannot be a response header", t)
		}
	}
	return h, nil
}

// write sends the output at p: headers, status, body. It fails only when
// the body cannot be encoded, before anything is sent.
func (o *output) write(w http.ResponseWriter, p unsafe.Pointer, status int, c codec.Codec) error {
	hdr := w.Header()
	if len(o.headers) > 0 {
		// One allocation holds every single-valued header's value slice.
		vals := make([]string, len(o.headers))
		for i := range o.headers {
			h := &o.headers[i]
			fp := unsafe.Add(p, h.offset)
			if h.multi {
				if list := *(*[]string)(fp); len(list) > 0 {
					hdr[h.name] = list
				}
				continue
			}
			if v, ok := h.format(fp); ok {
				vals[i] = v
				hdr[h.name] = vals[i : i+1 : i+1]
			}
		}
	}
	if o.hasStatus {
		if s := *(*int)(unsafe.Add(p, o.statusOff)); s != 0 {
			status = s
		}
	}
	if noBody(status) {
		// 204, 205 and 304 carry no body, whatever the output holds.
		w.WriteHeader(status)
		return nil
	}
	bp := unsafe.Add(p, o.bodyOff)
	switch o.bodyKind {
	case outBytes:
		b := *(*[]byte)(bp)
		if !o.ctHeader || hdr["Content-Type"] == nil {
			hdr["Content-Type"] = octetContentType
		}
		hdr["X-Content-Type-Options"] = nosniff
		w.WriteHeader(status)
		w.Write(b) //nolint:errcheck // a failed write means the client went away
		return nil
	case outReader:
		r := *(*io.Reader)(bp)
		if !o.ctHeader || hdr["Content-Type"] == nil {
			hdr["Content-Type"] = octetContentType
		}
		hdr["X-Content-Type-Options"] = nosniff
		w.WriteHeader(status)
		if r == nil {
			return nil
		}
		if rc, ok := r.(io.Closer); ok {
			defer rc.Close()
		}
		io.Copy(w, r) //nolint:errcheck // a failed write means the client went away
		return nil
	}
	body, err := c.Marshal(reflect.NewAt(o.bodyType, bp).Interface())
	if err != nil {
		for i := range o.headers {
			delete(hdr, o.headers[i].name)
		}
		return fmt.Errorf("encoding the response body: %w", err)
	}
	hdr["Content-Type"] = jsonContentType
	w.WriteHeader(status)
	w.Write(body) //nolint:errcheck // a failed write means the client went away
	return nil
}

// noBody reports the statuses whose responses have no body.
func noBody(status int) bool {
	return status == http.StatusNoContent || status == http.StatusResetContent || status == http.StatusNotModified
}

// logHandlerError logs an error a client does not see.
func logHandlerError(req *http.Request, d *operation.Description, err error) {
	slog.ErrorContext(req.Context(), "vane: operation failed",
		"operation", d.ID, "method", d.Method, "pattern", d.Pattern, "error", err)
}
