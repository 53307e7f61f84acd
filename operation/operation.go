// Package operation holds the compiled description of a typed operation: the
// single source that request binding and the OpenAPI document both read.
//
// vane.Register fills a Description once, at registration, from the
// options it is given and from the input and output types; the router keeps them
// (vane.Router.Operations) in registration order. Nothing here is consulted
// per request. Schemas are JSON Schema 2020-12 (package schema); named
// types are $refs into Description.Schemas, which every operation of a
// router shares, so a generator emits Schemas.Schemas() as
// components/schemas.
package operation

import (
	"net/http"
	"reflect"
	"strings"
	"unicode"

	"github.com/vane-http/vane/schema"
)

// Description is the compiled, reflection-free description of one operation.
type Description struct {
	Method      string   // HTTP method, upper case
	Pattern     string   // full path pattern, group prefixes included, {name} parameters
	ID          string   // operationId; derived from Method and Pattern when no vane.ID gives one
	Summary     string   // one line
	Description string   // longer text (CommonMark)
	Tags        []string // OpenAPI tags, for grouping
	Deprecated  bool
	Hidden      bool // left out of the OpenAPI document

	// Security lists alternative security requirements (OpenAPI's
	// security array): each map names schemes and their scopes. Nil:
	// the document's default; empty, not nil: none (vane.Public).
	Security []map[string][]string

	Status      int          // the status of a successful response
	Parameters  []Parameter  // path, query, header and cookie parameters, in field order
	RequestBody *RequestBody // nil when the input has no Body
	Responses   []Response   // the success response first, then documented errors, by status

	BodyLimit int64 // the request body limit in bytes in force for the operation

	Input  reflect.Type // the input struct type I
	Output reflect.Type // the output type O

	// Schemas holds the named schemas that the $refs of this description
	// point into, shared by all the operations of a router.
	Schemas *schema.Registry

	// Extensions are x- keys for the OpenAPI operation object.
	Extensions map[string]any
}

// Parameter locations.
const (
	InPath   = "path"
	InQuery  = "query"
	InHeader = "header"
	InCookie = "cookie"
)

// Parameter is one path, query, header or cookie parameter. A cookie
// parameter bound into an http.Cookie is documented by its value, a
// string.
type Parameter struct {
	Name        string
	In          string // InPath, InQuery, InHeader or InCookie
	Description string
	Required    bool
	Deprecated  bool
	Schema      *schema.Schema
	// Style and Explode say how the value is sent, as OpenAPI defines
	// them, and the binder accepts exactly that (package bind):
	//
	//   - a query list: "form", explode true by default, one value per
	//     repeated key (?tag=a&tag=b, never split at commas); "form",
	//     explode false with the field tag `explode:"false"`, one key with
	//     values separated by commas (?ids=1,2,3); "spaceDelimited" or
	//     "pipeDelimited" with the tag `style:"…"`, explode false;
	//   - a query map or struct: "deepObject", explode true
	//     (?filter[color]=red&filter[size]=m), one level of keys;
	//   - a header list: "simple", explode false (a, b, c);
	//   - anything else: empty (the location's default, a scalar).
	Style   string
	Explode *bool
	Example any
	Field   string // the Go field name, for messages
}

// RequestBody describes the request body.
type RequestBody struct {
	Description string
	Required    bool
	Content     []Content // one per accepted media type
	Field       string    // the Go field name ("Body")
}

// Content is a media type and the schema of its payload.
type Content struct {
	MediaType string
	Schema    *schema.Schema
	// Encoding gives, for a form body, the media types (a list, as
	// OpenAPI's Encoding Object writes it) that a property's part may be
	// sent as, by property name; nil when none says.
	Encoding map[string]string
}

// Response is one documented response.
type Response struct {
	Status      int // 0 means OpenAPI's "default"
	Description string
	Headers     []Header
	Content     []Content // none for a body-less response such as 204
}

// Header is a documented response header.
type Header struct {
	Name        string
	Description string
	Required    bool
	Schema      *schema.Schema
	Field       string // the Go field name
}

// DefaultID derives an operationId from method and pattern:
// GET /items/{id} is "get-items-by-id", POST /v1/users/{user}/keys is
// "post-v1-users-by-user-keys".
func DefaultID(method, pattern string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, seg := range strings.Split(pattern, "/") {
		if seg == "" {
			continue
		}
		b.WriteByte('-')
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			b.WriteString("by-")
			seg = strings.TrimSuffix(strings.Trim(seg, "{}"), "...")
		}
		last := byte('-')
		for _, c := range seg {
			if unicode.IsLetter(c) || unicode.IsDigit(c) {
				b.WriteRune(unicode.ToLower(c))
				last = 0
			} else if last != '-' {
				b.WriteByte('-')
				last = '-'
			}
		}
	}
	return strings.TrimRight(b.String(), "-")
}

// DefaultStatus is the success status of a method when no vane.Status
// sets one: 201 for POST when the operation documents a 201 response (created),
// otherwise 200.
func DefaultStatus(method string, created bool) int {
	if method == http.MethodPost && created {
		return http.StatusCreated
	}
	return http.StatusOK
}

// Param returns the parameter named name in in, or nil.
func (d *Description) Param(in, name string) *Parameter {
	for i := range d.Parameters {
		if d.Parameters[i].In == in && d.Parameters[i].Name == name {
			return &d.Parameters[i]
		}
	}
	return nil
}

// Response returns the documented response for status, or nil.
func (d *Description) Response(status int) *Response {
	for i := range d.Responses {
		if d.Responses[i].Status == status {
			return &d.Responses[i]
		}
	}
	return nil
}

// InputFields returns the fields of input struct type t in the order
// binding and validation number them: t's fields in order, with the
// fields of embedded structs (not pointers) in their place, so that shared
// parameters can live in a struct of their own:
//
//	type Paging struct {
//	    Limit  int `query:"limit" default:"20"`
//	    Cursor string `query:"cursor"`
//	}
//	type ListItems struct {
//	    Paging
//	    Tag string `query:"tag"`
//	}
//
// Each field's Offset is from the start of t and its Index is the full
// path for reflect.Value.FieldByIndex. An embedded struct with a source
// tag of its own (path, query, header, cookie) or named Body is a field,
// not flattened.
func InputFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	var walk func(t reflect.Type, base uintptr, index []int)
	walk = func(t reflect.Type, base uintptr, index []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			f.Offset += base
			f.Index = append(append([]int(nil), index...), i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Name != "Body" && !hasSource(f.Tag) {
				walk(f.Type, f.Offset, f.Index)
				continue
			}
			out = append(out, f)
		}
	}
	walk(t, 0, nil)
	return out
}

func hasSource(tag reflect.StructTag) bool {
	_, _, ok := Source(tag)
	return ok
}

// Source returns where an input field's value comes from, by its tag:
// in is InPath, InQuery, InHeader or InCookie (the first of these tags
// present) and name the parameter's name; ok is false for none.
func Source(tag reflect.StructTag) (in, name string, ok bool) {
	for _, src := range [...]string{InPath, InQuery, InHeader, InCookie} {
		if v, found := tag.Lookup(src); found {
			return src, v, true
		}
	}
	return "", "", false
}

// IsForm reports whether a Body type is a form: a struct with at least one
// field tagged `form:"name"`, bound from application/x-www-form-urlencoded
// or multipart/form-data rather than JSON.
func IsForm(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := 0; i < t.NumField(); i++ {
		if _, ok := t.Field(i).Tag.Lookup("form"); ok {
			return true
		}
	}
	return false
}

// ErrorStatuses returns the error statuses vane itself answers an
// operation described by d with, in increasing order: 400 for a body that
// does not decode, 408 for one that does not arrive in time, 413 for one
// over the limit and 415 for a media type the operation does not accept
// (when it has a body), 422 for input that fails its rules (when it has a
// body or parameters), and 500 for a handler error that is not a problem.
// Typed operations document these, and 412 for a method that changes
// state (an If-Match that no version of theirs can meet); package openapi
// adds them to descriptions built by hand.
func ErrorStatuses(d *Description) []int {
	var list []int
	if d.RequestBody != nil {
		list = append(list, http.StatusBadRequest, http.StatusRequestTimeout, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
	}
	if d.RequestBody != nil || len(d.Parameters) > 0 {
		list = append(list, http.StatusUnprocessableEntity)
	}
	return append(list, http.StatusInternalServerError)
}

// NoBody reports whether a response with the status has no body: 204 No
// Content, 205 Reset Content and 304 Not Modified.
func NoBody(status int) bool {
	return status == http.StatusNoContent || status == http.StatusResetContent || status == http.StatusNotModified
}
