// Package bind fills typed inputs from HTTP requests with binders compiled
// once per input type.
//
// An input is a struct whose fields say where their values come from:
//
//	type GetItems struct {
//	    Org    string    `path:"org"`
//	    Limit  int       `query:"limit" default:"20"`
//	    Tags   []string  `query:"tag"`          // ?tag=a&tag=b or ?tag=a,b
//	    Since  *time.Time `query:"since"`       // nil when absent
//	    Auth   string    `header:"Authorization" required:"true"`
//	    Theme  string    `cookie:"theme"`
//	    Body   NewItem                          // the request body
//	}
//
// Compile reads the struct once and keeps, per field, its source, its name,
// its offset in the struct and its parser; Bind then makes one pass over
// the query string and reads the headers and path values it was told
// about, writing straight into the struct. No reflection walk and no map
// lookup finds a field at request time, and binding strings, numbers and
// booleans allocates nothing: strings point into the request's URL.
//
// The body is JSON by default, decoded by the codec into the Body field.
// A Body of type []byte or io.Reader gets the raw body. A Body struct whose
// fields carry `form:"name"` tags is a form: application/x-www-form-urlencoded
// or multipart/form-data, with *multipart.FileHeader (or a slice of them)
// fields for files.
package bind

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// DefaultBodyLimit is the request body limit when none is configured.
const DefaultBodyLimit = 1 << 20

// Config is what Compile needs besides the input type.
type Config struct {
	Method     string           // the operation's method: GET and HEAD take no body
	Pattern    string           // the full path pattern, for messages
	PathParams []string         // the pattern's parameter names, in order
	Codec      codec.Codec      // nil: codec.JSON
	BodyLimit  int64            // 0: DefaultBodyLimit; negative: no limit
	Registry   *schema.Registry // receives the named schemas; nil: a private one
}

// Binder binds requests to one input type.
type Binder struct {
	typ    reflect.Type
	rtype  unsafe.Pointer
	path   []param // in PathParams order
	query  []param
	header []param
	cookie []param
	body   *bodyBinder
	limit  int64
	codec  codec.Codec

	// Parameters and RequestBody describe the input for OpenAPI.
	Parameters  []operation.Parameter
	RequestBody *operation.RequestBody
}

// param is one compiled parameter field.
type param struct {
	name     string // as in the request (canonical for headers)
	loc      string // "query.limit", for errors
	offset   uintptr
	parse    parser // the scalar parser (of the element, for slices)
	fast     byte   // fastString, fastInt64, fastInt: set without calling parse
	trim     bool   // a header list: spaces around commas are not part of the values
	slice    reflect.Type
	required bool
	def      string // default, when hasDef
	hasDef   bool
	bit      uint64 // presence bit, shared with validate.ValidateInput (0 past the 64th)
}

const (
	fastNone = iota
	fastString
	fastInt64
	fastInt
)

// set parses s into the scalar field at dst, the common kinds inline.
func (p *param) set(s string, dst unsafe.Pointer) error {
	switch p.fast {
	case fastString:
		*(*string)(dst) = s
		return nil
	case fastInt64, fastInt:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return intErr(err, 64)
		}
		if p.fast == fastInt64 {
			*(*int64)(dst) = v
		} else {
			*(*int)(dst) = int(v)
		}
		return nil
	}
	return p.parse(s, dst)
}

// State carries what a Bind leaves for the validator: the presence bits of
// the parameters and the raw JSON body. Release returns its buffer.
type State struct {
	Present uint64
	RawJSON []byte
	buf     *[]byte
}

// Release returns the body buffer to the pool; RawJSON is invalid after.
func (s *State) Release() {
	if s.buf != nil {
		s.release()
	}
}

func (s *State) release() {
	*s.buf = (*s.buf)[:0]
	bufPool.Put(s.buf)
	s.buf, s.RawJSON = nil, nil
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

var (
	fileHeaderPtr   = reflect.TypeFor[*multipart.FileHeader]()
	fileHeaderSlice = reflect.TypeFor[[]*multipart.FileHeader]()
	readerType      = reflect.TypeFor[io.Reader]()
	readCloserType  = reflect.TypeFor[io.ReadCloser]()
	bytesType       = reflect.TypeFor[[]byte]()
)

// Compile returns the binder of input type t. It fails, with a message
// naming the type, the field and the pattern, for a field of a type that
// cannot be bound from its source, a path field with no {name} in the
// pattern, a {name} with no field, or a body on GET or HEAD.
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
	b := &Binder{typ: t, codec: cfg.Codec, limit: cfg.BodyLimit, path: make([]param, len(cfg.PathParams))}
	if b.limit == 0 {
		b.limit = DefaultBodyLimit
	}
	var zero any = reflect.New(t).Interface()
	b.rtype = (*eface)(unsafe.Pointer(&zero)).typ
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
		if nparam < 64 {
			p.bit = 1 << nparam
		}
		nparam++
		ft := f.Type
		format := f.Tag.Get("format")
		var err error
		if ft.Kind() == reflect.Slice && ft != bytesType && !reflect.PointerTo(ft).Implements(textUnmarshalType) {
			if in == "path" {
				return nil, errf(f, "a path parameter cannot be a slice")
			}
			p.slice = ft
			p.parse, err = scalarParser(ft.Elem(), format)
		} else {
			p.parse, err = scalarParser(ft, format)
			p.fast = fastKind(ft)
		}
		if err != nil {
			return nil, errf(f, "%v from %s", err, in)
		}
		p.required = f.Tag.Get("required") == "true" || in == "path"
		if d, ok := f.Tag.Lookup("default"); ok {
			p.def, p.hasDef = d, true
			if err := tryParse(&p, ft, d); err != nil {
				return nil, errf(f, "default %q: %v", d, err)
			}
		}
		sch, err := paramSchema(cfg.Registry, &schema.Field{Name: name, GoName: f.Name, Index: f.Index, Type: ft, Tag: f.Tag, Struct: f})
		if err != nil {
			return nil, errf(f, "%v", err)
		}
		op := operation.Parameter{
			Name: name, In: in, Required: p.required, Schema: sch, Field: f.Name,
			Description: f.Tag.Get("doc"), Deprecated: f.Tag.Get("deprecated") == "true",
		}
		if len(sch.Examples) > 0 {
			op.Example = sch.Examples[0]
		}
		switch in {
		case "path":
			idx := indexOf(cfg.PathParams, name)
			if idx < 0 {
				return nil, errf(f, "path parameter %q is not in the pattern (its parameters: %v)", name, cfg.PathParams)
			}
			if seenPath[idx] {
				return nil, errf(f, "path parameter %q is bound twice", name)
			}
			seenPath[idx] = true
			b.path[idx] = p
		case "query":
			if p.slice != nil {
				op.Style, op.Explode = "form", ptrTo(true)
			}
			b.query = append(b.query, p)
		case "header":
			p.name = http.CanonicalHeaderKey(name)
			if p.slice != nil {
				p.trim = true
				op.Style, op.Explode = "simple", ptrTo(false)
			}
			b.header = append(b.header, p)
		case "cookie":
			if p.slice != nil {
				return nil, errf(f, "a cookie parameter cannot be a slice")
			}
			b.cookie = append(b.cookie, p)
		}
		b.Parameters = append(b.Parameters, op)
	}
	if b.body != nil {
		// Form fields take the presence bits after the parameters', so
		// that a value sent is checked even at its zero value (count=0)
		// and one not sent is not. validate.Input numbers them alike.
		for j := range b.body.form {
			if k := nparam + j; k < 64 {
				b.body.form[j].bit = 1 << k
			}
		}
	}
	for i, ok := range seenPath {
		if !ok {
			return nil, fmt.Errorf("bind: %v (%s %s): no field binds path parameter {%s}; add a field tagged `path:%q`", t, cfg.Method, cfg.Pattern, cfg.PathParams[i], cfg.PathParams[i])
		}
	}
	return b, nil
}

// paramSchema is the field's schema as the text of a parameter: as in JSON,
// except for a time.Duration, parsed as Go duration text ("1m30s": see
// schema.Registry.TextSchema), and []byte, whose text is itself rather
// than base64.
func paramSchema(reg *schema.Registry, f *schema.Field) (*schema.Schema, error) {
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != bytesType {
		return reg.TextSchema(f)
	}
	s := &schema.Schema{Type: schema.TypeString}
	if err := schema.Apply(s, f.Type, f.Tag); err != nil {
		return nil, err
	}
	return s, nil
}

// Defaults sets every parameter and form field that has a default in *ptr
// to it and returns their presence bits, for checking the defaults against
// the rules at registration.
func (b *Binder) Defaults(ptr any) uint64 {
	e := (*eface)(unsafe.Pointer(&ptr))
	if e.typ != b.rtype {
		panic(fmt.Sprintf("bind: Defaults called with %T, want *%v", ptr, b.typ))
	}
	var st State
	lists := [][]param{b.query, b.header, b.cookie}
	if b.body != nil {
		lists = append(lists, b.body.form)
	}
	for _, list := range lists {
		for i := range list {
			if list[i].hasDef {
				list[i].absent(e.data, &st, nil)
			}
		}
	}
	return st.Present
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
	v := reflect.New(t).UnsafePointer()
	if p.slice != nil {
		return p.setSlice(v, s)
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

type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// Bind fills *ptr (a pointer to the binder's input type) from req, with
// pathValues the route's parameter values in pattern order. It returns nil
// or a problem: 400 for an unreadable body, 413 for one over the limit, 415
// for an unsupported content type, 422 for values that do not parse and
// required values that are missing (every one of them). The caller must
// call st.Release once it is done with st.RawJSON.
func (b *Binder) Bind(req *http.Request, pathValues []string, ptr any, st *State) *problem.Details {
	e := (*eface)(unsafe.Pointer(&ptr))
	if e.typ != b.rtype {
		panic(fmt.Sprintf("bind: Bind called with %T, want *%v", ptr, b.typ))
	}
	base := e.data
	var errs []problem.FieldError
	for i := range b.path {
		p := &b.path[i]
		if i >= len(pathValues) {
			break
		}
		if err := p.set(pathValues[i], unsafe.Add(base, p.offset)); err != nil {
			errs = append(errs, fieldErr(p.loc, err, pathValues[i]))
			continue
		}
		st.Present |= p.bit
	}
	if len(b.query) > 0 {
		errs = bindPairs(b.query, req.URL.RawQuery, base, st, errs)
	}
	for i := range b.header {
		p := &b.header[i]
		vals := req.Header[p.name]
		if len(vals) == 0 {
			errs = p.absent(base, st, errs)
			continue
		}
		dst := unsafe.Add(base, p.offset)
		if p.slice != nil {
			for _, v := range vals {
				if err := p.setSlice(dst, v); err != nil {
					errs = append(errs, fieldErr(p.loc, err, v))
				}
			}
		} else if err := p.set(vals[0], dst); err != nil {
			errs = append(errs, fieldErr(p.loc, err, vals[0]))
			continue
		}
		st.Present |= p.bit
	}
	if len(b.cookie) > 0 {
		errs = b.bindCookies(req, base, st, errs)
	}
	if b.body != nil {
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

func fieldErr(loc string, err error, value string) problem.FieldError {
	return problem.FieldError{Location: loc, Message: err.Error(), Value: value}
}

// absent applies a missing parameter's default, or reports it if required.
func (p *param) absent(base unsafe.Pointer, st *State, errs []problem.FieldError) []problem.FieldError {
	switch {
	case p.hasDef:
		dst := unsafe.Add(base, p.offset)
		if p.slice != nil {
			p.setSlice(dst, p.def) //nolint:errcheck // checked at Compile
		} else {
			p.parse(p.def, dst) //nolint:errcheck // checked at Compile
		}
		st.Present |= p.bit
	case p.required:
		errs = append(errs, problem.FieldError{Location: p.loc, Message: "required parameter is missing"})
	}
	return errs
}

// setSlice appends the comma-separated values of s to the slice at dst.
func (p *param) setSlice(dst unsafe.Pointer, s string) error {
	sv := reflect.NewAt(p.slice, dst).Elem()
	for {
		part, rest, more := strings.Cut(s, ",")
		if p.trim {
			part = strings.TrimSpace(part)
		}
		sv.Grow(1)
		sv.SetLen(sv.Len() + 1)
		if err := p.parse(part, sv.Index(sv.Len()-1).Addr().UnsafePointer()); err != nil {
			sv.SetLen(sv.Len() - 1)
			return err
		}
		if !more {
			return nil
		}
		s = rest
	}
}

func needsUnescape(s string) bool {
	return strings.IndexByte(s, '%') >= 0 || strings.IndexByte(s, '+') >= 0
}

// bindCookies reads the Cookie headers without building http.Cookie values.
func (b *Binder) bindCookies(req *http.Request, base unsafe.Pointer, st *State, errs []problem.FieldError) []problem.FieldError {
	var seen uint64
	for _, line := range req.Header["Cookie"] {
		for line != "" {
			var part string
			part, line, _ = strings.Cut(line, ";")
			part = strings.TrimSpace(part)
			name, val, ok := strings.Cut(part, "=")
			if !ok {
				continue
			}
			if len(val) > 1 && val[0] == '"' && val[len(val)-1] == '"' {
				val = val[1 : len(val)-1]
			}
			for i := range b.cookie {
				p := &b.cookie[i]
				if p.name != name || (i < 64 && seen&(1<<i) != 0) {
					continue
				}
				if err := p.set(val, unsafe.Add(base, p.offset)); err != nil {
					errs = append(errs, fieldErr(p.loc, err, val))
				} else {
					st.Present |= p.bit
				}
				if i < 64 {
					seen |= 1 << i
				}
				break
			}
		}
	}
	for i := range b.cookie {
		if i < 64 && seen&(1<<i) != 0 {
			continue
		}
		errs = b.cookie[i].absent(base, st, errs)
	}
	return errs
}

// readBody reads the body into a pooled buffer, enforcing the limit.
func (b *Binder) readBody(req *http.Request, st *State) ([]byte, *problem.Details) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if b.limit > 0 && req.ContentLength > b.limit {
		return nil, tooLarge(b.limit)
	}
	bp := bufPool.Get().(*[]byte)
	st.buf = bp
	buf := (*bp)[:0]
	if req.ContentLength > 0 && int64(cap(buf)) < req.ContentLength {
		buf = make([]byte, 0, req.ContentLength+1)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := req.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if b.limit > 0 && int64(len(buf)) > b.limit {
			*bp = buf
			return nil, tooLarge(b.limit)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			*bp = buf
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return nil, tooLarge(mbe.Limit)
			}
			return nil, problem.New(http.StatusBadRequest, "reading the request body failed")
		}
	}
	*bp = buf
	return buf, nil
}

func tooLarge(limit int64) *problem.Details {
	return problem.New(http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than the limit of %d bytes", limit))
}

// mediaType returns the media type of a Content-Type value, lower case,
// without parameters. It allocates only when the value needs lowering.
func mediaType(ct string) string {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	ct = strings.TrimSpace(ct)
	for i := 0; i < len(ct); i++ {
		if c := ct[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(ct)
		}
	}
	return ct
}

func isJSON(mt string) bool {
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}
