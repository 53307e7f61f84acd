// Package bind fills typed inputs from HTTP requests with binders compiled
// once per input type.
//
// An input is a struct whose fields say where their values come from:
//
//	type GetItems struct {
//	    Org    string            `path:"org"`
//	    Limit  int               `query:"limit" default:"20"`
//	    Tags   []string          `query:"tag"`                 // ?tag=a&tag=b
//	    IDs    []int64           `query:"ids" explode:"false"` // ?ids=1,2,3
//	    Filter map[string]string `query:"filter"`              // ?filter[color]=red&filter[size]=m
//	    Since  *time.Time        `query:"since"`               // nil when absent
//	    Auth   string            `header:"Authorization" required:"true"`
//	    Accept []string          `header:"Accept"`             // comma-separated, and every line
//	    Theme  string            `cookie:"theme"`
//	    Sess   *http.Cookie      `cookie:"session"`
//	    Body   NewItem                                         // the request body
//	}
//
// Compile reads the struct once and keeps, per field, its source, its name,
// its offset in the struct and its parser; Bind then makes one pass over
// the query string and reads the headers and path values it was told
// about, writing straight into the struct. No reflection walk and no map
// lookup finds a field at request time, and binding strings, numbers and
// booleans allocates nothing: strings point into the request's URL.
//
// # Parameters
//
// Each parameter is bound exactly as its OpenAPI description
// (operation.Parameter, Style and Explode) says, and nothing else is
// accepted in its place:
//
//   - A query slice is style form, explode true by default: one value per
//     key, ?tag=a&tag=b; a value is never split, so ?tag=a,b is the one tag
//     "a,b". With `explode:"false"` it is style form, explode false: one
//     key, values separated by commas, ?ids=1,2,3 (a comma inside a value
//     is sent escaped, %2C). `style:"spaceDelimited"` and
//     `style:"pipeDelimited"` separate values by a space or a "|" instead.
//   - A query map (map[string]T) or struct is style deepObject, explode
//     true: ?filter[color]=red&filter[size]=m. Its values are scalars; a
//     struct's keys are its JSON property names; when the parameter is
//     sent, its required properties (as documented, by the JSON rules of
//     package schema) must be, and the `default` tags of the others apply
//     to those not sent.
//   - A header slice is style simple: values separated by commas, from
//     every line of the header.
//   - A scalar takes the one value of its key; a key sent twice is a 422
//     (query.name: "one value expected"), since the document allows one
//     and two readers of the request could each take another.
//   - A cookie is a scalar, or an http.Cookie or *http.Cookie with its
//     name and value.
//
// An integer (of any kind) has one spelling per value, JSON's: decimal
// digits without leading zeros, after a '-' for a negative value. 01, +1
// and -0 are refused (422) wherever an integer is bound from text (path,
// query, header, cookie, form field, and a default tag at Compile): a
// path names a resource, and /pets/01 must not be a second URL, cache
// key or cursor scope of /pets/1.
//
// An untagged field of type *http.Request gets the request itself, for
// what a handler needs beyond the parameters: the client's address
// (middleware.ClientIP(req): what middleware.RealIP found behind a
// trusted proxy, else the connection's peer; RemoteAddr itself always
// stays the peer), the Host, TLS.
//
// Anything else (a path slice, a cookie slice, a nested deepObject, an
// http.Cookie outside a cookie) is refused by Compile with a message that
// names the type, the field and the pattern.
//
// # Bodies
//
// The body is JSON by default, decoded by the codec into the Body field,
// and must be sent with a JSON media type: application/json or any
// application/*+json, whose charset, if given, is utf-8. A Body of type
// []byte or io.Reader gets the raw body, whatever its type. A Body struct
// whose fields carry `form:"name"` tags is a form:
// application/x-www-form-urlencoded or multipart/form-data, with
// *multipart.FileHeader (or a slice of them) fields for files. A file
// field's contentType tag lists the media types its parts may have, its
// maxSize tag bounds each file ("5MiB") and its minSize tag is the least
// it may hold ("1": not empty): the first two are checked as the body is
// read, the third once it is (422, 413 and 422, naming the field;
// files.go). As in a query,
// a field of one value, or a file field of one file, sent in two parts is
// a 422; a slice field takes every part.
//
// # Servers other than net/http's
//
// BindRequest binds a request given as a Request (its raw query, header
// lines and body), for a server that has no *http.Request, such as vane's
// fast engine; Bind reads the same from an *http.Request and runs the
// same code, so that both bind alike.
//
// # Limits
//
// Memory follows the bytes received, never a client's declaration: the
// body buffer grows as bytes arrive, up to the limit (Config.BodyLimit,
// 1 MiB by default), and a Content-Length larger than the limit is
// answered 413 before anything is read. A multipart body keeps at most
// Config.MultipartMemory of its files in memory and the rest in temporary
// files, which State.Cleanup removes. Every request gets a problem for bad
// input, never a panic.
package bind

import (
	"encoding/json"
	"fmt"
	"github.com/vane-http/vane/internal/addr"
	"io"
	"mime/multipart"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// DefaultBodyLimit is the request body limit when none is configured: 1 MiB.
const DefaultBodyLimit = 1 << 20

// MaxPresent is how many parameters and form fields one input may have:
// their presence is tracked in the 64 bits of State.Present.
const MaxPresent = 64

// Config is what Compile needs besides the input type.
type Config struct {
	Method     string      // the operation's method: GET and HEAD take no body
	Pattern    string      // the full path pattern, for messages
	PathParams []string    // the pattern's parameter names, in order
	Codec      codec.Codec // nil: codec.JSON

	// BodyLimit is the largest request body accepted, in bytes: 0 means
	// DefaultBodyLimit. A negative limit means none, and then a client
	// decides how much memory a request takes: the body is read whole
	// before it is decoded (for JSON and urlencoded forms), so one request
	// can exhaust the process's memory. Use it only behind a proxy that
	// limits bodies, or with an io.Reader Body that the handler reads as a
	// stream.
	BodyLimit int64

	// MultipartMemory is how many bytes of the files of a multipart body
	// are kept in memory; the rest go to temporary files. 0 means
	// BodyLimit, at most 32 MiB. Values (not files) are kept in memory up
	// to MultipartMemory plus 10 MiB, as mime/multipart does.
	MultipartMemory int64

	Registry *schema.Registry // receives the named schemas; nil: a private one

	// RefuseUnknown refuses a JSON body member that the struct it is
	// decoded into has no field for, with a 422 naming it, as the
	// additionalProperties: false of a closed Registry documents. The
	// codec must implement codec.ClosedDecoder.
	RefuseUnknown bool
}

// Binder binds requests to one input type.
type Binder struct {
	typ       reflect.Type
	ptrType   reflect.Type // *typ, what Bind is given
	path      []param      // in PathParams order
	query     []param
	header    []param
	cookie    []param
	body      *bodyBinder
	limit     int64
	multipart int64 // multipart memory
	codec     codec.Codec

	// Parameters and RequestBody describe the input for OpenAPI.
	Parameters  []operation.Parameter
	RequestBody *operation.RequestBody
	requests    []uintptr // offsets of *http.Request fields: the request itself
}

// param is one compiled parameter or form field.
type param struct {
	name     string // as in the request (canonical for headers)
	loc      string // "query.limit", for errors
	offset   uintptr
	parse    parser // the scalar parser (of the element, for slices)
	fast     byte   // fastString, fastInt64, fastInt: set without calling parse
	slice    reflect.Type
	sep      byte // a slice from one value: the separator (',', ' ', '|'); 0: one value per key
	escaped  bool // sep splits the raw (escaped) text: a separator inside a value is sent escaped
	trim     bool // a header list: spaces around commas are not part of the values
	deep     *deepObject
	cookie   byte // cookieValue, cookieStruct, cookiePointer
	required bool
	def      string // default, when hasDef
	hasDef   bool
	bit      uint64 // presence bit, shared with validate.ValidateInput
}

const (
	fastNone = iota
	fastString
	fastInt64
	fastInt
)

// set parses s into the scalar field at dst, the common kinds inline.
func (p *param) set(s string, dst addr.Addr) error {
	switch p.fast {
	case fastString:
		*addr.As[string](dst) = s
		return nil
	case fastInt64, fastInt:
		v, ok := smallDecimal(s)
		if !ok {
			var err error
			if v, err = strconv.ParseInt(s, 10, 64); err != nil {
				return intErr(err, 64)
			}
			if !canonicalInt(s) {
				return errIntSpelling
			}
		}
		if p.fast == fastInt64 {
			*addr.As[int64](dst) = v
		} else {
			*addr.As[int](dst) = int(v)
		}
		return nil
	}
	return p.parse(s, dst)
}

// State carries what a Bind leaves for the validator and the handler: the
// presence bits of the parameters and form fields, the raw JSON body, and
// what must be released after.
type State struct {
	// Present has bit i set when the i-th parameter (path, query, header
	// or cookie, in field order) was sent or took its default, and the
	// bits after the parameters' for the form fields, in field order (see
	// validate.ValidateInput).
	Present uint64

	// RawJSON is the JSON body, valid until Release.
	RawJSON []byte

	// Mistyped is the JSON body when it was well-formed but a value did
	// not fit its Go type (a 422): the input was not filled in, and the
	// body's rules are to be checked on the JSON itself. Valid until
	// Release.
	Mistyped []byte

	buf  *[]byte
	form *multipart.Form
}

// Release returns the body buffer to the pool; RawJSON is invalid after.
// It is called once the validator is done with RawJSON, before the
// handler runs.
func (s *State) Release() {
	if s.buf != nil {
		putBuffer(s.buf)
		s.buf, s.RawJSON, s.Mistyped = nil, nil, nil
	}
}

// Cleanup removes the temporary files in which a multipart body's files
// were stored. It is called once the handler has returned: the
// *multipart.FileHeader values cannot be opened after. It does nothing
// when there are none.
func (s *State) Cleanup() {
	if s.form != nil {
		s.form.RemoveAll() //nolint:errcheck // nothing to tell the client; the files are the process's own
		s.form = nil
	}
}

var (
	fileHeaderPtr   = reflect.TypeFor[*multipart.FileHeader]()
	fileHeaderSlice = reflect.TypeFor[[]*multipart.FileHeader]()
	readerType      = reflect.TypeFor[io.Reader]()
	readCloserType  = reflect.TypeFor[io.ReadCloser]()
	bytesType       = reflect.TypeFor[[]byte]()
	requestType     = reflect.TypeFor[*http.Request]()
	cookieType      = reflect.TypeFor[http.Cookie]()
	cookiePtrType   = reflect.TypeFor[*http.Cookie]()
)

// Compile returns the binder of input type t. It fails, with a message
// naming the type, the field and the pattern, for a field of a type that
// cannot be bound from its source, a style it cannot be bound in, a path
// field with no {name} in the pattern, a {name} with no field, a body on
// GET or HEAD, more than MaxPresent parameters and form fields, or a body
// type the codec cannot decode.
func Compile(t reflect.Type, cfg Config) (*Binder, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("bind: input type %v of %s %s is not a struct", t, cfg.Method, cfg.Pattern)
	}
	if cfg.Codec == nil {
		cfg.Codec = codec.JSON
	}
	if cfg.Registry == nil {
		cfg.Registry = schema.NewRegistry("#/$defs/")
	}
	b := &Binder{typ: t, ptrType: reflect.PointerTo(t), codec: cfg.Codec, limit: cfg.BodyLimit, path: make([]param, len(cfg.PathParams))}
	if b.limit == 0 {
		b.limit = DefaultBodyLimit
	}
	b.multipart = cfg.MultipartMemory
	if b.multipart <= 0 {
		b.multipart = b.limit
		if b.multipart <= 0 || b.multipart > 32<<20 {
			b.multipart = 32 << 20
		}
	}
	errf := func(f reflect.StructField, format string, args ...any) error {
		return fmt.Errorf("bind: %v.%s (%s %s): %s", t, f.Name, cfg.Method, cfg.Pattern, fmt.Sprintf(format, args...))
	}
	seenPath := make([]bool, len(cfg.PathParams))
	nparam := 0
	for _, f := range operation.InputFields(t) {
		if !f.IsExported() {
			continue
		}
		in, name, _ := operation.Source(f.Tag)
		if in == "" && f.Type == requestType {
			b.requests = append(b.requests, f.Offset)
			continue
		}
		if in == "" {
			if f.Name == "Body" {
				if cfg.Method == http.MethodGet || cfg.Method == http.MethodHead {
					return nil, errf(f, "a %s operation takes no request body", cfg.Method)
				}
				bb, rb, err := compileBody(f, &cfg)
				if err != nil {
					return nil, errf(f, "%v", err)
				}
				b.body, b.RequestBody = bb, rb
			}
			continue
		}
		if name == "" {
			return nil, errf(f, "empty %s name", in)
		}
		p := param{name: name, loc: in + "." + name, offset: f.Offset}
		if nparam < MaxPresent {
			p.bit = 1 << nparam
		}
		nparam++
		op := operation.Parameter{
			Name: name, In: in, Field: f.Name,
			Description: f.Tag.Get("doc"), Deprecated: f.Tag.Get("deprecated") == "true",
		}
		if err := compileParam(&p, &op, f, in); err != nil {
			return nil, errf(f, "%v", err)
		}
		p.required = f.Tag.Get("required") == "true" || in == "path"
		op.Required = p.required
		if d, ok := f.Tag.Lookup("default"); ok {
			if p.deep != nil || p.cookie != cookieValue {
				return nil, errf(f, "a default for a %v parameter is not supported", f.Type)
			}
			p.def, p.hasDef = d, true
			if err := tryParse(&p, f.Type, d); err != nil {
				return nil, errf(f, "default %q: %v", d, err)
			}
		}
		sch, err := paramSchema(cfg.Registry, &schema.Field{Name: name, GoName: f.Name, Index: f.Index, Type: f.Type, Tag: f.Tag, Struct: f})
		if err != nil {
			return nil, errf(f, "%v", err)
		}
		op.Schema = sch
		if len(sch.Examples) > 0 {
			op.Example = sch.Examples[0]
		}
		switch in {
		case operation.InPath:
			idx := indexOf(cfg.PathParams, name)
			if idx < 0 {
				return nil, errf(f, "path parameter %q is not in the pattern (its parameters: %v)", name, cfg.PathParams)
			}
			if seenPath[idx] {
				return nil, errf(f, "path parameter %q is bound twice", name)
			}
			seenPath[idx] = true
			b.path[idx] = p
		case operation.InQuery:
			b.query = append(b.query, p)
		case operation.InHeader:
			p.name = http.CanonicalHeaderKey(name)
			b.header = append(b.header, p)
		case operation.InCookie:
			b.cookie = append(b.cookie, p)
		}
		b.Parameters = append(b.Parameters, op)
	}
	if b.body != nil {
		if n := nparam + len(b.body.form); n > MaxPresent {
			return nil, fmt.Errorf("bind: %v (%s %s): %d parameters and form fields, more than the %d whose presence can be tracked; group some in a deepObject parameter or the body", t, cfg.Method, cfg.Pattern, n, MaxPresent)
		}
		// Form fields take the presence bits after the parameters', so
		// that a value sent is checked even at its zero value (count=0)
		// and one not sent is not. validate.Input numbers them alike.
		for j := range b.body.form {
			b.body.form[j].bit = 1 << (nparam + j)
		}
	}
	if nparam > MaxPresent {
		return nil, fmt.Errorf("bind: %v (%s %s): %d parameters, more than the %d whose presence can be tracked; group some in a deepObject parameter", t, cfg.Method, cfg.Pattern, nparam, MaxPresent)
	}
	for i, ok := range seenPath {
		if !ok {
			return nil, fmt.Errorf("bind: %v (%s %s): no field binds path parameter {%s}; add a field tagged `path:%q`", t, cfg.Method, cfg.Pattern, cfg.PathParams[i], cfg.PathParams[i])
		}
	}
	return b, nil
}

// compileParam sets p's parser and shape, and op's style, for field f bound
// from in.
func compileParam(p *param, op *operation.Parameter, f reflect.StructField, in string) error {
	ft := f.Type
	style, hasStyle := f.Tag.Lookup("style")
	explodeTag, hasExplode := f.Tag.Lookup("explode")
	if hasExplode && explodeTag != "true" && explodeTag != "false" {
		return fmt.Errorf("explode %q: want true or false", explodeTag)
	}
	if ft == cookieType || ft == cookiePtrType {
		if in != operation.InCookie {
			return fmt.Errorf("an %v is bound from a cookie (`cookie:\"name\"`), not from the %s", ft, in)
		}
		if hasStyle || hasExplode {
			return fmt.Errorf("a cookie takes no style or explode tag")
		}
		p.cookie = cookieStruct
		if ft == cookiePtrType {
			p.cookie = cookiePointer
		}
		return nil
	}
	format := f.Tag.Get("format")
	var err error
	switch {
	case isDeepObject(ft):
		if in != operation.InQuery {
			return fmt.Errorf("a %v parameter is bound only from the query, in style deepObject", ft)
		}
		if hasStyle && style != "deepObject" || hasExplode && explodeTag != "true" {
			return fmt.Errorf("a %v query parameter is bound in style deepObject, explode true (?%s[key]=value), not style %q explode %q", ft, p.name, style, explodeTag)
		}
		p.deep, err = compileDeepObject(ft, p.name)
		op.Style, op.Explode = "deepObject", ptrTo(true)
		return err
	case ft.Kind() == reflect.Slice && ft != bytesType && !reflect.PointerTo(ft).Implements(textUnmarshalType):
		p.slice = ft
		if p.parse, err = scalarParser(ft.Elem(), format); err != nil {
			return fmt.Errorf("%v from the %s", err, in)
		}
		switch in {
		case operation.InQuery:
			return sliceStyle(p, op, style, hasStyle, explodeTag, hasExplode)
		case operation.InHeader:
			if hasStyle && style != "simple" || hasExplode && explodeTag != "false" {
				return fmt.Errorf("a header list is style simple, explode false (values separated by commas)")
			}
			p.sep, p.trim = ',', true
			op.Style, op.Explode = "simple", ptrTo(false)
			return nil
		case operation.InPath:
			return fmt.Errorf("a path parameter cannot be a slice")
		default:
			return fmt.Errorf("a cookie parameter cannot be a slice")
		}
	}
	if hasStyle || hasExplode {
		return fmt.Errorf("style and explode tags apply to lists and objects, not to a %v", ft)
	}
	p.parse, err = scalarParser(ft, format)
	if err != nil {
		return fmt.Errorf("%v from the %s", err, in)
	}
	p.fast = fastKind(ft)
	return nil
}

// sliceStyle sets how a query slice is sent: form and explode true by
// default (repeated keys), or one key with separated values.
func sliceStyle(p *param, op *operation.Parameter, style string, hasStyle bool, explode string, hasExplode bool) error {
	if !hasStyle {
		style = "form"
	}
	switch style {
	case "form":
		op.Style = "form"
		if hasExplode && explode == "false" {
			p.sep, p.escaped = ',', true
			op.Explode = ptrTo(false)
		} else {
			op.Explode = ptrTo(true)
		}
		return nil
	case "spaceDelimited", "pipeDelimited":
		if hasExplode && explode == "true" {
			return fmt.Errorf("style %s is explode false (one key, separated values); for repeated keys use style form", style)
		}
		p.sep = ' '
		if style == "pipeDelimited" {
			p.sep = '|'
		}
		op.Style, op.Explode = style, ptrTo(false)
		return nil
	}
	return fmt.Errorf("style %q: a query list is style form, spaceDelimited or pipeDelimited", style)
}

// paramSchema is the field's schema as the text of a parameter: as in JSON,
// except for a time.Duration, parsed as Go duration text ("1m30s": see
// schema.Registry.TextSchema), []byte, whose text is itself rather than
// base64, and a cookie, whose value is a string.
func paramSchema(reg *schema.Registry, f *schema.Field) (*schema.Schema, error) {
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != bytesType && t != cookieType {
		return reg.TextSchema(f)
	}
	s := &schema.Schema{Type: schema.TypeString}
	if err := schema.Apply(s, reflect.TypeFor[string](), f.Tag); err != nil {
		return nil, err
	}
	return s, nil
}

// Defaults sets every parameter and form field that has a default in *ptr
// to it and returns their presence bits, for checking the defaults against
// the rules at registration.
func (b *Binder) Defaults(ptr any) uint64 {
	base := b.base(ptr, "Defaults")
	var st State
	lists := [][]param{b.query, b.header, b.cookie}
	if b.body != nil {
		lists = append(lists, b.body.form)
	}
	for _, list := range lists {
		for i := range list {
			if list[i].hasDef {
				list[i].absent(base, &st, nil)
			}
		}
	}
	return st.Present
}

// base returns the address ptr, a pointer to the binder's input type,
// holds.
func (b *Binder) base(ptr any, what string) addr.Addr {
	if reflect.TypeOf(ptr) != b.ptrType {
		panic(fmt.Sprintf("bind: %s called with %T, want *%v", what, ptr, b.typ))
	}
	return addr.OfPointer(ptr) // its type is b.ptrType, a pointer
}

// fastKind tells which types param.set handles inline: the plain kinds
// (named types too) that do not unmarshal themselves from text.
func fastKind(t reflect.Type) byte {
	if reflect.PointerTo(t).Implements(textUnmarshalType) || t == durationType {
		return fastNone
	}
	switch t.Kind() {
	case reflect.String:
		return fastString
	case reflect.Int64:
		return fastInt64
	case reflect.Int:
		if strconv.IntSize == 64 {
			return fastInt
		}
	}
	return fastNone
}

// tryParse parses a default into a fresh value of the field's type t, to
// reject a bad default at Compile.
func tryParse(p *param, t reflect.Type, s string) error {
	v := addr.OfValue(reflect.New(t))
	if p.slice != nil {
		return p.setDefault(v, s)
	}
	return p.set(s, v)
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func ptrTo[T any](v T) *T { return &v }

// Bind fills *ptr (a pointer to the binder's input type) from req, with
// pathValues the route's parameter values in pattern order. It returns nil
// or a problem: 400 for an unreadable or malformed body, 408 for a body
// that did not arrive in time, 413 for one over the limit, 415 for an
// unsupported content type, 422 for values that do not parse and required
// values that are missing (every one of them). The caller must call
// st.Release once it is done with st.RawJSON, and st.Cleanup once the
// handler has returned.
func (b *Binder) Bind(req *http.Request, pathValues []string, ptr any, st *State) *problem.Details {
	return b.bind(req, nil, pathValues, ptr, st)
}

// Request is a request as binding reads it, for a server other than
// net/http's (vane's fast engine), which has no *http.Request: Bind fills
// one from an *http.Request.
//
// Every string a handler can reach after binding points into RawQuery or
// into Header's values, or is a copy: a server that reuses its buffers
// gives strings that outlive the request (copies), as net/http's are.
// Header is only read, during BindRequest. Body is read, and a Body of
// type io.Reader is handed to the handler as it is.
type Request struct {
	RawQuery      string        // the query as sent, without '?', still escaped
	Header        http.Header   // the header lines, by canonical name
	Body          io.ReadCloser // nil or http.NoBody: none
	ContentLength int64         // -1: unknown
	// HTTP is the request for the input fields of type *http.Request;
	// nil when the input has none (NeedsRequest).
	HTTP *http.Request
}

// NeedsRequest reports whether the input has a field of type
// *http.Request, which BindRequest sets to Request.HTTP.
func (b *Binder) NeedsRequest() bool { return len(b.requests) > 0 }

// BindRequest is Bind for a request given as a Request.
func (b *Binder) BindRequest(req *Request, pathValues []string, ptr any, st *State) *problem.Details {
	return b.bind(nil, req, pathValues, ptr, st)
}

// bind binds hr, or req when hr is nil. (Bind's request is read into a
// Request here, rather than by Bind, so that Bind is a call that inlines.)
func (b *Binder) bind(hr *http.Request, req *Request, pathValues []string, ptr any, st *State) *problem.Details {
	base := b.base(ptr, "Bind")
	for _, off := range b.requests {
		r := hr
		if r == nil {
			r = req.HTTP
		}
		*addr.As[*http.Request](base.Field(off)) = r
	}
	var errs []problem.FieldError
	for i := range b.path {
		p := &b.path[i]
		if i >= len(pathValues) {
			break
		}
		if err := p.set(pathValues[i], base.Field(p.offset)); err != nil {
			errs = append(errs, fieldErr(p.loc, err, pathValues[i]))
			continue
		}
		st.Present |= p.bit
	}
	if len(b.query) > 0 {
		errs = bindPairs(b.query, rawQuery(hr, req), base, st, errs)
	}
	for i := range b.header {
		p := &b.header[i]
		vals := header(hr, req)[p.name]
		if len(vals) == 0 {
			errs = p.absent(base, st, errs)
			continue
		}
		dst := base.Field(p.offset)
		if p.slice != nil {
			ok := true
			for _, v := range vals {
				if err := p.setList(dst, v, false); err != nil {
					errs = append(errs, fieldErr(p.loc, err, v))
					ok = false
				}
			}
			if ok {
				st.Present |= p.bit
			}
		} else {
			// Field lines of one name are one value, joined by commas (RFC
			// 9110 section 5.3), as a proxy that combines them reads it:
			// never the first alone. One line is itself, unallocated.
			v := strings.Join(vals, ", ")
			if err := p.set(v, dst); err != nil {
				errs = append(errs, fieldErr(p.loc, err, v))
			} else {
				st.Present |= p.bit
			}
		}
	}
	if len(b.cookie) > 0 {
		errs = b.bindCookies(header(hr, req)["Cookie"], base, st, errs)
	}
	if b.body != nil {
		if hr != nil {
			req = &Request{Header: hr.Header, Body: hr.Body, ContentLength: hr.ContentLength} // what the body needs
		}
		if prob := b.bindBody(req, base, st); prob != nil {
			if prob.Status != http.StatusUnprocessableEntity || len(errs) == 0 {
				prob.Errors = append(errs, prob.Errors...)
				return prob
			}
			errs = append(errs, prob.Errors...)
		}
	}
	if errs != nil {
		return problem.New(http.StatusUnprocessableEntity, "validation failed", errs...)
	}
	return nil
}

// rawQuery is the raw query of hr, or of req when hr is nil.
func rawQuery(hr *http.Request, req *Request) string {
	if hr != nil {
		return hr.URL.RawQuery
	}
	return req.RawQuery
}

// header is the header of hr, or of req when hr is nil.
func header(hr *http.Request, req *Request) http.Header {
	if hr != nil {
		return hr.Header
	}
	return req.Header
}

func fieldErr(loc string, err error, value string) problem.FieldError {
	return problem.FieldError{Location: loc, Message: err.Error(), Value: value}
}

// absent applies a missing parameter's default, or reports it if required.
func (p *param) absent(base addr.Addr, st *State, errs []problem.FieldError) []problem.FieldError {
	switch {
	case p.hasDef:
		dst := base.Field(p.offset)
		if p.slice != nil {
			p.setDefault(dst, p.def) //nolint:errcheck // checked at Compile
		} else {
			p.parse(p.def, dst) //nolint:errcheck // checked at Compile
		}
		st.Present |= p.bit
	case p.required:
		errs = append(errs, problem.FieldError{Location: p.loc, Message: "required parameter is missing"})
	}
	return errs
}

// setList appends the values of s, sent in a request, to the slice at
// dst: s itself when the slice takes one value per key, else its parts
// between separators. When raw is set, s is query text still escaped: for
// form explode false, it is split first and each part unescaped, so that
// an escaped comma (%2C) belongs to its value; a space or a pipe may be
// sent escaped as separators too (%20, %7C), so the text is unescaped
// first.
func (p *param) setList(dst addr.Addr, s string, raw bool) error {
	if raw && (p.sep == 0 || !p.escaped) {
		v, err := unescape(s)
		if err != nil {
			return err
		}
		s, raw = v, false
	}
	if p.sep == 0 {
		return p.appendValue(dst, s)
	}
	if s == "" {
		return nil // an empty list
	}
	for {
		part, rest, more := cut(s, p.sep)
		if p.trim {
			part = strings.TrimSpace(part)
		}
		if raw {
			v, err := unescape(part)
			if err != nil {
				return err
			}
			part = v
		}
		if err := p.appendValue(dst, part); err != nil {
			return err
		}
		if !more {
			return nil
		}
		s = rest
	}
}

// setDefault sets the slice at dst to a default tag's value, read as
// schema.ParseValue reads it (so that the default bound is the default
// documented): a JSON array, or values separated by commas.
func (p *param) setDefault(dst addr.Addr, s string) error {
	if strings.HasPrefix(s, "[") {
		return json.Unmarshal([]byte(s), dst.Value(p.slice).Addr().Interface())
	}
	if s == "" {
		return nil
	}
	for {
		part, rest, more := cut(s, ',')
		if err := p.appendValue(dst, part); err != nil {
			return err
		}
		if !more {
			return nil
		}
		s = rest
	}
}

func cut(s string, sep byte) (before, after string, found bool) {
	if i := strings.IndexByte(s, sep); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// appendValue parses s onto the end of the slice at dst.
func (p *param) appendValue(dst addr.Addr, s string) error {
	sv := dst.Value(p.slice)
	n := sv.Len()
	sv.Grow(1)
	sv.SetLen(n + 1)
	if err := p.parse(s, addr.OfValue(sv.Index(n).Addr())); err != nil {
		sv.SetLen(n)
		return err
	}
	return nil
}
