// Package vanetest tests the typed operations of a vane router, in the
// spirit of net/http/httptest: it serves requests on the router in memory
// and checks that each request and its response are what the router's own
// OpenAPI description (vane.Router.Operations) says they may be.
//
// [Call] sends an operation a typed input and returns its typed output or
// its problem; [API.Do] serves a raw request. Both fail the test when the
// exchange does not match the description:
//
//   - the request: its method and path are an operation's, its required
//     parameters are there, its scalar parameters are valid against their
//     schemas, its body has a documented media type, and a
//     JSON body is valid against the documented schema;
//   - the response: its status is documented (or a default response is),
//     its Content-Type is one the response documents (none for a response
//     documented without content), its required headers are there, and a
//     JSON body is valid against the documented schema.
//
// The schemas are checked by a JSON Schema checker of this package, on the
// JSON as it was sent, independently of package validate, so that a
// document that says something other than what the server does is found.
// It knows the keywords package schema writes: type (with null), enum,
// const, properties, required, additionalProperties, items, minItems,
// maxItems, uniqueItems, minLength, maxLength, pattern, minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, multipleOf, minProperties,
// maxProperties, allOf, anyOf, oneOf and $ref; format, readOnly and
// writeOnly are not checked, except that a readOnly property is not
// required in a request nor a writeOnly one in a response.
package vanetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// API serves requests on one router for one test.
type API struct {
	t         testing.TB
	r         *vane.Router
	noRequest bool // requests are not checked
}

// New returns an API that serves requests on r and reports to t. The
// router's operations are read at each request, so operations registered
// after New count.
func New(t testing.TB, r *vane.Router) *API {
	return &API{t: t, r: r}
}

// BadRequests returns an API that serves requests on the same router
// without checking them against the description, for tests of how an
// operation answers input the document does not allow (a missing
// required parameter, a value out of range); responses are still
// checked.
func (a *API) BadRequests() *API {
	b := *a
	b.noRequest = true
	return &b
}

// Do serves req on the router and returns the response, having checked
// both against the router's description (see the package comment); a
// mismatch fails the test with t.Errorf, naming the operation. A request
// that matches no operation is served all the same (a 404 or 405 of the
// router), and only the response's status is then not checked.
func (a *API) Do(req *http.Request) *httptest.ResponseRecorder {
	a.t.Helper()
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			a.t.Fatalf("vanetest: reading the request body: %v", err)
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	d := a.find(req)
	if d != nil && !a.noRequest {
		for _, e := range checkRequest(d, req, body) {
			a.t.Errorf("vanetest: %s %s (%s): request: %s", d.Method, d.Pattern, d.ID, e)
		}
	}
	w := httptest.NewRecorder()
	a.r.ServeHTTP(w, req)
	if d != nil {
		for _, e := range checkResponse(d, w) {
			a.t.Errorf("vanetest: %s %s (%s): response %d: %s", d.Method, d.Pattern, d.ID, w.Code, e)
		}
	}
	return w
}

// Get serves a GET of target (a path and query) with headers given as
// "Name: value" strings.
func (a *API) Get(target string, headers ...string) *httptest.ResponseRecorder {
	a.t.Helper()
	return a.Do(newRequest(a.t, http.MethodGet, target, nil, headers))
}

// Post serves a POST of target with body (a string, a []byte or an
// io.Reader sent as they are; anything else encoded as JSON, with
// Content-Type application/json unless headers set one) and headers given
// as "Name: value" strings.
func (a *API) Post(target string, body any, headers ...string) *httptest.ResponseRecorder {
	a.t.Helper()
	return a.Do(newRequest(a.t, http.MethodPost, target, body, headers))
}

// Request serves a request of any method, as Post does.
func (a *API) Request(method, target string, body any, headers ...string) *httptest.ResponseRecorder {
	a.t.Helper()
	return a.Do(newRequest(a.t, method, target, body, headers))
}

func newRequest(t testing.TB, method, target string, body any, headers []string) *http.Request {
	t.Helper()
	var rd io.Reader
	isJSON := false
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	case io.Reader:
		rd = b
	default:
		js, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("vanetest: encoding the body: %v", err)
		}
		rd, isJSON = bytes.NewReader(js), true
	}
	req := httptest.NewRequest(method, target, rd)
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			t.Fatalf("vanetest: header %q is not \"Name: value\"", h)
		}
		req.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if isJSON && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// find returns the operation whose method and pattern match req, or nil.
func (a *API) find(req *http.Request) *operation.Description {
	for _, d := range a.r.Operations() {
		if d.Method == req.Method && matchPattern(d.Pattern, req.URL.Path) {
			return d
		}
	}
	return nil
}

// matchPattern reports whether path matches pattern: {name} matches one
// non-empty segment and a final {name...} the rest.
func matchPattern(pattern, path string) bool {
	ps := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	xs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, p := range ps {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "...}") {
			return i < len(xs) || p == ps[len(ps)-1]
		}
		if i >= len(xs) {
			return false
		}
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			if xs[i] == "" {
				return false
			}
			continue
		}
		if p != xs[i] {
			return false
		}
	}
	return len(ps) == len(xs)
}

// checkRequest lists how req differs from what d documents.
func checkRequest(d *operation.Description, req *http.Request, body []byte) []string {
	var errs []string
	query := req.URL.Query()
	for _, p := range d.Parameters {
		errs = append(errs, checkParamValue(d, &p, req, query)...)
		if !p.Required || p.In == operation.InPath {
			continue
		}
		present := false
		switch p.In {
		case operation.InQuery:
			if p.Style == "deepObject" {
				for k := range query {
					present = present || strings.HasPrefix(k, p.Name+"[")
				}
			} else {
				_, present = query[p.Name]
			}
		case operation.InHeader:
			present = len(req.Header.Values(p.Name)) > 0
		case operation.InCookie:
			_, err := req.Cookie(p.Name)
			present = err == nil
		}
		if !present {
			errs = append(errs, fmt.Sprintf("required %s parameter %q is missing", p.In, p.Name))
		}
	}
	rb := d.RequestBody
	switch {
	case len(body) == 0:
		if rb != nil && rb.Required {
			errs = append(errs, "the required body is missing")
		}
	case rb == nil:
		errs = append(errs, "a body was sent; the operation documents none")
	default:
		mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
		if err != nil {
			errs = append(errs, fmt.Sprintf("Content-Type %q: %v", req.Header.Get("Content-Type"), err))
			break
		}
		c := findContent(rb.Content, mt)
		if c == nil {
			errs = append(errs, fmt.Sprintf("Content-Type %s is not documented (documented: %s)", mt, mediaTypes(rb.Content)))
			break
		}
		if isJSONType(mt) {
			errs = append(errs, checkJSON(d, c, body, true)...)
		}
	}
	return errs
}

// checkResponse lists how w differs from what d documents.
func checkResponse(d *operation.Description, w *httptest.ResponseRecorder) []string {
	res := d.Response(w.Code)
	if res == nil {
		res = d.Response(0)
	}
	if res == nil {
		return []string{fmt.Sprintf("status %d is not documented", w.Code)}
	}
	var errs []string
	for _, h := range res.Headers {
		if h.Required && w.Header().Get(h.Name) == "" {
			errs = append(errs, fmt.Sprintf("required header %s is missing", h.Name))
		}
	}
	body := w.Body.Bytes()
	ct := w.Header().Get("Content-Type")
	if len(res.Content) == 0 {
		if len(body) > 0 {
			errs = append(errs, fmt.Sprintf("a %s body was sent; the response documents none", ct))
		}
		return errs
	}
	if len(body) == 0 && ct == "" {
		return errs // an empty body, such as a nil io.Reader's
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return append(errs, fmt.Sprintf("Content-Type %q: %v", ct, err))
	}
	c := findContent(res.Content, mt)
	if c == nil {
		return append(errs, fmt.Sprintf("Content-Type %s is not documented (documented: %s)", mt, mediaTypes(res.Content)))
	}
	if isJSONType(mt) {
		errs = append(errs, checkJSON(d, c, body, false)...)
	}
	return errs
}

func checkJSON(d *operation.Description, c *operation.Content, body []byte, request bool) []string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []string{fmt.Sprintf("the body is not JSON: %v", err)}
	}
	ch := &checker{reg: d.Schemas, request: request}
	ch.check(c.Schema, v, "body")
	return ch.errs
}

// findContent returns the content documented for media type mt: exactly,
// or by a range such as application/* or */*.
func findContent(list []operation.Content, mt string) *operation.Content {
	for i := range list {
		if strings.EqualFold(list[i].MediaType, mt) {
			return &list[i]
		}
	}
	for i := range list {
		m := list[i].MediaType
		if m == "*/*" || strings.HasSuffix(m, "/*") && strings.HasPrefix(mt, strings.TrimSuffix(m, "*")) {
			return &list[i]
		}
	}
	return nil
}

func mediaTypes(list []operation.Content) string {
	var names []string
	for _, c := range list {
		names = append(names, c.MediaType)
	}
	return strings.Join(names, ", ")
}

func isJSONType(mt string) bool {
	return mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")
}

// Problem decodes w's body as a problem (see problem.Parse), failing the
// test when it is not one.
func Problem(t testing.TB, w *httptest.ResponseRecorder) *problem.Details {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != problem.ContentType {
		t.Fatalf("vanetest: %d response of type %q, not a problem: %s", w.Code, ct, w.Body)
	}
	p, err := problem.Parse(w.Body.Bytes())
	if err != nil {
		t.Fatalf("vanetest: problem body %s: %v", w.Body, err)
	}
	return p
}

// checkParamValue checks the value of a scalar parameter (string, number,
// integer or boolean; lists and objects are not checked) against its
// schema.
func checkParamValue(d *operation.Description, p *operation.Parameter, req *http.Request, query url.Values) []string {
	s := d.Schemas.Resolve(p.Schema)
	if s == nil || p.Style != "" {
		return nil
	}
	var raw string
	switch p.In {
	case operation.InPath:
		raw = req.PathValue(p.Name)
		if raw == "" {
			raw = pathValue(d.Pattern, req.URL.Path, p.Name)
		}
	case operation.InQuery:
		if vs, ok := query[p.Name]; ok {
			raw = vs[0]
		} else {
			return nil
		}
	case operation.InHeader:
		if raw = req.Header.Get(p.Name); raw == "" {
			return nil
		}
	case operation.InCookie:
		c, err := req.Cookie(p.Name)
		if err != nil {
			return nil
		}
		raw = c.Value
	}
	var v any = raw
	switch s.Type {
	case schema.TypeInteger, schema.TypeNumber:
		if _, err := strconv.ParseFloat(raw, 64); err != nil {
			return []string{fmt.Sprintf("%s.%s: %q is not a number", p.In, p.Name, raw)}
		}
		v = json.Number(raw)
	case schema.TypeBoolean:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return []string{fmt.Sprintf("%s.%s: %q is not a boolean", p.In, p.Name, raw)}
		}
		v = b
	case schema.TypeString, "":
	default:
		return nil
	}
	ch := &checker{reg: d.Schemas, request: true}
	ch.check(s, v, p.In+"."+p.Name)
	return ch.errs
}

// pathValue returns the segment of path that pattern's {name} matches.
func pathValue(pattern, path, name string) string {
	ps := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	xs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, seg := range ps {
		if i >= len(xs) {
			break
		}
		if seg == "{"+name+"...}" {
			v, _ := url.PathUnescape(strings.Join(xs[i:], "/"))
			return v
		}
		if seg == "{"+name+"}" {
			v, _ := url.PathUnescape(xs[i])
			return v
		}
	}
	return ""
}
