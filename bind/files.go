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

	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// The constraints of a file field of a multipart form, in its tags:
//
//	Photo *multipart.FileHeader `form:"photo" contentType:"image/png,image/jpeg" minSize:"1" maxSize:"5MiB"`
//
// contentType lists the media types (or ranges, image/*) a file of the
// field may be sent as, in its part's Content-Type; a part without one
// is application/octet-stream (RFC 7578 section 4.4). maxSize bounds each
// file's size: a number of bytes, with an optional unit B, KB, MB, GB
// (powers of 1000) or KiB, MiB, GiB (powers of 1024). minSize, in the same
// units, is the least each file may have ("1": not empty); a smaller file
// is a 422 naming the field, once the body is read. The document gives
// minSize as the file's minLength (bytes), and both in its description. A
// file field's sizes are these tags: minLength and maxLength are refused
// on it.
//
// They are checked as the body is read, before the handler runs: a file
// of another type is refused (422, with the field's location) when its
// part's header arrives, before any of its bytes is read, and a file
// larger than maxSize (413, with the field's location) once maxSize + 1
// of its bytes have been read; the rest of the body is not read. 422,
// since a part's media type is the value of one field, not the request's
// own media type, which is what 415 is about; 413, since the content is
// too large, and the server stops reading it.

// fileRule is the constraints of one file field.
type fileRule struct {
	loc     string   // body.photo
	types   []string // media types or ranges, lower case; nil: any
	maxSize int64    // 0: no limit of its own
	minSize int64    // 0: none
	doc     string   // the types, as written in the tag
}

// compileFileRule reads the contentType, minSize and maxSize tags of a
// form field; nil when it has none.
func compileFileRule(ff reflect.StructField, loc string, isFile bool) (*fileRule, error) {
	types, hasTypes := ff.Tag.Lookup("contentType")
	size, hasSize := ff.Tag.Lookup("maxSize")
	least, hasLeast := ff.Tag.Lookup("minSize")
	if isFile {
		for _, k := range []string{"minLength", "maxLength"} {
			if _, ok := ff.Tag.Lookup(k); ok {
				return nil, fmt.Errorf("form field %s: a file's size is its minSize and maxSize tags, not %s", ff.Name, k)
			}
		}
	}
	if !hasTypes && !hasSize && !hasLeast {
		return nil, nil
	}
	if !isFile {
		return nil, fmt.Errorf("form field %s: contentType, minSize and maxSize are for a file (*multipart.FileHeader or []*multipart.FileHeader)", ff.Name)
	}
	r := &fileRule{loc: loc}
	if hasTypes {
		var err error
		if r.types, err = parseTypeList(types); err != nil {
			return nil, fmt.Errorf("form field %s: contentType %q: %v", ff.Name, types, err)
		}
		r.doc = strings.Join(r.types, ", ")
	}
	if hasSize {
		n, err := ParseSize(size)
		if err != nil {
			return nil, fmt.Errorf("form field %s: maxSize %q: %v", ff.Name, size, err)
		}
		r.maxSize = n
	}
	if hasLeast {
		n, err := ParseSize(least)
		if err != nil {
			return nil, fmt.Errorf("form field %s: minSize %q: %v", ff.Name, least, err)
		}
		if hasSize && n > r.maxSize {
			return nil, fmt.Errorf("form field %s: minSize %s is more than maxSize %s", ff.Name, least, size)
		}
		r.minSize = n
	}
	return r, nil
}

// parseTypeList reads a comma-separated list of media types or ranges.
func parseTypeList(s string) ([]string, error) {
	var out []string
	for _, t := range strings.Split(s, ",") {
		t = strings.ToLower(strings.TrimSpace(t))
		mt, params, ok := parseMediaType(t)
		if !ok || trimOWS(params) != "" || mt != t || (strings.HasPrefix(mt, "*/") && mt != "*/*") {
			return nil, fmt.Errorf("%q is not a media type or range (type/subtype, type/*)", t)
		}
		out = append(out, mt)
	}
	return out, nil
}

// ParseSize reads a size as the maxSize tag writes it: a positive number
// of bytes, with an optional unit B, KB, MB, GB (powers of 1000) or KiB,
// MiB, GiB (powers of 1024), such as "512", "100KB", "5MiB".
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 18 {
		return 0, errors.New("want a number of bytes of at most 18 digits, with an optional unit (B, KB, MB, GB, KiB, MiB, GiB)")
	}
	n, _ := strconv.ParseInt(s[:i], 10, 64)
	var unit int64
	switch strings.TrimSpace(s[i:]) {
	case "", "B":
		unit = 1
	case "KB":
		unit = 1000
	case "MB":
		unit = 1000 * 1000
	case "GB":
		unit = 1000 * 1000 * 1000
	case "KiB":
		unit = 1 << 10
	case "MiB":
		unit = 1 << 20
	case "GiB":
		unit = 1 << 30
	default:
		return 0, fmt.Errorf("unknown unit %q (B, KB, MB, GB, KiB, MiB, GiB)", strings.TrimSpace(s[i:]))
	}
	if n <= 0 || n > (1<<63-1)/unit {
		return 0, errors.New("a size is positive and fits in 63 bits")
	}
	return n * unit, nil
}

// FormatSize writes n bytes as the documentation says it: "5 MiB",
// "1.5 KiB", "100 bytes".
func FormatSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size {
			return strconv.FormatFloat(float64(n)/float64(u.size), 'f', -1, 64) + " " + u.name
		}
	}
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// accepts reports whether a part sent with Content-Type ct may be a file
// of the field, and the media type it was read as.
func (r *fileRule) accepts(ct string) (string, bool) {
	mt := "application/octet-stream"
	if ct != "" {
		m, _, ok := parseMediaType(ct)
		if !ok {
			return ct, false
		}
		mt = strings.ToLower(m)
	}
	if r.types == nil {
		return mt, true
	}
	typ, _, _ := strings.Cut(mt, "/")
	for _, t := range r.types {
		if t == mt || t == "*/*" || (strings.HasSuffix(t, "/*") && t[:len(t)-2] == typ) {
			return mt, true
		}
	}
	return mt, false
}

// description is what the document says of the field's constraints.
func (r *fileRule) description() string {
	var parts []string
	if r.types != nil {
		parts = append(parts, "Sent as "+r.doc+".")
	}
	switch {
	case r.minSize > 0 && r.maxSize > 0:
		parts = append(parts, "From "+FormatSize(r.minSize)+" to "+FormatSize(r.maxSize)+".")
	case r.maxSize > 0:
		parts = append(parts, "At most "+FormatSize(r.maxSize)+".")
	case r.minSize > 0:
		parts = append(parts, "At least "+FormatSize(r.minSize)+".")
	}
	return strings.Join(parts, " ")
}

// errPartRefused ends the reading of a form whose part broke its rule.
var errPartRefused = errors.New("bind: a file part was refused")

// readConstrainedForm reads a multipart body whose file fields have
// rules (keyed by form name): it reads the parts one by one, checks each
// file part's media type on its header and its size as its bytes come,
// and passes the parts on, re-framed, to mime/multipart's ReadForm, which
// keeps them within maxMemory as it would have. A part that breaks its
// rule stops the reading at once with its problem.
func readConstrainedForm(body io.Reader, boundary string, rules map[string]*fileRule, maxMemory int64) (*multipart.Form, *problem.Details, error) {
	pr, pw := io.Pipe()
	dst := multipart.NewWriter(pw)
	type result struct {
		form *multipart.Form
		err  error
	}
	done := make(chan result, 1)
	go func() {
		form, err := multipart.NewReader(pr, dst.Boundary()).ReadForm(maxMemory)
		pr.CloseWithError(errPartRefused) // the copy stops if ReadForm stopped first
		done <- result{form, err}
	}()
	prob, err := copyParts(multipart.NewReader(body, boundary), dst, rules)
	switch {
	case prob != nil:
		pw.CloseWithError(errPartRefused)
	case err != nil:
		pw.CloseWithError(err)
	default:
		pw.Close()
	}
	res := <-done
	if prob != nil {
		if res.form != nil {
			res.form.RemoveAll() //nolint:errcheck // the process's own temporary files
		}
		return nil, prob, nil
	}
	if res.err == nil && err != nil && !errors.Is(err, errPartRefused) {
		res.err = err
	}
	return res.form, nil, res.err
}

// copyParts copies the parts of src to dst, checking the file parts of
// the fields that have rules. It returns the problem of a part that
// breaks its rule, or the error that stopped the copy.
func copyParts(src *multipart.Reader, dst *multipart.Writer, rules map[string]*fileRule) (*problem.Details, error) {
	for {
		p, err := src.NextPart()
		if err == io.EOF {
			return nil, dst.Close()
		}
		if err != nil {
			return nil, err
		}
		rule := rules[p.FormName()]
		if p.FileName() == "" {
			rule = nil // a value, not a file: ReadForm keeps it as one
		}
		if rule != nil {
			if mt, ok := rule.accepts(p.Header.Get("Content-Type")); !ok {
				return problem.New(http.StatusUnprocessableEntity, "validation failed", problem.FieldError{
					Location: rule.loc, Message: "the file's media type must be one of " + rule.doc, Value: mt}), nil
			}
		}
		w, err := dst.CreatePart(p.Header)
		if err != nil {
			return nil, err
		}
		if rule != nil && rule.maxSize > 0 {
			n, err := io.CopyN(w, p, rule.maxSize+1)
			if n > rule.maxSize {
				return problem.New(http.StatusRequestEntityTooLarge, "a file is larger than its field allows", problem.FieldError{
					Location: rule.loc, Message: "the file is larger than " + FormatSize(rule.maxSize)}), nil
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			continue
		}
		if _, err := io.Copy(w, p); err != nil {
			return nil, err
		}
	}
}

// documentFile is the schema of a file field with its rule: its media
// type when it has a single one, and its constraints in its description.
// The schema fs is not changed: it may be shared.
func documentFile(fs *schema.Schema, r *fileRule) *schema.Schema {
	c := *fs
	target := &c
	if c.Type == schema.TypeArray && c.Items != nil {
		items := *c.Items
		c.Items = &items
		target = &items
	}
	if len(r.types) == 1 && !strings.HasSuffix(r.types[0], "/*") {
		target.ContentMediaType = r.types[0]
	}
	if r.minSize > 0 {
		n := int(r.minSize)
		target.MinLength = &n
	}
	if d := r.description(); c.Description == "" {
		c.Description = d
	} else {
		c.Description += " " + d
	}
	return &c
}
