// Package respond writes the output of a typed operation: compiled once
// from the output type, it turns a *O into a status, headers and a body,
// the mirror of package bind for requests. It also says which responses an
// operation documents, so that what the server sends and what the OpenAPI
// document lists come from one place.
//
// An output type O is read as follows. If O is a struct with a Body field,
// its fields tagged header are response headers (a time.Time as an HTTP
// date, a []string as one header line per element), an int field named
// Status sets the status when not zero, and Body is the response body;
// otherwise the whole O is the body. A body is encoded with the operation's
// codec (JSON by default), except a []byte or an io.Reader, which are sent
// as they are (application/octet-stream unless a Content-Type header field
// says otherwise). A []byte or io.ReadSeeker body answers a GET's Range
// and If-Range (206, multipart/byteranges, 416; ranges.go), and a body
// larger than ChunkSize is written a chunk at a time, each extending the
// write deadline, so that a download making progress is not cut
// (chunks.go). Every answer carries X-Content-Type-Options: nosniff,
// so that no browser takes a body for another type than it is sent as.
//
// WriteRequest writes for a request given as a Request (method, header
// lines, context), for a server that has no *http.Request, such as vane's
// fast engine; Write runs the same code for an *http.Request.
package respond

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/vane-http/vane/internal/addr"
	"io"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// Output writes the values of one output type. It is compiled once by
// Compile and safe for concurrent use.
type Output struct {
	typ        reflect.Type
	ptrType    reflect.Type // *O, the type Write accepts
	headers    []outHeader
	statusOff  uintptr
	hasStatus  bool
	statuses   []int    // the statuses the Status field's enum tag lists; nil: not declared
	rawTypes   []string // a raw body's media types (its mediaType tag), documented instead of application/octet-stream
	rawDefault []string // a raw body's Content-Type when no header field sets one
	bodyOff    uintptr
	bodyType   reflect.Type // nil: no body at all
	bodyKind   int
	seekable   bool // a []byte or io.ReadSeeker body: served in ranges (ranges.go)
	mediaType  string
	bodySchema *schema.Schema
	headerDocs []operation.Header
	ctHeader   bool // a header field sets Content-Type
	validators bool // a header field sets ETag or Last-Modified
	// lastModified is the offset of a time.Time (or *time.Time) field
	// that sets Last-Modified, whose full precision preconditions are
	// evaluated against; lastModifiedKind says which (0: no such field).
	lastModified     uintptr
	lastModifiedKind int
	cookies          []cookieField
	empty            bool // nothing to say: a JSON body that is always {}, no headers, no Status
	// flat encodes a JSON body of a flat struct type (codec.CompileFlat)
	// as the JSON codec would, without it; nil for any other body.
	flat codec.FlatEncoder
	// plain: the output is its flat JSON body and nothing else (no
	// Status, header or cookie field), which writeFlat writes.
	plain bool
}

const (
	lastModifiedTime    = 1 // a time.Time field
	lastModifiedPointer = 2 // a *time.Time field
)

const (
	outJSON = iota
	outBytes
	outReader
	outReaderValue // a concrete reader type (*os.File, *bytes.Reader): read as it is, closed if a Closer
)

type outHeader struct {
	name   string // canonical
	offset uintptr
	format func(p addr.Addr) (string, bool) // the value, and whether to send it
	multi  bool                             // a []string: one header line per element
}

var (
	jsonContentType   = []string{"application/json"}
	octetContentType  = []string{"application/octet-stream"}
	nosniff           = []string{"nosniff"}
	varyAccept        = []string{"Accept"}
	timeType          = reflect.TypeFor[time.Time]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	stringerType      = reflect.TypeFor[fmt.Stringer]()
	readerType        = reflect.TypeFor[io.Reader]()
	bytesType         = reflect.TypeFor[[]byte]()
	seekerType        = reflect.TypeFor[io.Seeker]()
)

// Compile compiles the output type t, documenting its body and headers
// with schemas from reg. It fails, naming the field, for a type it cannot
// write.
func Compile(t reflect.Type, reg *schema.Registry) (*Output, error) {
	o, err := compileFields(t, reg)
	if err != nil {
		return nil, err
	}
	o.rawDefault = octetContentType
	if len(o.rawTypes) == 1 && !strings.Contains(o.rawTypes[0], "*") {
		o.rawDefault = o.rawTypes[:1]
	}
	o.seekable = o.bodyKind == outBytes || (o.bodyKind == outReader || o.bodyKind == outReaderValue) && o.bodyType.Implements(seekerType)
	o.empty = o.bodyKind == outJSON && len(o.headers) == 0 && !o.hasStatus && isEmptyStruct(o.bodyType)
	o.ptrType = reflect.PointerTo(t)
	if o.bodyKind == outJSON && o.bodyType != nil {
		o.flat, _ = codec.CompileFlat(o.bodyType)
	}
	o.plain = o.flat != nil && !o.hasStatus && len(o.headers) == 0 && len(o.cookies) == 0
	return o, nil
}

// Empty reports whether the output has nothing to say: a JSON body that is
// always {}, no headers, no Status. Such an operation usually returns nil,
// which is answered 204 No Content.
func (o *Output) Empty() bool { return o.empty }

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

func compileFields(t reflect.Type, reg *schema.Registry) (*Output, error) {
	o := &Output{typ: t, mediaType: "application/json"}
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
			if list, ok := f.Tag.Lookup("mediaType"); ok {
				if o.bodyKind != outBytes && o.bodyKind != outReader && o.bodyKind != outReaderValue {
					return nil, fmt.Errorf("field Body: a mediaType tag is for a []byte or io.Reader body, which is sent as it is")
				}
				for _, mt := range strings.Split(list, ",") {
					mt = strings.TrimSpace(mt)
					if typ, sub, ok := strings.Cut(mt, "/"); !ok || typ == "" || sub == "" {
						return nil, fmt.Errorf("field Body: mediaType %q is not a media type or range", mt)
					}
					o.rawTypes = append(o.rawTypes, mt)
				}
			}
		case f.Name == "Status" && f.Tag.Get("header") == "":
			if f.Type.Kind() != reflect.Int {
				return nil, fmt.Errorf("field Status must be an int, not %v", f.Type)
			}
			o.statusOff, o.hasStatus = f.Offset, true
			if list, ok := f.Tag.Lookup("enum"); ok {
				for _, v := range strings.Split(list, ",") {
					n, err := strconv.Atoi(strings.TrimSpace(v))
					if err != nil || n < 200 || n > 399 {
						return nil, fmt.Errorf("field Status: enum %q: each status is a number from 200 to 399", list)
					}
					o.statuses = append(o.statuses, n)
				}
			}
		case f.Type == cookieType || f.Type == cookiePtrType || f.Type == cookieSliceType:
			if name, ok := f.Tag.Lookup("header"); ok && http.CanonicalHeaderKey(name) != "Set-Cookie" {
				return nil, fmt.Errorf("field %s: a cookie is sent as Set-Cookie, not as header %q", f.Name, name)
			}
			if len(o.cookies) == 0 {
				o.headerDocs = append(o.headerDocs, operation.Header{Name: "Set-Cookie", Field: f.Name,
					Description: cmpOr(f.Tag.Get("doc"), "Cookies the response sets."),
					Schema:      &schema.Schema{Type: schema.TypeString, Examples: []any{"session=abc123; Path=/; HttpOnly; Secure; SameSite=Lax"}}})
			}
			o.cookies = append(o.cookies, cookieField{offset: f.Offset, typ: f.Type})
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
			o.validators = o.validators || h.name == "Etag" || h.name == "Last-Modified"
			if h.name == "Last-Modified" {
				switch f.Type {
				case timeType:
					o.lastModified, o.lastModifiedKind = f.Offset, lastModifiedTime
				case reflect.PointerTo(timeType):
					o.lastModified, o.lastModifiedKind = f.Offset, lastModifiedPointer
				}
			}
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

func (o *Output) setBody(t reflect.Type, off uintptr, reg *schema.Registry) error {
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
	case t.Implements(readerType) && !t.Implements(jsonMarshalerType):
		o.bodyKind, o.mediaType = outReaderValue, "application/octet-stream"
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
		h.format = func(p addr.Addr) (string, bool) {
			q := p.Deref()
			if q.IsNil() {
				return "", false
			}
			return elem.format(q)
		}
		return h, nil
	}
	switch {
	case t == timeType:
		var dates httpDate
		h.format = func(p addr.Addr) (string, bool) {
			tm := *addr.As[time.Time](p)
			if tm.IsZero() {
				return "", false
			}
			return dates.format(tm), true
		}
	case t.Kind() == reflect.String:
		h.format = func(p addr.Addr) (string, bool) {
			s := *addr.As[string](p)
			return s, s != ""
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		h.multi = true
	case t.Implements(textMarshalerType) || t.Implements(stringerType):
		h.format = func(p addr.Addr) (string, bool) {
			v := p.Value(t)
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
			h.format = func(p addr.Addr) (string, bool) {
				var v int64
				switch k {
				case reflect.Int:
					v = int64(*addr.As[int](p))
				case reflect.Int8:
					v = int64(*addr.As[int8](p))
				case reflect.Int16:
					v = int64(*addr.As[int16](p))
				case reflect.Int32:
					v = int64(*addr.As[int32](p))
				default:
					v = *addr.As[int64](p)
				}
				return strconv.FormatInt(v, 10), true
			}
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			h.format = func(p addr.Addr) (string, bool) {
				return strconv.FormatUint(p.Value(t).Uint(), 10), true
			}
		case reflect.Bool:
			h.format = func(p addr.Addr) (string, bool) {
				return strconv.FormatBool(*addr.As[bool](p)), true
			}
		case reflect.Float32, reflect.Float64:
			h.format = func(p addr.Addr) (string, bool) {
				return strconv.FormatFloat(p.Value(t).Float(), 'g', -1, 64), true
			}
		default:
			return h, fmt.Errorf("type %v cannot be a response header", t)
		}
	}
	return h, nil
}

// Negotiated reports whether the output's body is chosen by the request's
// Accept, so that a request accepting none of the media types is answered
// 406, which the caller does before the handler runs: a body encoded by
// the codecs (not a []byte or io.Reader), an output that is not Empty
// (usually returned nil, a 204), and one that can have a body at all (a
// Status field, or a status other than 204, 205 and 304).
func (o *Output) Negotiated(status int) bool {
	return o.bodyKind == outJSON && o.bodySchema != nil && !o.empty && (o.hasStatus || !operation.NoBody(status))
}

// Write sends out, a non-nil *O of the compiled type, as the response to
// req: headers, then status (out's Status field when not zero, else
// status), then the body encoded with c. Statuses 204, 205 and 304 are
// sent without a body, and so is the answer to HEAD when the body is an
// io.Reader. A successful (200) response to a GET or HEAD whose ETag or
// Last-Modified header field matches the request's If-None-Match or
// If-Modified-Since is a 304 Not Modified with the headers and no body;
// one (2xx) whose ETag fails If-Match, or whose Last-Modified fails
// If-Unmodified-Since, sends nothing and returns ErrPreconditionFailed
// (RFC 9110 section 13.2.2). Dates are compared with a time.Time
// Last-Modified field at its full precision: HTTP dates have whole
// seconds, and a resource modified at 12:00:00.300 is modified since
// "12:00:00" (docs/design/2026-11-27-date-preconditions.md).
// The body's media type is the one req's Accept prefers among enc's; when
// it accepts none, Write sends nothing and returns ErrNotAcceptable, unless
// the response has no body (204, 205, 304).
// When enc has more than one media type, a body that enc encodes is sent
// with Vary: Accept (added to any Vary already set), 304s included.
// Apart from ErrNotAcceptable and ErrPreconditionFailed, it fails only
// when the body cannot be encoded, before anything is sent; any other
// type of out panics.
//
// A body that is an io.Closer is closed on every path, whether it was
// sent or not: a 304, 204 or 205, HEAD, a failed precondition, an error.
func (o *Output) Write(w http.ResponseWriter, req *http.Request, out any, status int, enc *Encoders) error {
	return o.write(w, req, nil, out, status, enc)
}

// Request is a request as its answer depends on it, for a server other
// than net/http's (vane's fast engine), which has no *http.Request: Write
// fills one from an *http.Request. Header is only read, during
// WriteRequest.
type Request struct {
	Method  string
	Header  http.Header // the header lines, by canonical name
	Context context.Context
}

// A BodyStreamer is a ResponseWriter that sends a reader body itself, once
// the handler has returned, as a server that writes each answer after its
// handler does (vane's fast engine) can. StreamBody takes rd, which the
// writer closes after sending when it is an io.Closer, and reports whether
// it did; when it did not, Write copies rd as for any other writer.
type BodyStreamer interface {
	StreamBody(rd io.Reader) bool
}

// A BodyHeaderSetter is a ResponseWriter that takes the two header lines
// sent with every encoded body, its Content-Type and
// X-Content-Type-Options: nosniff, without their being written into its
// Header map: vane's fast engine puts them straight into its response.
// SetBodyHeader(ct) has the effect of Header()["Content-Type"] = ct and
// Header()["X-Content-Type-Options"] = []string{"nosniff"}: a Header
// call after it returns a map that holds both. It reports whether it
// took them; when it did not, WriteRequest sets them in Header. Write
// never calls it (net/http's writer has no such method), and
// WriteRequest calls it only when the body's Content-Type is not one the
// output sets itself.
type BodyHeaderSetter interface {
	SetBodyHeader(contentType []string) bool
}

// setBodyHeader gives w the body's header lines when it is a
// BodyHeaderSetter that takes them.
func setBodyHeader(w http.ResponseWriter, ct []string) bool {
	bh, ok := w.(BodyHeaderSetter)
	return ok && bh.SetBodyHeader(ct)
}

// WriteRequest is Write for a request given as a Request; req nil is no
// request (as Write's req nil).
func (o *Output) WriteRequest(w http.ResponseWriter, req *Request, out any, status int, enc *Encoders) error {
	return o.write(w, nil, req, out, status, enc)
}

// write writes for hr, or for req when hr is nil; both nil is no request.
// (Write's request is read here, rather than by Write, so that Write is a
// call that inlines.)
func (o *Output) write(w http.ResponseWriter, hr *http.Request, req *Request, out any, status int, enc *Encoders) error {
	if reflect.TypeOf(out) != o.ptrType {
		panic(fmt.Sprintf("respond: Write called with %T, want %v", out, o.ptrType))
	}
	p := addr.OfPointer(out) // its type is o.ptrType, a pointer
	if o.plain && len(enc.list) == 1 && enc.list[0].Codec == codec.JSON {
		if done, err := o.writeFlat(w, hr, req, p, status, enc); done {
			return err
		}
	}
	return o.writeAny(w, hr, req, p, status, enc)
}

// writeFlat is write for a plain output (o.plain) of one encoder, JSON:
// the body from the flat encoder, Content-Type and nosniff; in one place,
// apart from writeAny's other cases, since most operations answer so.
// done is false when the flat encoder declined the value (a NaN) and
// nothing was written: writeAny answers with the codec's error.
func (o *Output) writeFlat(w http.ResponseWriter, hr *http.Request, req *Request, p addr.Addr, status int, enc *Encoders) (done bool, err error) {
	noBody := operation.NoBody(status)
	if enc.fixed < 0 && !noBody && (hr != nil || req != nil) && enc.negotiate(requestHeader(hr, req)["Accept"]) < 0 {
		// A response without a body is never refused for its media type.
		return true, ErrNotAcceptable
	}
	if noBody {
		// 204, 205 and 304 carry no body, whatever the output holds.
		w.Header()["X-Content-Type-Options"] = nosniff
		w.WriteHeader(status)
		return true, nil
	}
	buf := bodyBuffers.Get().(*[]byte)
	body, ok := o.flat((*buf)[:0], p.Field(o.bodyOff))
	if !ok {
		bodyBuffers.Put(buf)
		return false, nil
	}
	if hr != nil || !setBodyHeader(w, enc.ct[0]) {
		hdr := w.Header()
		hdr["Content-Type"] = enc.ct[0]
		hdr["X-Content-Type-Options"] = nosniff
	}
	w.WriteHeader(status)
	w.Write(body) //nolint:errcheck // a failed write means the client went away
	if cap(body) <= maxPooledBody {
		*buf = body[:0] // Write does not keep what it is given
		bodyBuffers.Put(buf)
	}
	return true, nil
}

// writeAny is write for any output.
func (o *Output) writeAny(w http.ResponseWriter, hr *http.Request, req *Request, p addr.Addr, status int, enc *Encoders) error {
	var rd io.Reader // a reader body, nil for any other
	if o.bodyKind == outReader || o.bodyKind == outReaderValue {
		if rd = o.reader(p); rd != nil {
			if c, ok := rd.(io.Closer); ok {
				defer func() {
					if rd != nil { // nil once a BodyStreamer took it
						c.Close()
					}
				}()
			}
		}
	}
	if o.hasStatus {
		if s := *addr.As[int](p.Field(o.statusOff)); s != 0 && s != status {
			if o.statuses != nil && !slices.Contains(o.statuses, s) {
				return fmt.Errorf("respond: the output's Status %d is not one its enum tag lists %v", s, o.statuses)
			}
			status = s
		}
	}
	chosen := enc.fixed // chosen before (Encoders.Chosen), or -1
	if chosen < 0 {
		chosen = 0
		if o.bodyKind == outJSON && (hr != nil || req != nil) && !operation.NoBody(status) {
			// A response without a body is never refused for its media type.
			if chosen = enc.negotiate(requestHeader(hr, req)["Accept"]); chosen < 0 {
				return ErrNotAcceptable
			}
		}
	}
	hdr := w.Header()
	if o.bodyKind == outJSON && len(enc.list) > 1 {
		// The body depends on Accept: a cache must not answer another
		// request with it (RFC 9110 section 12.5.5), 304s included.
		if v := hdr["Vary"]; v == nil {
			hdr["Vary"] = varyAccept
		} else {
			hdr["Vary"] = append(v[:len(v):len(v)], "Accept")
		}
	}
	if len(o.headers) > 0 {
		// One allocation holds every single-valued header's value slice.
		vals := make([]string, len(o.headers))
		for i := range o.headers {
			h := &o.headers[i]
			fp := p.Field(h.offset)
			if h.multi {
				if list := *addr.As[[]string](fp); len(list) > 0 {
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
	cookiesBefore := -1 // retract's: the output adds no cookie
	if len(o.cookies) > 0 {
		cookiesBefore = len(hdr["Set-Cookie"])
	}
	for _, c := range o.cookies {
		c.write(hdr, p.Field(c.offset))
	}
	if o.validators && (hr != nil || req != nil) && status >= 200 && status < 300 {
		lm := o.modTime(p, hdr)
		if o.lastModifiedKind != 0 && !lm.IsZero() {
			var ctx context.Context
			if hr != nil {
				ctx = hr.Context()
			} else if ctx = req.Context; ctx == nil {
				ctx = context.Background()
			}
			if t, ok := ctx.Value(modTimeKey{}).(*time.Time); ok {
				*t = lm
			}
		}
		if m := requestMethod(hr, req); m == http.MethodGet || m == http.MethodHead {
			switch evaluateRead(requestHeader(hr, req), headerValue(hdr, "Etag"), lm) {
			case unmetOnRead:
				o.retract(hdr, cookiesBefore)
				return ErrPreconditionFailed
			case notModified:
				if status == http.StatusOK {
					status = http.StatusNotModified
				}
			}
		}
	}
	// Every answer is nosniff, set where each is written, after the
	// header lookups: a lookup in an empty header costs nothing, in one
	// that holds a key it hashes.
	if operation.NoBody(status) {
		// 204, 205 and 304 carry no body, whatever the output holds.
		hdr["X-Content-Type-Options"] = nosniff
		w.WriteHeader(status)
		return nil
	}
	bp := p.Field(o.bodyOff)
	var lm time.Time // for If-Range
	if o.seekable && requestHeader(hr, req)["If-Range"] != nil {
		lm = o.modTime(p, hdr)
	}
	switch o.bodyKind {
	case outBytes:
		b := *addr.As[[]byte](bp)
		_, err := o.writeRanged(w, hr, req, lm, hdr, status, ranged{data: b, size: int64(len(b))}, cookiesBefore)
		return err
	case outReader, outReaderValue:
		if rd != nil && o.seekable {
			body, err := seekable(rd.(io.ReadSeeker))
			if err != nil {
				o.retract(hdr, cookiesBefore)
				return fmt.Errorf("respond: the body's size: %w", err)
			}
			streamed, err := o.writeRanged(w, hr, req, lm, hdr, status, body, cookiesBefore)
			if streamed {
				rd = nil // the writer sends and closes it
			}
			return err
		}
		if !o.ctHeader || hdr["Content-Type"] == nil {
			hdr["Content-Type"] = o.rawDefault
		}
		hdr["X-Content-Type-Options"] = nosniff
		w.WriteHeader(status)
		if rd != nil && requestMethod(hr, req) != http.MethodHead {
			if bs, ok := w.(BodyStreamer); ok && bs.StreamBody(rd) {
				rd = nil // the writer sends and closes it
			} else {
				d := newDeadlines(w, hr)
				copyFlushing(w, &d, rd)
				d.done()
			}
		}
		return nil
	}
	c := enc.list[chosen].Codec
	var (
		body []byte
		err  error
		buf  *[]byte
	)
	if o.flat != nil && c == codec.JSON {
		buf = bodyBuffers.Get().(*[]byte)
		var ok bool
		if body, ok = o.flat((*buf)[:0], bp); !ok {
			// A value JSON has no encoding for (a NaN): the codec's answer,
			// its error.
			body, err = c.Marshal(bp.Value(o.bodyType).Addr().Interface())
		}
	} else if a, ok := c.(codec.Appender); ok {
		buf = bodyBuffers.Get().(*[]byte)
		body, err = a.AppendMarshal((*buf)[:0], bp.Value(o.bodyType).Addr().Interface())
	} else {
		body, err = c.Marshal(bp.Value(o.bodyType).Addr().Interface())
	}
	if err != nil {
		if buf != nil {
			bodyBuffers.Put(buf)
		}
		o.retract(hdr, cookiesBefore)
		return fmt.Errorf("encoding the response body: %w", err)
	}
	if !o.ctHeader || hdr["Content-Type"] == nil || chosen != 0 {
		// The output's own Content-Type stands for the default encoding.
		if hr != nil || !setBodyHeader(w, enc.ct[chosen]) {
			hdr["Content-Type"] = enc.ct[chosen]
			hdr["X-Content-Type-Options"] = nosniff
		}
	} else {
		hdr["X-Content-Type-Options"] = nosniff
	}
	w.WriteHeader(status)
	w.Write(body) //nolint:errcheck // a failed write means the client went away
	if buf != nil && cap(body) <= maxPooledBody {
		*buf = body[:0] // Write does not keep what it is given
		bodyBuffers.Put(buf)
	}
	return nil
}

// requestMethod is the method of hr, else of req, else "".
func requestMethod(hr *http.Request, req *Request) string {
	switch {
	case hr != nil:
		return hr.Method
	case req != nil:
		return req.Method
	}
	return ""
}

// requestHeader is the header of hr, else of req, else nil.
func requestHeader(hr *http.Request, req *Request) http.Header {
	switch {
	case hr != nil:
		return hr.Header
	case req != nil:
		return req.Header
	}
	return nil
}

// retract takes back what Write set in hdr for an answer that becomes an
// error: nothing the output set goes with it (a session cookie, an ETag,
// a Location). cookiesBefore is how many Set-Cookie lines hdr had before
// the output's cookies, -1 when the output has none.
func (o *Output) retract(hdr http.Header, cookiesBefore int) {
	for i := range o.headers {
		delete(hdr, o.headers[i].name)
	}
	if cookiesBefore < 0 {
		return
	}
	if c := hdr["Set-Cookie"]; len(c) > cookiesBefore {
		if cookiesBefore == 0 {
			delete(hdr, "Set-Cookie")
		} else {
			hdr["Set-Cookie"] = c[:cookiesBefore]
		}
	}
}

// reader is the reader body of the output at p, nil when it has none.
func (o *Output) reader(p addr.Addr) io.Reader {
	bp := p.Field(o.bodyOff)
	if o.bodyKind == outReader {
		return *addr.As[io.Reader](bp)
	}
	if v := bp.Value(o.bodyType); !(v.Kind() == reflect.Pointer && v.IsNil()) {
		return v.Interface().(io.Reader)
	}
	return nil
}

// Discard closes the body of out, an output that will not be written
// (its handler also returned an error), when the body is an io.Closer.
// out is a *O of the compiled type, or nil.
func (o *Output) Discard(out any) {
	if out == nil || (o.bodyKind != outReader && o.bodyKind != outReaderValue) || reflect.TypeOf(out) != o.ptrType {
		return
	}
	v := reflect.ValueOf(out)
	if v.IsNil() {
		return
	}
	if c, ok := o.reader(addr.OfValue(v)).(io.Closer); ok {
		c.Close() //nolint:errcheck // nothing was sent
	}
}

// modTime is the output's modification time: its time.Time Last-Modified
// field at full precision, else the Last-Modified header field it set
// (whole seconds), else zero.
func (o *Output) modTime(p addr.Addr, hdr http.Header) time.Time {
	switch o.lastModifiedKind {
	case lastModifiedTime:
		return *addr.As[time.Time](p.Field(o.lastModified))
	case lastModifiedPointer:
		if t := *addr.As[*time.Time](p.Field(o.lastModified)); t != nil {
			return *t
		}
		return time.Time{}
	}
	if v := headerValue(hdr, "Last-Modified"); v != "" {
		t, _ := http.ParseTime(v)
		return t
	}
	return time.Time{}
}

type modTimeKey struct{}

// WithModTime returns ctx for a request whose answer the caller captures
// to evaluate preconditions on it (as vane.MergePatch does with the GET
// it makes): Write stores in *t the modification time of the answer's
// time.Time Last-Modified field at its full precision, which the header
// field, an HTTP date, gives to the second only.
func WithModTime(ctx context.Context, t *time.Time) context.Context {
	return context.WithValue(ctx, modTimeKey{}, t)
}

// ErrPreconditionFailed is Write's error when the request's If-Match or
// If-Unmodified-Since fails for the answer it would get: the caller
// answers 412 Precondition Failed.
var ErrPreconditionFailed = errors.New("respond: a precondition failed")

// NoContent answers 204 No Content, with X-Content-Type-Options: nosniff
// as every answer Write sends: an operation's answer when its handler
// returns a nil output.
func NoContent(w http.ResponseWriter) {
	w.Header()["X-Content-Type-Options"] = nosniff
	w.WriteHeader(http.StatusNoContent)
}

// bodyBuffers hold the buffers JSON bodies are encoded into, by a codec
// that can append (codec.Appender); a buffer that grew past maxPooledBody
// is left to the garbage collector.
var bodyBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

const maxPooledBody = 64 << 10

// Responses returns the responses the operation d, whose output o is, can
// answer with: its success response (d.Status, with o's headers and body),
// the responses documented in extra (status: description), a 204 when o is
// Empty (a nil output), and the errors vane itself answers with
// (operation.ErrorStatuses), each with the problem+json schema from reg.
// The success response comes first, the others by status.
func (o *Output) Responses(d *operation.Description, extra map[int]string, reg *schema.Registry, enc *Encoders) ([]operation.Response, error) {
	probSchema, err := reg.Schema(reflect.TypeFor[problem.Details]())
	if err != nil {
		return nil, err
	}
	probContent := []operation.Content{{MediaType: problem.ContentType, Schema: probSchema}}
	success := operation.Response{Status: d.Status, Description: http.StatusText(d.Status), Headers: o.headerDocs}
	if o.bodySchema != nil && !operation.NoBody(d.Status) {
		success.Content = []operation.Content{{MediaType: o.mediaType, Schema: o.bodySchema}}
		if len(o.rawTypes) > 0 {
			success.Content = success.Content[:0]
			for _, mt := range o.rawTypes {
				success.Content = append(success.Content, operation.Content{MediaType: mt,
					Schema: &schema.Schema{Type: schema.TypeString, ContentMediaType: mt, Description: o.bodySchema.Description}})
			}
		}
		if o.bodyKind == outJSON && enc != nil {
			success.Content = success.Content[:0]
			for _, mt := range enc.MediaTypes() {
				success.Content = append(success.Content, operation.Content{MediaType: mt, Schema: o.bodySchema})
			}
		}
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
	for status, desc := range extra {
		add(status, desc)
	}
	for _, status := range o.statuses {
		if status != success.Status && !slices.ContainsFunc(list, func(r operation.Response) bool { return r.Status == status }) {
			r := success
			r.Status, r.Description = status, http.StatusText(status)
			if operation.NoBody(status) {
				r.Content = nil
			}
			list = append(list, r)
		}
	}
	if o.validators && (d.Method == http.MethodGet || d.Method == http.MethodHead) {
		add(http.StatusNotModified, "Not Modified: the representation matches the request's If-None-Match or If-Modified-Since")
		add(http.StatusPreconditionFailed, "Precondition Failed: the representation's ETag does not match If-Match, or it was modified after If-Unmodified-Since")
	}
	if o.seekable && d.Status == http.StatusOK && d.Method == http.MethodGet {
		list[0].Headers = append(slices.Clip(list[0].Headers), acceptRangesDoc)
		partial := list[0]
		partial.Status = http.StatusPartialContent
		partial.Description = "Partial Content: the byte ranges the request's Range asks for (RFC 9110 section 14), " +
			"when its If-Range, if any, names this representation; several ranges come as multipart/byteranges."
		partial.Headers = append(slices.Clip(partial.Headers), contentRangeDoc)
		partial.Content = append(slices.Clip(partial.Content), operation.Content{MediaType: "multipart/byteranges",
			Schema: &schema.Schema{Type: schema.TypeString, ContentMediaType: "multipart/byteranges"}})
		list = append(list, partial)
		add(http.StatusRequestedRangeNotSatisfiable, "Range Not Satisfiable: no range in Range lies within the body, whose size Content-Range gives")
		for i := range list {
			if list[i].Status == http.StatusRequestedRangeNotSatisfiable {
				list[i].Headers = []operation.Header{unsatisfiedRangeDoc}
			}
		}
	}
	if o.empty {
		// A nil output is answered 204, and an output that can only be
		// {} is usually returned nil: document both answers.
		add(http.StatusNoContent, "")
	}
	for _, status := range operation.ErrorStatuses(d) {
		add(status, "")
	}
	switch d.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
	default:
		add(http.StatusPreconditionFailed, "Precondition Failed: If-Match names entity tags, and this operation's resource has none to match")
	}
	if o.Negotiated(d.Status) && enc != nil {
		add(http.StatusNotAcceptable, "Not Acceptable: none of the media types in Accept can be sent")
	}
	sort.SliceStable(list[1:], func(i, j int) bool { return list[1+i].Status < list[1+j].Status })
	return list, nil
}

// EventStreamType is the media type of server-sent events.
const EventStreamType = "text/event-stream"

// EventStream returns the responses of the operation d when it answers
// with server-sent events: 200 text/event-stream, whose schema is a oneOf
// of the event components events (their $refs, each the envelope of one
// event), with a discriminator on their event member (mapping: each event
// name to its $ref); the errors vane answers before a stream starts
// (operation.ErrorStatuses: a stream is not negotiated, so no 406); the
// responses documented in extra; and 503 for a server at its limit of
// open streams. The success response comes first, the others by status.
func EventStream(d *operation.Description, events []*schema.Schema, mapping map[string]string, extra map[int]string, reg *schema.Registry) ([]operation.Response, error) {
	probSchema, err := reg.Schema(reflect.TypeFor[problem.Details]())
	if err != nil {
		return nil, err
	}
	probContent := []operation.Content{{MediaType: problem.ContentType, Schema: probSchema}}
	list := []operation.Response{{Status: http.StatusOK, Description: "A stream of server-sent events; each event's data is JSON.",
		Content: []operation.Content{{MediaType: EventStreamType, Schema: &schema.Schema{OneOf: events,
			Discriminator: &schema.Discriminator{PropertyName: "event", Mapping: mapping}}}}}}
	add := func(status int, desc string) {
		if slices.ContainsFunc(list, func(r operation.Response) bool { return r.Status == status }) {
			return
		}
		if desc == "" {
			desc = http.StatusText(status)
		}
		list = append(list, operation.Response{Status: status, Description: desc, Content: probContent})
	}
	for status, desc := range extra {
		add(status, desc)
	}
	for _, status := range operation.ErrorStatuses(d) {
		add(status, "")
	}
	add(http.StatusServiceUnavailable, "Service Unavailable: the server has as many event streams open as it allows; retry after the Retry-After header's seconds.")
	sort.SliceStable(list[1:], func(i, j int) bool { return list[1+i].Status < list[1+j].Status })
	return list, nil
}

var (
	cookieType      = reflect.TypeFor[http.Cookie]()
	cookiePtrType   = reflect.TypeFor[*http.Cookie]()
	cookieSliceType = reflect.TypeFor[[]*http.Cookie]()
)

// cookieField is an output field of type http.Cookie, *http.Cookie or
// []*http.Cookie: each cookie it holds is a Set-Cookie line.
type cookieField struct {
	offset uintptr
	typ    reflect.Type
}

func (c cookieField) write(h http.Header, p addr.Addr) {
	add := func(ck *http.Cookie) {
		if ck != nil && ck.Name != "" {
			if v := ck.String(); v != "" {
				h["Set-Cookie"] = append(h["Set-Cookie"], v)
			}
		}
	}
	switch c.typ {
	case cookieType:
		add(addr.As[http.Cookie](p))
	case cookiePtrType:
		add(*addr.As[*http.Cookie](p))
	default:
		for _, ck := range *addr.As[[]*http.Cookie](p) {
			add(ck)
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
