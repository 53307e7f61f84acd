package bind

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"unsafe"

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
	typ       reflect.Type // the Body field's type
	required  bool         // a non-pointer Body: an empty body is an error
	form      []param      // bodyForm: the form fields (values and files)
	multipart bool         // bodyForm: some field is a file, so only multipart/form-data
	accept    string       // the accepted media types, for 415 messages
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
			// Files too: their doc, deprecated, maxItems … tags count.
			// Values are text, as parameters are (a time.Duration is "1m30s").
			fs, err := cfg.Registry.TextSchema(&schema.Field{Name: name, GoName: ff.Name, Index: ff.Index, Type: ff.Type, Tag: ff.Tag, Struct: ff})
			if err != nil {
				return nil, nil, fmt.Errorf("form field %s: %v", ff.Name, err)
			}
			bb.form = append(bb.form, p)
			sch.Properties[name] = fs
			sch.PropertyOrder = append(sch.PropertyOrder, name)
			if p.required {
				sch.Required = append(sch.Required, name)
			}
		}
		bb.accept = "multipart/form-data"
		rb.Content = []operation.Content{{MediaType: "multipart/form-data", Schema: sch}}
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
		rb.Content = []operation.Content{{MediaType: "application/json", Schema: sch}}
	}
	rb.Required = bb.required
	return bb, rb, nil
}

func (b *Binder) bindBody(req *http.Request, base unsafe.Pointer, st *State) *problem.Details {
	bb := b.body
	dst := unsafe.Add(base, bb.offset)
	switch bb.kind {
	case bodyReader:
		body := req.Body
		if body == nil {
			body = http.NoBody
		} else if b.limit > 0 {
			body = http.MaxBytesReader(nil, body, b.limit)
		}
		reflect.NewAt(bb.typ, dst).Elem().Set(reflect.ValueOf(body))
		return nil
	case bodyForm:
		return b.bindForm(req, base, st)
	}
	ct := req.Header["Content-Type"]
	mt := ""
	if len(ct) > 0 {
		mt = mediaType(ct[0])
	}
	if bb.kind == bodyJSON && mt != "" && !isJSON(mt) {
		return unsupported(mt, bb.accept)
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
		*(*[]byte)(dst) = append([]byte(nil), data...) // the handler may keep it; the buffer is pooled
		return nil
	}
	if err := b.codec.Unmarshal(data, reflect.NewAt(bb.typ, dst).Interface()); err != nil {
		return decodeProblem(err)
	}
	st.RawJSON = data
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

func (b *Binder) bindForm(req *http.Request, base unsafe.Pointer, st *State) *problem.Details {
	bb := b.body
	ct := req.Header.Get("Content-Type")
	mt := mediaType(ct)
	var errs []problem.FieldError
	switch {
	case mt == "application/x-www-form-urlencoded" && !bb.multipart:
		data, prob := b.readBody(req, st)
		if prob != nil {
			return prob
		}
		errs = bindPairs(bb.form, string(data), base, st, nil)
	case mt == "multipart/form-data":
		if req.Body == nil {
			req.Body = http.NoBody
		}
		if b.limit > 0 {
			if req.ContentLength > b.limit {
				return tooLarge(b.limit)
			}
			req.Body = http.MaxBytesReader(nil, req.Body, b.limit)
		}
		mem := b.limit
		if mem <= 0 || mem > 32<<20 {
			mem = 32 << 20
		}
		if err := req.ParseMultipartForm(mem); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return tooLarge(mbe.Limit)
			}
			return problem.New(http.StatusBadRequest, "malformed multipart form: "+err.Error())
		}
		form := req.MultipartForm
		for i := range bb.form {
			p := &bb.form[i]
			dst := unsafe.Add(base, p.offset)
			if p.parse == nil { // files
				files := form.File[p.name]
				if len(files) == 0 {
					if p.required {
						errs = append(errs, problem.FieldError{Location: p.loc, Message: "required file is missing"})
					}
					continue
				}
				if p.slice != nil {
					*(*[]*multipart.FileHeader)(dst) = files
				} else {
					*(**multipart.FileHeader)(dst) = files[0]
				}
				st.Present |= p.bit
				continue
			}
			vals := form.Value[p.name]
			if len(vals) == 0 {
				errs = p.absent(base, st, errs)
				continue
			}
			// Sent, so present: checked by its rules even at its zero
			// value, unless a value did not parse (reported here).
			ok := true
			for j, v := range vals {
				var err error
				if p.slice != nil {
					err = p.setSlice(dst, v)
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
	case mt == "" && !bb.required:
		return nil
	default:
		return unsupported(mt, bb.accept)
	}
	if errs != nil {
		return problem.New(http.StatusUnprocessableEntity, "validation failed", errs...)
	}
	return nil
}

// bindPairs binds the pairs of a query string or urlencoded form to ps in
// one pass: for each key, the first matching parameter takes the value
// (the first value wins for a scalar; a slice collects all, splitting
// commas). Then absent parameters get their defaults or are reported.
func bindPairs(ps []param, raw string, base unsafe.Pointer, st *State, errs []problem.FieldError) []problem.FieldError {
	var seen uint64 // which of the first 64 params were given
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		key, val, _ := strings.Cut(pair, "=")
		if needsUnescape(key) {
			k, err := url.QueryUnescape(key)
			if err != nil {
				continue
			}
			key = k
		}
		for i := range ps {
			p := &ps[i]
			if p.name != key {
				continue
			}
			var bit uint64
			if i < 64 {
				bit = 1 << i
			}
			if p.slice == nil && seen&bit != 0 {
				break // the first value wins, as url.Values.Get
			}
			seen |= bit
			if needsUnescape(val) {
				v, err := url.QueryUnescape(val)
				if err != nil {
					errs = append(errs, problem.FieldError{Location: p.loc, Message: "invalid URL escape", Value: val})
					break
				}
				val = v
			}
			dst := unsafe.Add(base, p.offset)
			var err error
			if p.slice != nil {
				if val == "" {
					break // ?tag= adds nothing
				}
				err = p.setSlice(dst, val)
			} else {
				err = p.set(val, dst)
			}
			if err != nil {
				errs = append(errs, fieldErr(p.loc, err, val))
			} else {
				st.Present |= p.bit
			}
			break
		}
	}
	for i := range ps {
		if i < 64 && seen&(1<<i) != 0 {
			continue
		}
		errs = ps[i].absent(base, st, errs)
	}
	return errs
}
