package vane

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

type fuzzParams struct {
	ID    int64         `path:"id" minimum:"1"`
	Name  string        `path:"name" maxLength:"10" pattern:"^[a-z]+$"`
	Q     string        `query:"q" minLength:"2" format:"email"`
	N     *int16        `query:"n" exclusiveMaximum:"100"`
	F     float64       `query:"f" multipleOf:"0.5"`
	Tags  []string      `query:"tag" maxItems:"3" uniqueItems:"true" enum:"a,b,c"`
	Nums  []uint16      `query:"num"`
	Raw   []byte        `query:"raw"`
	When  time.Time     `query:"when"`
	Wait  time.Duration `query:"wait"`
	On    bool          `query:"on"`
	Auth  string        `header:"Authorization" required:"true" minLength:"3"`
	Ids   []int         `header:"X-Ids"`
	Theme string        `cookie:"theme" enum:"dark,light"`
}

type fuzzBody struct {
	Body struct {
		Name  string            `json:"name" minLength:"1" maxLength:"20"`
		Email string            `json:"email,omitempty" format:"email"`
		Age   int               `json:"age" minimum:"0" maximum:"150"`
		Tags  []string          `json:"tags,omitempty" uniqueItems:"true"`
		Meta  map[string]string `json:"meta,omitempty" maxProperties:"3"`
		Items []struct {
			SKU string  `json:"sku" pattern:"^[A-Z]{3}$"`
			Qty int     `json:"qty" minimum:"1"`
			Tag *string `json:"tag" nullable:"true"`
		} `json:"items" maxItems:"5"`
		Next *struct {
			Name string `json:"name"`
		} `json:"next,omitempty"`
	}
}

func fuzzRouter() *Router {
	r := New(BodyLimit(4096))
	ok := func(ctx context.Context, in *fuzzParams) (*struct{}, error) { return &struct{}{}, nil }
	Get(r, "/p/{id}/{name}", ok)
	Post(r, "/b", func(ctx context.Context, in *fuzzBody) (*struct{}, error) { return &struct{}{}, nil })
	return r
}

// FuzzParameters sends arbitrary path segments, query strings, headers and
// cookies to a typed operation: never a panic, never a 5xx.
func FuzzParameters(f *testing.F) {
	f.Add("1", "abc", "q=a@b.co&n=5&f=1.5&tag=a&tag=b,c&num=1,2&when=2024-01-01T00:00:00Z&wait=1s&on=true", "Bearer x", "1,2", "theme=dark")
	f.Add("0", "ABC", "n=999999&f=NaN&tag=a,a,z&num=-1&when=x&wait=x&on=x", "", "x", "theme=blue")
	f.Add("-9223372036854775809", "%zz", "%zz=%zz&&=&tag=&q", "ab", ",,,", `theme="dark`)
	h := fuzzRouter()
	f.Fuzz(func(t *testing.T, id, name, query, auth, ids, cookie string) {
		u := &url.URL{Path: "/p/" + id + "/" + name, RawQuery: query}
		req := httptest.NewRequest("GET", "/", nil)
		req.URL = u
		req.RequestURI = u.RequestURI()
		req.Header.Set("Authorization", auth)
		req.Header.Set("X-Ids", ids)
		req.Header.Set("Cookie", cookie)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s %s: %d %s", u.Path, query, w.Code, w.Body)
		}
	})
}

// FuzzBody sends arbitrary bodies and content types to a typed operation
// with nested rules: never a panic, never a 5xx.
func FuzzBody(f *testing.F) {
	f.Add("application/json", `{"name":"a","age":3,"items":[{"sku":"ABC","qty":1,"tag":null}],"meta":{"a":"b"},"next":{"name":"x"}}`)
	f.Add("application/json", `{"name":"","age":-1,"items":[{"sku":"x","qty":0}],"tags":["a","a"]}`)
	f.Add("application/json", `{"items":[{},{"sku":1}], "age": 1.5, "Name": null}`)
	f.Add("application/json", `[1,2,{"a":[}]`)
	f.Add("application/json", `{"name":"a","age":0,"email":"","tags":[],"items":[{"sku":"ABC","qty":1},{"sku":"ABC","qty":1}],"EMAIL":"","next":{}}`)
	f.Add("application/merge-patch+json", `{"name":"\u00e9\ud800","age":1e400}`)
	f.Add("text/plain", `{}`)
	f.Add("", ``)
	h := fuzzRouter()
	f.Fuzz(func(t *testing.T, ct, body string) {
		req := httptest.NewRequest("POST", "/b", strings.NewReader(body))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%q %q: %d %s", ct, body, w.Code, w.Body)
		}
		if w.Code != http.StatusNoContent && w.Header().Get("Content-Type") != "application/problem+json" {
			t.Fatalf("%q %q: %d without a problem body", ct, body, w.Code)
		}
	})
}
