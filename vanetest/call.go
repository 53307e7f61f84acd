package vanetest

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vane-http/vane/internal/textvalue"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// Call sends the operation whose operationId is id the request that in
// describes, served and checked as Serve does, and returns its output, or
// the problem it answered with. The output is nil for a 204 or 304 (and
// so is the problem).
//
// The request is made from in as the operation binds it, in reverse: path
// parameters fill the pattern; a query, header or cookie parameter is
// sent when it is required or its field is not the zero value (a nil
// pointer is never sent), in its documented style; the Body is encoded as
// the operation's first media type says: JSON, raw bytes, or a form
// (application/x-www-form-urlencoded, or multipart/form-data when the form
// has files), whose fields are sent when required or not zero. A file
// field's *multipart.FileHeader is sent with its file name, Content-Type
// and content: make one with [File].
//
// opts add headers and cookies that the input does not hold, such as the
// Authorization that middleware in front of the operation checks; they
// replace a header or cookie of the same name that the input gave. The
// options of [API.With] are added beneath both.
//
// The output is decoded as vane writes it: for an output struct with a
// Body field, its header fields from the response headers, its Status
// field from the status, and Body from the body; otherwise the whole
// output from the body.
//
// Call fails the test (t.Fatalf) when no operation has the id, when I and
// O are not its input and output types, or when the response cannot be
// decoded; it returns nil, nil then if t.Fatalf returns.
func Call[I, O any](a *API, id string, in *I, opts ...RequestOption) (*O, *problem.Details) {
	a.t.Helper()
	var d *operation.Description
	for _, op := range a.r.Operations() {
		if op.ID == id {
			d = op
		}
	}
	if d == nil {
		a.t.Fatalf("vanetest: no operation has the ID %q", id)
		return nil, nil
	}
	if it, ot := reflect.TypeFor[I](), reflect.TypeFor[O](); d.Input != it || d.Output != ot {
		a.t.Fatalf("vanetest: operation %q takes %v and returns %v, not %v and %v", id, d.Input, d.Output, it, ot)
		return nil, nil
	}
	req, raw, err := NewRequest(d, in)
	if err != nil {
		a.t.Fatalf("vanetest: %v", err)
		return nil, nil
	}
	for _, o := range opts {
		o.apply(req, false)
	}
	a.applyDefaults(req)
	res := a.Serve(req, raw)
	if res.Code >= 400 {
		return nil, Problem(a.t, res)
	}
	if res.Code == http.StatusNoContent || res.Code == http.StatusNotModified {
		return nil, nil
	}
	out := new(O)
	if err := decodeOutput(res.ResponseRecorder, reflect.ValueOf(out).Elem()); err != nil {
		a.t.Fatalf("vanetest: %s: decoding the %d response: %v", id, res.Code, err)
		return nil, nil
	}
	return out, nil
}

// NewRequest returns the request that sends the operation d the input in
// (a pointer to d.Input), made as Call makes it, and its body (nil for
// none), for Serve.
func NewRequest(d *operation.Description, in any) (*http.Request, []byte, error) {
	v := reflect.ValueOf(in)
	if v.Kind() != reflect.Pointer || v.Type().Elem() != d.Input || v.IsNil() {
		return nil, nil, fmt.Errorf("%s: input %T is not a non-nil *%v", d.ID, in, d.Input)
	}
	v = v.Elem()
	path := d.Pattern
	query := url.Values{}
	header := http.Header{}
	var cookies []*http.Cookie
	for _, p := range d.Parameters {
		f := v.FieldByName(p.Field)
		if !f.IsValid() {
			return nil, nil, fmt.Errorf("%s: no field %s", d.ID, p.Field)
		}
		if !p.Required && f.IsZero() {
			continue
		}
		switch p.In {
		case operation.InPath:
			s, err := text(f, p.Schema)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %s: %w", d.ID, p.Field, err)
			}
			path = fillPath(path, p.Name, s)
		case operation.InCookie:
			switch c := f.Interface().(type) {
			case http.Cookie:
				cookies = append(cookies, &http.Cookie{Name: p.Name, Value: c.Value, Quoted: c.Quoted})
			case *http.Cookie:
				if c != nil {
					cookies = append(cookies, &http.Cookie{Name: p.Name, Value: c.Value, Quoted: c.Quoted})
				}
			default:
				s, err := text(f, p.Schema)
				if err != nil {
					return nil, nil, fmt.Errorf("%s: %s: %w", d.ID, p.Field, err)
				}
				cookies = append(cookies, &http.Cookie{Name: p.Name, Value: s})
			}
		default:
			vals, err := paramValues(f, &p)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %s: %w", d.ID, p.Field, err)
			}
			for k, list := range vals {
				if p.In == operation.InHeader {
					header[http.CanonicalHeaderKey(k)] = append(header[http.CanonicalHeaderKey(k)], list...)
				} else {
					query[k] = append(query[k], list...)
				}
			}
		}
	}
	target := path
	if len(query) > 0 {
		var pairs []string
		for _, k := range slices.Sorted(maps.Keys(query)) {
			for _, v := range query[k] {
				if raw, ok := strings.CutPrefix(v, rawPrefix); ok {
					pairs = append(pairs, url.QueryEscape(k)+"="+raw)
				} else {
					pairs = append(pairs, url.QueryEscape(k)+"="+url.QueryEscape(v))
				}
			}
		}
		target += "?" + strings.Join(pairs, "&")
	}
	var raw []byte
	ct := ""
	if rb := d.RequestBody; rb != nil && len(rb.Content) > 0 {
		f := v.FieldByName(rb.Field)
		b, t, err := encodeBody(f, rb.Content[0].MediaType)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s: %w", d.ID, rb.Field, err)
		}
		raw, ct = b, t
	}
	var body io.Reader
	if raw != nil {
		body = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(d.Method, target, body)
	for k, vs := range header {
		req.Header[k] = vs
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	return req, raw, nil
}

// fillPath puts value in place of {name} or {name...} in pattern.
func fillPath(pattern, name, value string) string {
	if strings.Contains(pattern, "{"+name+"...}") {
		return strings.Replace(pattern, "{"+name+"...}", (&url.URL{Path: value}).EscapedPath(), 1)
	}
	return strings.Replace(pattern, "{"+name+"}", url.PathEscape(value), 1)
}

// rawPrefix marks a query value that is already escaped.
const rawPrefix = "\x00raw:"

// paramValues returns the query keys (or header name) and values that
// send f as the parameter p.
func paramValues(f reflect.Value, p *operation.Parameter) (map[string][]string, error) {
	for f.Kind() == reflect.Pointer {
		if f.IsNil() {
			return nil, nil
		}
		f = f.Elem()
	}
	out := map[string][]string{}
	switch {
	case p.Style == "deepObject":
		switch f.Kind() {
		case reflect.Map:
			iter := f.MapRange()
			for iter.Next() {
				s, err := text(iter.Value(), nil)
				if err != nil {
					return nil, err
				}
				out[fmt.Sprintf("%s[%v]", p.Name, iter.Key())] = []string{s}
			}
		case reflect.Struct:
			for _, sf := range schema.Fields(f.Type()) {
				fv := f.FieldByIndex(sf.Index)
				if fv.IsZero() {
					continue
				}
				s, err := text(fv, nil)
				if err != nil {
					return nil, err
				}
				out[p.Name+"["+sf.Name+"]"] = []string{s}
			}
		}
		return out, nil
	case f.Kind() == reflect.Slice && f.Type() != reflect.TypeFor[[]byte]() && !reflect.PointerTo(f.Type()).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()):
		var items []string
		for i := 0; i < f.Len(); i++ {
			s, err := text(f.Index(i), itemSchema(p.Schema))
			if err != nil {
				return nil, err
			}
			items = append(items, s)
		}
		exploded := p.Explode == nil || *p.Explode
		switch {
		case p.In == operation.InHeader:
			out[p.Name] = []string{strings.Join(items, ", ")}
		case p.Style == "spaceDelimited":
			out[p.Name] = []string{strings.Join(items, " ")}
		case p.Style == "pipeDelimited":
			out[p.Name] = []string{strings.Join(items, "|")}
		case !exploded:
			// One key, values separated by commas: a comma inside a
			// value is sent escaped, the separators as they are.
			for i, s := range items {
				items[i] = url.QueryEscape(s)
			}
			out[p.Name] = []string{rawPrefix + strings.Join(items, ",")}
		default:
			if len(items) == 0 {
				return out, nil
			}
			out[p.Name] = items
		}
		return out, nil
	}
	s, err := text(f, p.Schema)
	if err != nil {
		return nil, err
	}
	out[p.Name] = []string{s}
	return out, nil
}

func itemSchema(s *schema.Schema) *schema.Schema {
	if s == nil {
		return nil
	}
	return s.Items
}

// text formats one scalar value as a parameter's text, as package bind
// parses it.
func text(v reflect.Value, s *schema.Schema) (string, error) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", nil
		}
		v = v.Elem()
	}
	switch x := v.Interface().(type) {
	case time.Time:
		if s != nil && s.Format == "date" {
			return x.Format(time.DateOnly), nil
		}
		return x.Format(time.RFC3339Nano), nil
	case time.Duration:
		return x.String(), nil
	case []byte:
		return string(x), nil
	case encoding.TextMarshaler:
		b, err := x.MarshalText()
		return string(b), err
	}
	if v.CanAddr() {
		if m, ok := v.Addr().Interface().(encoding.TextMarshaler); ok {
			b, err := m.MarshalText()
			return string(b), err
		}
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), nil
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), nil
	}
	return "", fmt.Errorf("a %v cannot be sent as text", v.Type())
}

// encodeBody encodes the Body field f as media type mt.
func encodeBody(f reflect.Value, mt string) ([]byte, string, error) {
	switch {
	case mt == "application/x-www-form-urlencoded":
		form := url.Values{}
		err := formFields(f, func(name, value string) { form.Add(name, value) }, nil)
		if err != nil {
			return nil, "", err
		}
		return []byte(form.Encode()), mt, nil
	case mt == "multipart/form-data":
		m := NewMultipart()
		err := formFields(f, func(name, value string) { m.Field(name, value) }, func(name string, fh *multipart.FileHeader) error {
			return addFile(m, name, fh)
		})
		if err != nil {
			return nil, "", err
		}
		return m.Bytes(), m.ContentType(), nil
	case isJSON(mt):
		js, err := json.Marshal(f.Interface())
		if err != nil {
			return nil, "", err
		}
		return js, mt, nil
	}
	switch x := f.Interface().(type) {
	case []byte:
		return x, mt, nil
	case io.Reader:
		if x == nil {
			return nil, "", nil
		}
		b, err := io.ReadAll(x)
		return b, mt, err
	}
	return nil, "", fmt.Errorf("cannot encode a %v body as %s", f.Type(), mt)
}

// formFields calls value for each value of the form struct f and file
// for each of its files (nil: f has none), field by field, for the fields
// tagged form that are required or not zero.
func formFields(f reflect.Value, value func(name, value string), file func(string, *multipart.FileHeader) error) error {
	t := f.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, ok := sf.Tag.Lookup("form")
		fv := f.Field(i)
		if !ok || !sf.IsExported() || (fv.IsZero() && sf.Tag.Get("required") != "true") {
			continue
		}
		switch x := fv.Interface().(type) {
		case *multipart.FileHeader:
			if x != nil && file != nil {
				if err := file(name, x); err != nil {
					return err
				}
			}
			continue
		case []*multipart.FileHeader:
			for _, fh := range x {
				if fh != nil && file != nil {
					if err := file(name, fh); err != nil {
						return err
					}
				}
			}
			continue
		}
		if fv.Kind() == reflect.Slice && fv.Type() != reflect.TypeFor[[]byte]() {
			for j := 0; j < fv.Len(); j++ {
				s, err := text(fv.Index(j), nil)
				if err != nil {
					return fmt.Errorf("form field %s: %w", name, err)
				}
				value(name, s)
			}
			continue
		}
		s, err := text(fv, nil)
		if err != nil {
			return fmt.Errorf("form field %s: %w", name, err)
		}
		value(name, s)
	}
	return nil
}

// decodeOutput fills out from w as vane writes outputs.
func decodeOutput(w *httptest.ResponseRecorder, out reflect.Value) error {
	t := out.Type()
	if t.Kind() != reflect.Struct {
		return decodeBody(w, out)
	}
	if bf, ok := t.FieldByName("Body"); !ok || len(bf.Index) != 1 {
		return decodeBody(w, out)
	}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		switch {
		case sf.Name == "Body":
			if err := decodeBody(w, out.Field(i)); err != nil {
				return err
			}
		case sf.Name == "Status" && sf.Tag.Get("header") == "" && sf.Type.Kind() == reflect.Int:
			out.Field(i).SetInt(int64(w.Code))
		default:
			name, ok := sf.Tag.Lookup("header")
			if !ok {
				continue
			}
			vals := w.Header().Values(name)
			if len(vals) == 0 {
				continue
			}
			if err := setHeader(out.Field(i), vals); err != nil {
				return fmt.Errorf("header %s: %w", name, err)
			}
		}
	}
	return nil
}

func decodeBody(w *httptest.ResponseRecorder, v reflect.Value) error {
	switch v.Type() {
	case reflect.TypeFor[[]byte]():
		v.SetBytes(bytes.Clone(w.Body.Bytes()))
		return nil
	case reflect.TypeFor[io.Reader]():
		v.Set(reflect.ValueOf(bytes.NewReader(bytes.Clone(w.Body.Bytes()))))
		return nil
	}
	return json.Unmarshal(w.Body.Bytes(), v.Addr().Interface())
}

// setHeader sets a response header field from the header's values.
func setHeader(f reflect.Value, vals []string) error {
	if f.Kind() == reflect.Pointer {
		p := reflect.New(f.Type().Elem())
		if err := setHeader(p.Elem(), vals); err != nil {
			return err
		}
		f.Set(p)
		return nil
	}
	if f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String {
		f.Set(reflect.ValueOf(vals).Convert(f.Type()))
		return nil
	}
	if t, ok := f.Addr().Interface().(*time.Time); ok {
		tm, err := http.ParseTime(vals[0])
		*t = tm
		return err
	}
	return textvalue.Set(f, vals[0])
}
