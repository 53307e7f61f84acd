// Package vanetest tests vane routers the way httptest tests handlers: it
// sends requests to a router in process and checks every response against
// the router's own OpenAPI description, so that a test fails when the
// server answers something its document does not say.
//
//	api := vanetest.New(t, r)
//	res := api.Post("/pets", map[string]any{"name": "Rex"})
//	pet := vanetest.Decode[Pet](t, res) // fails the test unless 2xx JSON
//
// Call does the same from a typed input, by operation ID: the request is
// made from the input as the operation binds it (parameters, cookies,
// body), and the answer comes back as the typed output or the problem:
//
//	out, p := vanetest.Call[GetPet, Pet](api, "getPet", &GetPet{ID: 7})
//
// Headers and cookies that the input does not hold, such as the
// credentials that middleware checks, go with one call ([Header],
// [Cookie]) or with every request of an API ([API.With]). Files go in
// the input ([File]) for Call, or in a [Multipart] body for Do:
//
//	ann := api.With(vanetest.Header("Authorization", "Bearer "+token))
//	in.Body.Photo = vanetest.File("rex.png", "image/png", png)
//	out, p = vanetest.Call[UploadPhoto, Photo](ann, "uploadPhoto", in)
//
// For each response to a typed operation it checks that the status is one
// the operation documents (an error status may be the document's
// "default" problem response), that the Content-Type is one
// documented for that status, and that a JSON body validates against the
// documented schema; a request answered 2xx must also have a body its
// document allows. Routes that are not typed operations are served
// without checks.
package vanetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/validate"
)

// API sends requests to a router and checks its answers against the
// router's operations. It is safe for use by one test at a time.
type API struct {
	t        testing.TB
	r        *vane.Router
	explicit bool
	defaults []RequestOption // With's: sent beneath each request's own
}

// An Option adjusts what an API checks.
type Option func(*API)

// ExplicitStatuses makes the API require that every status a typed
// operation answers is listed by its number in the operation's document:
// an error status that only the document's "default" response covers
// fails the test. Strict generators (ogen) map each listed status to a
// type, and "default" to none in particular.
func ExplicitStatuses() Option { return func(a *API) { a.explicit = true } }

// New returns an API for r that reports to t.
func New(t testing.TB, r *vane.Router, opts ...Option) *API {
	a := &API{t: t, r: r}
	for _, o := range opts {
		o(a)
	}
	return a
}

// Handler returns the router as an http.Handler whose answers to typed
// operations are checked as Serve checks them, for tests that serve it
// over real HTTP (httptest.NewServer). Responses pass through as they are
// written, flushes included (event streams); JSON bodies up to 1 MiB are
// kept to be checked. Failures are reported to the API's test with
// Errorf, from the server's goroutines.
func (a *API) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var raw []byte
		if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); req.Body != nil && isJSON(mt) {
			b, err := io.ReadAll(io.LimitReader(req.Body, maxKept+1))
			if err == nil && len(b) <= maxKept {
				raw = b
			}
			req.Body = io.NopCloser(io.MultiReader(bytes.NewReader(b), req.Body))
		}
		tw := &teeWriter{ResponseWriter: w}
		a.r.ServeHTTP(tw, req)
		d := a.operation(req)
		if d == nil {
			return
		}
		rec := httptest.NewRecorder()
		for k, v := range tw.Header() {
			rec.Header()[k] = v
		}
		rec.Code = tw.status
		if rec.Code == 0 {
			rec.Code = http.StatusOK
		}
		if !tw.truncated && tw.Header().Get("Content-Encoding") == "" {
			rec.Body = &tw.body // a compressed body is not checked
		}
		for _, e := range a.check(d, req, raw, rec) {
			a.t.Errorf("vanetest: %s %s: %s", req.Method, req.URL.Path, e)
		}
	})
}

// maxKept is how much of a body Handler keeps to check.
const maxKept = 1 << 20

// teeWriter passes a response through and keeps its status and the start
// of its body.
type teeWriter struct {
	http.ResponseWriter
	status    int
	body      bytes.Buffer
	truncated bool
}

func (w *teeWriter) WriteHeader(status int) {
	if w.status == 0 && status >= 200 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *teeWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if !w.truncated {
		if w.body.Len()+len(b) > maxKept {
			w.truncated = true
			w.body.Reset()
		} else {
			w.body.Write(b)
		}
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flushes,
// deadlines).
func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush flushes the response, for writers that need no controller.
func (w *teeWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() } //nolint:errcheck

// Response is a recorded response.
type Response struct {
	*httptest.ResponseRecorder
	Operation *operation.Description // the typed operation that answered; nil for another route
}

// Get sends a GET; headers are name, value pairs.
func (a *API) Get(path string, headers ...string) *Response {
	return a.Do("GET", path, nil, headers...)
}

// Post sends body (see Do) with POST.
func (a *API) Post(path string, body any, headers ...string) *Response {
	return a.Do("POST", path, body, headers...)
}

// Put sends body (see Do) with PUT.
func (a *API) Put(path string, body any, headers ...string) *Response {
	return a.Do("PUT", path, body, headers...)
}

// Patch sends body (see Do) with PATCH.
func (a *API) Patch(path string, body any, headers ...string) *Response {
	return a.Do("PATCH", path, body, headers...)
}

// Delete sends a DELETE.
func (a *API) Delete(path string, headers ...string) *Response {
	return a.Do("DELETE", path, nil, headers...)
}

// Do sends a request with body: nil for none, a string or []byte as it
// is, a [*Multipart] as multipart/form-data, anything else as JSON with
// Content-Type application/json (unless headers set one). headers are
// name, value pairs; the options of [API.With] are added beneath them.
func (a *API) Do(method, path string, body any, headers ...string) *Response {
	a.t.Helper()
	var rd io.Reader
	var raw []byte
	ct := ""
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	case *Multipart:
		raw, ct = b.Bytes(), b.ContentType()
	default:
		j, err := json.Marshal(b)
		if err != nil {
			a.t.Fatalf("vanetest: encoding the body: %v", err)
		}
		raw, ct = j, "application/json"
	}
	if raw != nil {
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, rd)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	a.applyDefaults(req)
	return a.Serve(req, raw)
}

// Serve serves req, whose body is raw (nil for none), and checks the
// response. It sends req as it is: the options of [API.With] are not
// added.
func (a *API) Serve(req *http.Request, raw []byte) *Response {
	a.t.Helper()
	w := httptest.NewRecorder()
	a.r.ServeHTTP(w, req)
	res := &Response{ResponseRecorder: w, Operation: a.operation(req)}
	if res.Operation != nil {
		for _, e := range a.check(res.Operation, req, raw, w) {
			a.t.Errorf("vanetest: %s %s: %s", req.Method, req.URL.Path, e)
		}
	}
	return res
}

// operation finds the typed operation that served req, by its method and
// the pattern the router matched.
func (a *API) operation(req *http.Request) *operation.Description {
	method := req.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	for _, d := range a.r.Operations() {
		if d.Method == method && (req.Pattern == d.Pattern || strings.HasSuffix(req.Pattern, " "+d.Pattern)) {
			return d
		}
	}
	return nil
}

// check returns how the exchange departs from d.
func (a *API) check(d *operation.Description, req *http.Request, raw []byte, w *httptest.ResponseRecorder) []string {
	var out []string
	var doc *operation.Response
	for i := range d.Responses {
		if d.Responses[i].Status == w.Code {
			doc = &d.Responses[i]
		}
	}
	if doc == nil {
		for i := range d.Responses {
			if d.Responses[i].Status == 0 {
				doc = &d.Responses[i]
			}
		}
	}
	if doc == nil && w.Code >= 400 && a.explicit {
		return append(out, fmt.Sprintf("status %d is covered only by the document's default response (%s)", w.Code, statuses(d)))
	}
	if doc == nil && w.Code >= 400 {
		// The document's "default" response: a problem (package openapi
		// adds it to every operation).
		doc = &operation.Response{Status: 0, Content: []operation.Content{{MediaType: problem.ContentType}}}
	}
	if doc == nil {
		return append(out, fmt.Sprintf("status %d is not documented (%s)", w.Code, statuses(d)))
	}
	if w.Body.Len() > 0 && w.Code != http.StatusNotModified {
		mt, _, _ := mime.ParseMediaType(w.Header().Get("Content-Type"))
		var content *operation.Content
		for i := range doc.Content {
			if matchMedia(doc.Content[i].MediaType, mt) && (content == nil || content.MediaType != mt) {
				content = &doc.Content[i]
			}
		}
		switch {
		case len(doc.Content) == 0:
			out = append(out, fmt.Sprintf("status %d documents no body, and the response has %d bytes", w.Code, w.Body.Len()))
		case content == nil && mt != "":
			out = append(out, fmt.Sprintf("Content-Type %q is not documented for status %d", mt, w.Code))
		case content != nil && content.Schema != nil && isJSON(mt):
			errs, err := validate.Instance(d.Schemas, content.Schema, w.Body.Bytes(), "response")
			if err != nil {
				out = append(out, err.Error())
			}
			for _, e := range errs {
				out = append(out, "the body departs from the document: "+e.Error())
			}
		}
	}
	if w.Code >= 200 && w.Code < 300 && raw != nil && d.RequestBody != nil {
		sent, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
		for _, c := range d.RequestBody.Content {
			if c.MediaType == sent && isJSON(c.MediaType) && c.Schema != nil && json.Valid(raw) {
				errs, _ := validate.Instance(d.Schemas, c.Schema, raw, "body")
				for _, e := range errs {
					out = append(out, fmt.Sprintf("answered %d to a body the document refuses: %s", w.Code, e.Error()))
				}
				break
			}
		}
	}
	return out
}

func statuses(d *operation.Description) string {
	var s []string
	for _, r := range d.Responses {
		s = append(s, fmt.Sprint(r.Status))
	}
	return "documented: " + strings.Join(s, ", ")
}

// matchMedia reports whether the media type mt is in the documented
// range doc: itself, type/* or */*.
func matchMedia(doc, mt string) bool {
	if doc == mt || doc == "*/*" {
		return true
	}
	prefix, ok := strings.CutSuffix(doc, "/*")
	return ok && strings.HasPrefix(mt, prefix+"/")
}

func isJSON(mt string) bool { return mt == "application/json" || strings.HasSuffix(mt, "+json") }

// Decode decodes a 2xx JSON response into a new O, failing the test for
// any other response (and showing its problem).
func Decode[O any](t testing.TB, res *Response) *O {
	t.Helper()
	if res.Code < 200 || res.Code > 299 {
		t.Fatalf("vanetest: status %d: %s", res.Code, res.Body)
	}
	out := new(O)
	if err := json.Unmarshal(res.Body.Bytes(), out); err != nil {
		t.Fatalf("vanetest: decoding %T: %v: %s", out, err, res.Body)
	}
	return out
}

// Problem decodes a problem response, its extension members included
// (problem.Parse), failing the test when the response is not one.
func Problem(t testing.TB, res *Response) *problem.Details {
	t.Helper()
	if mt, _, _ := mime.ParseMediaType(res.Header().Get("Content-Type")); mt != problem.ContentType {
		t.Fatalf("vanetest: not a problem (%d %s): %s", res.Code, mt, res.Body)
	}
	p, err := problem.Parse(res.Body.Bytes())
	if err != nil {
		t.Fatalf("vanetest: decoding the problem: %v", err)
	}
	return p
}
