package bind

import (
	"bytes"
	"compress/gzip"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// viewOf is the Request a server other than net/http's would give for
// req: every field read from it, and no *http.Request.
func viewOf(req *http.Request) *Request {
	return &Request{RawQuery: req.URL.RawQuery, Header: req.Header, Body: req.Body, ContentLength: req.ContentLength}
}

type viewItem struct {
	Name string   `json:"name"`
	Tags []string `json:"tags"`
}

type viewInput struct {
	Org    string   `path:"org"`
	Limit  int      `query:"limit" default:"20"`
	Tags   []string `query:"tag"`
	Auth   string   `header:"Authorization" required:"true"`
	Accept []string `header:"Accept"`
	Theme  string   `cookie:"theme"`
	Body   viewItem
}

type viewForm struct {
	Org  string `path:"org"`
	Body struct {
		Name  string                `form:"name" required:"true"`
		Count int                   `form:"count"`
		File  *multipart.FileHeader `form:"file"`
	}
}

// TestBindRequestIsBind binds the same requests through Bind and through
// BindRequest with a Request read from them, and requires the same input
// and the same problem: a server other than net/http's binds exactly as
// net/http's.
func TestBindRequestIsBind(t *testing.T) {
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		io.WriteString(w, s)
		w.Close()
		return b.String()
	}
	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	mw.WriteField("name", "rex")
	mw.WriteField("count", "3")
	fw, _ := mw.CreateFormFile("file", "a.txt")
	io.WriteString(fw, "file bytes")
	mw.Close()

	type request struct {
		name, target, body string
		header             map[string][]string
	}
	json := map[string][]string{"Content-Type": {"application/json"}, "Authorization": {"Bearer t"}}
	cases := []struct {
		typ  reflect.Type
		reqs []request
	}{
		{reflect.TypeFor[viewInput](), []request{
			{"every source", "/o?limit=5&tag=a&tag=b%20c", `{"name":"n","tags":["x"]}`, map[string][]string{
				"Content-Type": {"application/json"}, "Authorization": {"Bearer t"}, "Accept": {"a/b, c/d", "e/f"}, "Cookie": {"theme=dark; x=1"}}},
			{"defaults", "/o", `{"name":"n"}`, json},
			{"bad query and missing header", "/o?limit=x", `{"name":"n"}`, map[string][]string{"Content-Type": {"application/json"}}},
			{"malformed JSON", "/o", `{"name":`, json},
			{"mistyped JSON", "/o", `{"name":1}`, json},
			{"wrong media type", "/o", `{}`, map[string][]string{"Content-Type": {"text/plain"}, "Authorization": {"x"}}},
			{"gzip", "/o", gz(`{"name":"z"}`), map[string][]string{"Content-Type": {"application/json"}, "Content-Encoding": {"gzip"}, "Authorization": {"x"}}},
			{"bad gzip", "/o", "not gzip", map[string][]string{"Content-Type": {"application/json"}, "Content-Encoding": {"gzip"}, "Authorization": {"x"}}},
			{"unknown coding", "/o", "x", map[string][]string{"Content-Type": {"application/json"}, "Content-Encoding": {"br"}, "Authorization": {"x"}}},
			{"no body", "/o", "", json},
			{"too large", "/o", `{"name":"` + strings.Repeat("a", 2<<20) + `"}`, json},
		}},
		{reflect.TypeFor[viewForm](), []request{
			{"urlencoded", "/o", "name=rex&count=2", map[string][]string{"Content-Type": {"application/x-www-form-urlencoded"}}},
			{"multipart", "/o", mp.String(), map[string][]string{"Content-Type": {mw.FormDataContentType()}}},
			{"form missing name", "/o", "count=x", map[string][]string{"Content-Type": {"application/x-www-form-urlencoded"}}},
		}},
	}
	for _, c := range cases {
		b := compile(t, c.typ, "POST", "/{org}", "org")
		for _, r := range c.reqs {
			t.Run(c.typ.Name()+"/"+r.name, func(t *testing.T) {
				mk := func() *http.Request {
					req := httptest.NewRequest("POST", r.target, strings.NewReader(r.body))
					for k, v := range r.header {
						req.Header[k] = v
					}
					return req
				}
				viaHTTP, viaView := reflect.New(c.typ), reflect.New(c.typ)
				var st1, st2 State
				p1 := b.Bind(mk(), []string{"acme"}, viaHTTP.Interface(), &st1)
				p2 := b.BindRequest(viewOf(mk()), []string{"acme"}, viaView.Interface(), &st2)
				defer st1.Cleanup()
				defer st2.Cleanup()
				if !reflect.DeepEqual(p1, p2) {
					t.Fatalf("problems differ:\nBind        %+v\nBindRequest %+v", p1, p2)
				}
				// Multipart file headers hold their temporary state: compare
				// what a handler reads of them.
				if c.typ == reflect.TypeFor[viewForm]() {
					f1, f2 := viaHTTP.Interface().(*viewForm), viaView.Interface().(*viewForm)
					if (f1.Body.File == nil) != (f2.Body.File == nil) {
						t.Fatalf("file: %v and %v", f1.Body.File, f2.Body.File)
					}
					if f1.Body.File != nil && (f1.Body.File.Filename != f2.Body.File.Filename || f1.Body.File.Size != f2.Body.File.Size) {
						t.Fatalf("file: %+v and %+v", f1.Body.File, f2.Body.File)
					}
					f1.Body.File, f2.Body.File = nil, nil
				}
				if !reflect.DeepEqual(viaHTTP.Interface(), viaView.Interface()) {
					t.Fatalf("inputs differ:\nBind        %+v\nBindRequest %+v", viaHTTP.Interface(), viaView.Interface())
				}
				if st1.Present != st2.Present || !bytes.Equal(st1.RawJSON, st2.RawJSON) {
					t.Fatalf("state differs: %b %q and %b %q", st1.Present, st1.RawJSON, st2.Present, st2.RawJSON)
				}
				st1.Release()
				st2.Release()
			})
		}
	}
}

type withRequest struct {
	ID  string `path:"id"`
	Req *http.Request
}

// TestBindRequestSetsTheRequestField: an input's *http.Request field gets
// Request.HTTP, which a server without one builds for such inputs
// (NeedsRequest).
func TestBindRequestSetsTheRequestField(t *testing.T) {
	b := compile(t, reflect.TypeFor[withRequest](), "GET", "/{id}", "id")
	if !b.NeedsRequest() {
		t.Fatal("NeedsRequest is false for an input with an *http.Request field")
	}
	if compile(t, reflect.TypeFor[viewInput](), "POST", "/{org}", "org").NeedsRequest() {
		t.Fatal("NeedsRequest is true for an input without one")
	}
	hr := httptest.NewRequest("GET", "/7", nil)
	var in withRequest
	var st State
	if p := b.BindRequest(&Request{HTTP: hr}, []string{"7"}, &in, &st); p != nil {
		t.Fatal(p)
	}
	if in.Req != hr || in.ID != "7" {
		t.Fatalf("bound %+v", in)
	}
}
