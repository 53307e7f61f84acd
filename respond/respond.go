// Package respond writes the outputs of typed operations, with writers
// compiled once per output type: the mirror of package bind.
//
// An output is either the body itself (any type but a struct with a Body
// field) or a struct that says where each of its fields goes:
//
//	type GetItemOutput struct {
//	    ETag         string    `header:"ETag"`
//	    LastModified time.Time `header:"Last-Modified"` // an HTTP date; the zero time sends nothing
//	    Status       int       // the status when not zero
//	    Body         Item      // the response body
//	}
//
// Compile reads the type once and keeps, per header field, its canonical
// name, offset and formatter, the offset of Status and the kind of the
// body; Write then writes a *O without a reflection walk. A JSON body is
// encoded by the codec; a []byte or io.Reader body is copied as it is
// (application/octet-stream unless a Content-Type header field says
// otherwise, always with X-Content-Type-Options: nosniff). A 204, 205 or
// 304 status sends no body and no Content-Type, whatever the output holds.
//
// Compile also describes the responses the output makes
// (operation.Response: status, headers, media type and schema), which
// the OpenAPI document reads through operation.Description.
package respond

import (
	"encoding"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// codecFor returns the codec for a Content-Type the output set: the
// offer's of that media type, the JSON codec for any +json type; or, for
// a string body, raw (its text is the body). Neither: no codec.
func (o *Writer) codecFor(contentType string) (c codec.Codec, raw bool) {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.TrimSpace(mt)
	for i := range o.offers {
		if strings.EqualFold(mt, o.offers[i].mediaType) {
			return o.offers[i].codec, false
		}
	}
	if len(mt) > 5 && strings.EqualFold(mt[len(mt)-5:], "+json") {
		return o.offers[0].codec, false
	}
	if o.bodyType.Kind() == reflect.String {
		return nil, true
	}
	return nil, false
}

// Config is what Compile needs besides the output type.
type Config struct {
	// Status is the status of a successful response, used when the
	// output has no Status field or leaves it zero.
	Status int

	// Codec encodes JSON bodies; nil means codec.JSON.
	Codec codec.Codec

	// Codecs are the other media types a body can be negotiated to
	// (see Negotiate); one for application/json replaces Codec.
	Codecs []codec.MediaCodec

	// Registry names the schemas of the bodies and headers; nil means a
	// new registry of its own.
	Registry *schema.Registry
}

// Writer writes one output type, compiled by Compile.
type Writer struct {
	typ           reflect.Type
	ptrType       reflect.Type
	headers       []header
	statusOff     uintptr
	hasStatus     bool
	bodyOff       uintptr
	bodyType      reflect.Type
	bodyKind      int
	mediaType     string
	bodySchema    *schema.Schema
	headerDocs    []operation.Header
	cookies       []cookieField
	ctHeader      bool     // a header field sets Content-Type
	ctTypes       []string // its enum: the media types documented for the body
	validators    bool     // a header field sets ETag or Last-Modified
	empty         bool     // nothing to say: a JSON body that is always {}, no headers, no Status
	status        int
	offers        []offer // offers[0] is application/json
	notAcceptable *problem.Encoded
}

const (
	bodyJSON = iota
	bodyBytes
	bodyReader
)

type header struct {
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

// Compile compiles the writer of output type t. It fails, naming the
// field, on what cannot be written: a Status that is not an int, a header
// field of a type with no text form, a body with no schema.
func Compile(t reflect.Type, cfg Config) (*Writer, error) {
	if cfg.Registry == nil {
		cfg.Registry = schema.NewRegistry("#/components/schemas/")
	}
	if cfg.Codec == nil {
		cfg.Codec = codec.JSON
	}
	if cfg.Status == 0 {
		cfg.Status = http.StatusOK
	}
	o := &Writer{typ: t, ptrType: reflect.PointerTo(t), mediaType: "application/json", status: cfg.Status}
	o.compileOffers(cfg.Codec, cfg.Codecs)
	if err := o.compileFields(t, cfg.Registry); err != nil {
		return nil, err
	}
	o.empty = o.bodyKind == bodyJSON && len(o.headers) == 0 && len(o.cookies) == 0 && !o.hasStatus && isEmptyStruct(o.bodyType)
	return o, nil
}

// Validators reports whether the output has a header field ETag or
// Last-Modified, from which a GET or HEAD is answered 304 or 412 (see
// Evaluate).
func (o *Writer) Validators() bool { return o.validators }

// Empty reports whether the output can only be {}: a JSON body with no
// properties, no headers and no Status. Such an output is usually
// returned nil, which is answered 204.
func (o *Writer) Empty() bool { return o.empty }

// Response describes the success response: Config.Status, the header
// fields, and the body's media type and schema (none for a status that
// has no body).
func (o *Writer) Response() operation.Response {
	r := operation.Response{Status: o.status, Description: http.StatusText(o.status), Headers: o.headerDocs}
	if o.bodySchema != nil && !operation.NoBody(o.status) {
		r.Content = []operation.Content{{MediaType: o.mediaType, Schema: o.bodySchema}}
		if len(o.ctTypes) > 0 {
			r.Content = r.Content[:0]
			for _, mt := range o.ctTypes {
				r.Content = append(r.Content, operation.Content{MediaType: mt, Schema: o.bodySchema})
			}
		}
		if o.negotiated() {
			for _, of := range o.offers[1:] {
				r.Content = append(r.Content, operation.Content{MediaType: of.mediaType, Schema: o.bodySchema})
			}
		}
	}
	return r
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

func (o *Writer) compileFields(t reflect.Type, reg *schema.Registry) error {
	if t.Kind() != reflect.Struct {
		return o.setBody(t, 0, reg)
	}
	if f, ok := t.FieldByName("Body"); !ok || len(f.Index) != 1 {
		return o.setBody(t, 0, reg)
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		switch {
		case f.Name == "Body":
			if err := o.setBody(f.Type, f.Offset, reg); err != nil {
				return err
			}
			if doc := f.Tag.Get("doc"); doc != "" && o.bodySchema != nil && o.bodySchema.Ref == "" {
				o.bodySchema.Description = doc
			}
		case f.Name == "Status" && f.Tag.Get("header") == "":
			if f.Type.Kind() != reflect.Int {
				return fmt.Errorf("field Status must be an int, not %v", f.Type)
			}
			o.statusOff, o.hasStatus = f.Offset, true
		case isCookieType(f.Type):
			if err := o.addCookie(f); err != nil {
				return fmt.Errorf("field %s: %v", f.Name, err)
			}
		default:
			name, ok := f.Tag.Lookup("header")
			if !ok {
				if _, ok := f.Tag.Lookup("cookie"); ok {
					return fmt.Errorf("field %s: a cookie is an http.Cookie, *http.Cookie or []*http.Cookie, not %v", f.Name, f.Type)
				}
				continue
			}
			h, err := headerWriter(f)
			if err != nil {
				return fmt.Errorf("field %s: %v", f.Name, err)
			}
			h.name = http.CanonicalHeaderKey(name)
			o.headers = append(o.headers, h)
			if h.name == "Content-Type" {
				o.ctHeader = true
				if enum := f.Tag.Get("enum"); enum != "" {
					// The media types the handler chooses among: each is documented.
					for _, mt := range strings.Split(enum, ",") {
						o.ctTypes = append(o.ctTypes, strings.TrimSpace(mt))
					}
				}
			}
			o.validators = o.validators || h.name == "Etag" || h.name == "Last-Modified"
			hs, err := reg.TextSchema(&schema.Field{Name: name, GoName: f.Name, Index: f.Index, Type: f.Type, Tag: f.Tag, Struct: f})
			if err != nil {
				return fmt.Errorf("field %s: %v", f.Name, err)
			}
			if f.Type == timeType || f.Type == reflect.PointerTo(timeType) {
				hs = &schema.Schema{Type: schema.TypeString, Description: hs.Description, Examples: []any{"Wed, 21 Oct 2015 07:28:00 GMT"}}
			}
			o.headerDocs = append(o.headerDocs, operation.Header{Name: h.name, Description: f.Tag.Get("doc"), Schema: hs, Field: f.Name})
		}
	}
	return nil
}

func (o *Writer) setBody(t reflect.Type, off uintptr, reg *schema.Registry) error {
	o.bodyType, o.bodyOff = t, off
	switch {
	case t == bytesType:
		o.bodyKind, o.mediaType = bodyBytes, "application/octet-stream"
		o.bodySchema = &schema.Schema{Type: schema.TypeString, ContentMediaType: "application/octet-stream"}
		return nil
	case t.Kind() == reflect.Interface && t.Implements(readerType):
		o.bodyKind, o.mediaType = bodyReader, "application/octet-stream"
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

func headerWriter(f reflect.StructField) (header, error) {
	h := header{offset: f.Offset}
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

// Write sends the output ptr points to (a *O of the compiled type O) in
// the media type req's Accept prefers (see Negotiate, which answers 406
// itself): headers, cookies, status, body. It fails only when the body
// cannot be encoded or a cookie is invalid, before anything is sent; the
// header fields and cookies it had set are removed again, so that the
// caller can answer with an error instead.
func (o *Writer) Write(w http.ResponseWriter, req *http.Request, ptr any) error {
	c, ok := o.Negotiate(w, req)
	if !ok {
		return nil
	}
	return o.write(w, req, o.base(ptr), o.status, c)
}

// WriteChoice is Write in the media type Negotiate chose for req before
// the handler ran.
func (o *Writer) WriteChoice(w http.ResponseWriter, req *http.Request, ptr any, c Choice) error {
	return o.write(w, req, o.base(ptr), o.status, c)
}

// base returns the address ptr, a pointer to the writer's output type,
// holds.
func (o *Writer) base(ptr any) unsafe.Pointer {
	if reflect.TypeOf(ptr) != o.ptrType {
		panic(fmt.Sprintf("respond: Write called with %T, want *%v", ptr, o.typ))
	}
	return reflect.ValueOf(ptr).UnsafePointer()
}

func (o *Writer) write(w http.ResponseWriter, req *http.Request, p unsafe.Pointer, status int, choice Choice) error {
	hdr := w.Header()
	cookiesBefore := 0
	if len(o.cookies) > 0 {
		cookiesBefore = len(hdr["Set-Cookie"])
		if err := o.setCookies(hdr, p); err != nil {
			unsetCookies(hdr, cookiesBefore)
			return err
		}
	}
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
	if o.validators && status == http.StatusOK && (req.Method == http.MethodGet || req.Method == http.MethodHead) &&
		o.notModified(w, req, hdr) {
		return nil
	}
	if operation.NoBody(status) {
		// 204, 205 and 304 carry no body, whatever the output holds.
		w.WriteHeader(status)
		return nil
	}
	bp := unsafe.Add(p, o.bodyOff)
	switch o.bodyKind {
	case bodyBytes:
		b := *(*[]byte)(bp)
		if !o.ctHeader || hdr["Content-Type"] == nil {
			hdr["Content-Type"] = octetContentType
		}
		hdr["X-Content-Type-Options"] = nosniff
		w.WriteHeader(status)
		w.Write(b) //nolint:errcheck // a failed write means the client went away
		return nil
	case bodyReader:
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
	of := &o.offers[choice]
	ct := of.contentType
	c := of.codec
	if o.ctHeader && len(hdr["Content-Type"]) > 0 {
		// The handler chose the media type: its codec, or a string's text.
		ct = hdr["Content-Type"]
		var raw bool
		c, raw = o.codecFor(ct[0])
		if raw {
			hdr["X-Content-Type-Options"] = nosniff
			w.WriteHeader(status)
			io.WriteString(w, *(*string)(bp)) //nolint:errcheck // a failed write means the client went away
			return nil
		}
		if c == nil {
			for i := range o.headers {
				delete(hdr, o.headers[i].name)
			}
			if len(o.cookies) > 0 {
				unsetCookies(hdr, cookiesBefore)
			}
			return fmt.Errorf("no codec for the output's Content-Type %q", ct[0])
		}
	}
	body, err := c.Marshal(reflect.NewAt(o.bodyType, bp).Interface())
	if err != nil {
		for i := range o.headers {
			delete(hdr, o.headers[i].name)
		}
		if len(o.cookies) > 0 {
			unsetCookies(hdr, cookiesBefore)
		}
		return fmt.Errorf("encoding the response body: %w", err)
	}
	hdr["Content-Type"] = ct
	if len(o.offers) > 1 && o.negotiated() {
		hdr["Vary"] = append(hdr["Vary"], "Accept")
	}
	w.WriteHeader(status)
	w.Write(body) //nolint:errcheck // a failed write means the client went away
	return nil
}
