package bind

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/vane-http/vane/internal/addr"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

const (
	bodyJSON = iota
	bodyBytes
	bodyReader
	bodyForm
)

type bodyBinder struct {
	kind      int
	offset    uintptr
	typ       reflect.Type         // the Body field's type
	required  bool                 // a non-pointer Body: an empty body is an error
	form      []param              // bodyForm: the form fields (values and files)
	multipart bool                 // bodyForm: some field is a file, so only multipart/form-data
	rules     map[string]*fileRule // bodyForm: the file fields with contentType, minSize or maxSize, by form name (files.go)
	streamed  bool                 // some rule is checked while the parts arrive (contentType, maxSize): read part by part
	accept    string               // the accepted media types, for 415 messages
	defaults  *bodyDefaults        // bodyJSON: the defaults of properties not sent; nil when none
	closed    codec.ClosedDecoder  // bodyJSON with RefuseUnknown: decodes refusing unknown members
}

func compileBody(f reflect.StructField, cfg *Config) (*bodyBinder, *operation.RequestBody, error) {
	bb := &bodyBinder{offset: f.Offset, typ: f.Type}
	rb := &operation.RequestBody{Description: f.Tag.Get("doc"), Field: f.Name}
	t := f.Type
	bb.required = t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && f.Tag.Get("required") != "false"
	switch {
	case t == bytesType:
		bb.kind, bb.accept = bodyBytes, "any"
		rb.Content = []operation.Content{{MediaType: "application/octet-stream", Schema: &schema.Schema{Type: schema.TypeString, ContentMediaType: "application/octet-stream"}}}
	case t == readerType || t == readCloserType:
		bb.kind, bb.accept, bb.required = bodyReader, "any", false
		rb.Content = []operation.Content{{MediaType: "application/octet-stream", Schema: &schema.Schema{Type: schema.TypeString, ContentMediaType: "application/octet-stream"}}}
	case operation.IsForm(t):
		bb.kind = bodyForm
		sch := &schema.Schema{Type: schema.TypeObject, Properties: map[string]*schema.Schema{}}
		var encoding map[string]string // the media types of constrained file parts
		for i := 0; i < t.NumField(); i++ {
			ff := t.Field(i)
			name, ok := ff.Tag.Lookup("form")
			if !ok || !ff.IsExported() {
				continue
			}
			p := param{name: name, loc: "body." + name, offset: f.Offset + ff.Offset}
			p.required = ff.Tag.Get("required") == "true"
			switch ff.Type {
			case fileHeaderPtr: // p.parse stays nil: a file
				bb.multipart = true
			case fileHeaderSlice:
				bb.multipart = true
				p.slice = ff.Type
			default:
				var err error
				if ff.Type.Kind() == reflect.Slice {
					p.slice = ff.Type
					p.parse, err = scalarParser(ff.Type.Elem(), ff.Tag.Get("format"))
				} else {
					p.parse, err = scalarParser(ff.Type, ff.Tag.Get("format"))
				}
				if err != nil {
					return nil, nil, fmt.Errorf("form field %s: %v", ff.Name, err)
				}
				if d, ok := ff.Tag.Lookup("default"); ok {
					p.def, p.hasDef = d, true
					if err := tryParse(&p, ff.Type, d); err != nil {
						return nil, nil, fmt.Errorf("form field %s: default %q: %v", ff.Name, d, err)
					}
				}
			}
			rule, err := compileFileRule(ff, p.loc, ff.Type == fileHeaderPtr || ff.Type == fileHeaderSlice)
			if err != nil {
				return nil, nil, err
			}
			// Files too: their doc, deprecated, maxItems … tags count.
			// Values are text, as parameters are (a time.Duration is "1m30s").
			fs, err := cfg.Registry.TextSchema(&schema.Field{Name: name, GoName: ff.Name, Index: ff.Index, Type: ff.Type, Tag: ff.Tag, Struct: ff})
			if err != nil {
				return nil, nil, fmt.Errorf("form field %s: %v", ff.Name, err)
			}
			if rule != nil {
				if bb.rules == nil {
					bb.rules = map[string]*fileRule{}
				}
				bb.rules[name] = rule
				bb.streamed = bb.streamed || rule.types != nil || rule.maxSize > 0
				fs = documentFile(fs, rule)
				if rule.types != nil {
					if encoding == nil {
						encoding = map[string]string{}
					}
					encoding[name] = rule.doc
				}
			}
			bb.form = append(bb.form, p)
			sch.Properties[name] = fs
			sch.PropertyOrder = append(sch.PropertyOrder, name)
			if p.required {
				sch.Required = append(sch.Required, name)
			}
		}
		// Go's multipart reader refuses a part whose header holds a control
		// character (other than tab), so the multipart form says its names
		// cannot hold one; a urlencoded form escapes them, and may.
		multi := *sch
		multi.Extensions = map[string]any{"propertyNames": map[string]any{"pattern": "^[^\\x00-\\x08\\x0a-\\x1f\\x7f]*$"}}
		bb.accept = "multipart/form-data"
		rb.Content = []operation.Content{{MediaType: "multipart/form-data", Schema: &multi, Encoding: encoding}}
		if !bb.multipart {
			bb.accept = "application/x-www-form-urlencoded or multipart/form-data"
			rb.Content = append([]operation.Content{{MediaType: "application/x-www-form-urlencoded", Schema: sch}}, rb.Content...)
		}
	default:
		bb.kind, bb.accept = bodyJSON, "application/json"
		sch, err := cfg.Registry.Schema(t)
		if err != nil {
			return nil, nil, err
		}
		if err := schema.Apply(sch, t, f.Tag); err != nil {
			return nil, nil, err
		}
		sch = cfg.Registry.Variant(sch, cfg.RefuseUnknown)
		rb.Content = []operation.Content{{MediaType: "application/json", Schema: sch}}
		if bb.defaults, err = compileDefaults(t, cfg.Registry); err != nil {
			return nil, nil, err
		}
		if cfg.RefuseUnknown {
			cd, ok := cfg.Codec.(codec.ClosedDecoder)
			if !ok {
				return nil, nil, fmt.Errorf("unknown properties are refused, but codec %T cannot refuse them (it is no codec.ClosedDecoder): use codec.JSON, or let unknown properties be ignored", cfg.Codec)
			}
			bb.closed = cd
		}
	}
	rb.Required = bb.required
	return bb, rb, nil
}

func (b *Binder) bindBody(req *Request, base addr.Addr, st *State) *problem.Details {
	bb := b.body
	dst := base.Field(bb.offset)
	if req.Header["Content-Encoding"] != nil {
		var prob *problem.Details
		if req, prob = decodeRequest(req, b.limit); prob != nil {
			return prob
		}
	}
	switch bb.kind {
	case bodyReader:
		body := req.Body
		if body == nil {
			body = http.NoBody
		} else if b.limit > 0 {
			if req.ContentLength > b.limit {
				return tooLarge(b.limit)
			}
			body = http.MaxBytesReader(nil, body, b.limit)
		}
		dst.Value(bb.typ).Set(reflect.ValueOf(body))
		return nil
	case bodyForm:
		return b.bindForm(req, base, st)
	}
	if bb.kind == bodyJSON && !bodyEmpty(req) {
		if prob := checkJSONType(req.Header["Content-Type"]); prob != nil {
			return prob
		}
	}
	data, prob := b.readBody(req, st)
	if prob != nil {
		return prob
	}
	if len(data) == 0 {
		if bb.required {
			return problem.New(http.StatusUnprocessableEntity, "validation failed", problem.FieldError{Location: "body", Message: "request body is required"})
		}
		return nil
	}
	if bb.kind == bodyBytes {
		*addr.As[[]byte](dst) = append([]byte(nil), data...) // the handler may keep it; the buffer is pooled
		return nil
	}
	var err error
	if bb.closed != nil {
		err = bb.closed.UnmarshalClosed(data, dst.Value(bb.typ).Addr().Interface())
	} else {
		err = b.codec.Unmarshal(data, dst.Value(bb.typ).Addr().Interface())
	}
	if err != nil {
		prob := decodeProblem(err)
		if prob.Status == http.StatusUnprocessableEntity {
			st.Mistyped = data
		}
		return prob
	}
	if bb.defaults != nil {
		if err := bb.defaults.apply(data, dst.Value(bb.typ)); err != nil {
			return decodeProblem(err)
		}
	}
	st.RawJSON = data
	return nil
}

// jsonAccepted names what a JSON body may be sent as, for 415 responses.
const jsonAccepted = "application/json or another application/*+json type, in UTF-8"

// checkJSONType checks the Content-Type of a JSON body: one well-formed
// value naming a JSON media type, whose charset, if any, is UTF-8.
func checkJSONType(ct []string) *problem.Details {
	if len(ct) == 0 || ct[0] == "" {
		return problem.New(http.StatusUnsupportedMediaType, "a request body needs a Content-Type; send "+jsonAccepted)
	}
	if len(ct) == 1 && (ct[0] == "application/json" || ct[0] == "application/json; charset=utf-8") {
		return nil // what clients send nearly always, known good without parsing
	}
	mt, params, ok := parseMediaType(ct[0])
	if !ok || len(ct) > 1 {
		return problem.New(http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q is malformed; send %s", strings.Join(ct, ", "), jsonAccepted))
	}
	if !isJSON(mt) {
		return unsupported(mt, jsonAccepted)
	}
	if cs, ok := mediaParam(params, "charset"); ok && !strings.EqualFold(cs, "utf-8") {
		return problem.New(http.StatusUnsupportedMediaType, fmt.Sprintf("charset %q is not supported; JSON is sent in UTF-8", cs))
	}
	return nil
}

func unsupported(mt, accept string) *problem.Details {
	return problem.New(http.StatusUnsupportedMediaType, fmt.Sprintf("content type %q is not supported; send %s", mt, accept))
}

// decodeProblem turns a decoding error into a 422 for a value of the wrong
// type, and a 400 naming the byte offset for malformed JSON, a duplicate
// key naming the key and where it is.
func decodeProblem(err error) *problem.Details {
	var dup *codec.DuplicateKeyError
	if errors.As(err, &dup) {
		return problem.New(http.StatusBadRequest,
			fmt.Sprintf("malformed JSON at byte offset %d: duplicate key %q", dup.Offset, dup.Key),
			problem.FieldError{Location: bodyLocation(dup.Path), Message: "duplicate key", Value: dup.Key})
	}
	var unknown *codec.UnknownPropertyError
	if errors.As(err, &unknown) {
		return problem.New(http.StatusUnprocessableEntity, "validation failed",
			problem.FieldError{Location: bodyLocation(unknown.Path), Message: "unknown property", Value: unknown.Key})
	}
	if te, ok := codec.AsTypeError(err); ok {
		fe := problem.FieldError{Location: bodyLocation(te.Path), Message: te.Message}
		if te.Value != "" {
			fe.Value = json.RawMessage(te.Value)
		}
		return problem.New(http.StatusUnprocessableEntity, "validation failed", fe)
	}
	var se *codec.SyntaxError
	if errors.As(err, &se) {
		detail := fmt.Sprintf("malformed JSON at byte offset %d: %s", se.Offset, se.Msg)
		if se.Path != "" {
			detail += " (in " + bodyLocation(se.Path) + ")"
		}
		return problem.New(http.StatusBadRequest, detail)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if off, ok := codec.Offset(err); ok {
		return problem.New(http.StatusBadRequest, fmt.Sprintf("malformed JSON at byte offset %d: %s", off, msg))
	}
	return problem.New(http.StatusBadRequest, "malformed JSON: "+msg)
}

// bodyLocation is the location of a value at path in the body:
// body.items[2].name, body[0] for an array body.
func bodyLocation(path string) string {
	if path == "" || path[0] == '[' {
		return "body" + path
	}
	return "body." + path
}

func (b *Binder) bindForm(req *Request, base addr.Addr, st *State) *problem.Details {
	bb := b.body
	ct := req.Header["Content-Type"]
	if bodyEmpty(req) && (len(ct) == 0 || ct[0] == "") {
		if bb.required {
			return problem.New(http.StatusUnprocessableEntity, "validation failed", problem.FieldError{Location: "body", Message: "request body is required"})
		}
		return nil
	}
	mt, params := "", ""
	ok := len(ct) == 1
	if ok {
		mt, params, ok = parseMediaType(ct[0])
	}
	if !ok {
		return problem.New(http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q is malformed or missing; send %s", strings.Join(ct, ", "), bb.accept))
	}
	var errs []problem.FieldError
	switch {
	case mt == "application/x-www-form-urlencoded" && !bb.multipart:
		data, prob := b.readBody(req, st)
		if prob != nil {
			return prob
		}
		errs = bindPairs(bb.form, string(data), base, st, nil)
	case mt == "multipart/form-data":
		form, prob := b.readMultipart(req, params, st)
		if prob != nil {
			return prob
		}
		errs = bindMultipart(bb.form, bb.rules, form, base, st)
	default:
		return unsupported(mt, bb.accept)
	}
	if errs != nil {
		return problem.New(http.StatusUnprocessableEntity, "validation failed", errs...)
	}
	return nil
}

// readMultipart reads a multipart/form-data body within the limits: the
// body limit, Config.MultipartMemory in memory and the rest of the files
// in temporary files (kept in st, for Cleanup), and mime/multipart's
// bounds on parts and headers (1000 parts, 10000 headers; GODEBUG
// multipartmaxparts and multipartmaxheaders change them).
func (b *Binder) readMultipart(req *Request, params string, st *State) (*multipart.Form, *problem.Details) {
	boundary, ok := mediaParam(params, "boundary")
	if !ok || boundary == "" || len(boundary) > 70 {
		return nil, problem.New(http.StatusBadRequest, "multipart/form-data needs a boundary parameter of 1 to 70 characters (RFC 2046 section 5.1.1)")
	}
	body := req.Body
	if body == nil {
		body = http.NoBody
	}
	if b.limit > 0 {
		if req.ContentLength > b.limit {
			return nil, tooLarge(b.limit)
		}
		body = http.MaxBytesReader(nil, body, b.limit)
	}
	var form *multipart.Form
	var err error
	if b.body.streamed {
		var prob *problem.Details
		form, prob, err = readConstrainedForm(body, boundary, b.body.rules, b.multipart)
		if prob != nil {
			return nil, prob
		}
	} else {
		form, err = multipart.NewReader(body, boundary).ReadForm(b.multipart)
	}
	if form != nil {
		st.form = form
	}
	if err != nil {
		switch {
		case errors.Is(err, multipart.ErrMessageTooLarge):
			return nil, problem.New(http.StatusRequestEntityTooLarge, "the multipart body has too many parts or headers, or values too large to keep in memory")
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil, problem.New(http.StatusBadRequest, "malformed multipart body: it ends before its closing boundary")
		}
		if pe := (*os.PathError)(nil); errors.As(err, &pe) {
			// A temporary file could not be written (a full disk): the
			// server's failure, whose path is not the client's business.
			return nil, problem.New(http.StatusInternalServerError, "the server could not keep the upload; retry later")
		}
		var mbe *http.MaxBytesError
		var ne net.Error
		if errors.As(err, &mbe) || errors.Is(err, io.ErrNoProgress) || errors.As(err, &ne) || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, errBadGzip) {
			return nil, readError(err)
		}
		// mime/multipart's messages name its own internals; the client
		// is told what is wrong in its terms.
		return nil, problem.New(http.StatusBadRequest, "malformed multipart body: a part's header lines or a boundary line are not well formed (RFC 7578, RFC 2046)")
	}
	if req.Header["Content-Encoding"] != nil {
		// The form ends at its closing boundary; the coding's data must
		// end cleanly too (within the limit), with nothing after it.
		if _, err := io.Copy(io.Discard, body); err != nil {
			return nil, readError(err)
		}
	}
	return form, nil
}

// bindMultipart binds the values and files of a multipart form.
func bindMultipart(fields []param, rules map[string]*fileRule, form *multipart.Form, base addr.Addr, st *State) []problem.FieldError {
	var errs []problem.FieldError
	for i := range fields {
		p := &fields[i]
		dst := base.Field(p.offset)
		if p.parse == nil { // files
			files := form.File[p.name]
			if len(files) == 0 {
				if p.required {
					errs = append(errs, problem.FieldError{Location: p.loc, Message: "required file is missing"})
				}
				continue
			}
			if r := rules[p.name]; r != nil && r.minSize > 0 {
				if small := slices.IndexFunc(files, func(f *multipart.FileHeader) bool { return f.Size < r.minSize }); small >= 0 {
					errs = append(errs, problem.FieldError{Location: p.loc, Message: "the file is smaller than " + FormatSize(r.minSize), Value: files[small].Size})
					continue
				}
			}
			if p.slice != nil {
				*addr.As[[]*multipart.FileHeader](dst) = files
			} else if len(files) > 1 {
				// One file expected: taking either would leave the other
				// unread by one reader and read by another.
				errs = append(errs, problem.FieldError{Location: p.loc, Message: string(errRepeatedFile)})
				continue
			} else {
				*addr.As[*multipart.FileHeader](dst) = files[0]
			}
			st.Present |= p.bit
			continue
		}
		vals := form.Value[p.name]
		if len(vals) == 0 {
			errs = p.absent(base, st, errs)
			continue
		}
		if p.slice == nil && len(vals) > 1 {
			// As in a query or an urlencoded form: one value expected.
			errs = append(errs, fieldErr(p.loc, errRepeated, vals[1]))
			continue
		}
		// Sent, so present: checked by its rules even at its zero
		// value, unless a value did not parse (reported here).
		ok := true
		for j, v := range vals {
			var err error
			if p.slice != nil {
				err = p.setList(dst, v, false)
			} else if j == 0 {
				err = p.parse(v, dst)
			}
			if err != nil {
				errs = append(errs, fieldErr(p.loc, err, v))
				ok = false
			}
		}
		if ok {
			st.Present |= p.bit
		}
	}
	return errs
}
