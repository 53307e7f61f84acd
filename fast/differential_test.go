package fast

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/problem"
)

// The differential test: one router whose typed operations bind every
// kind of input and answer every kind of output, served on net/http's
// server and on the fast engine, and a corpus of requests, good and bad,
// each of which must get the same answer from both (status, headers but
// Date and framing, body). On the fast engine the typed operations are
// served natively (TestDifferentialRoutesAreNative), so this is the
// native path checked against net/http's.

type item struct {
	Name  string          `json:"name" minLength:"1" maxLength:"20"`
	Email string          `json:"email,omitempty" format:"email"`
	Tags  []string        `json:"tags,omitempty" maxItems:"3"`
	Extra json.RawMessage `json:"extra,omitempty"`
}

type getItemIn struct {
	ID      int64    `path:"id" minimum:"1"`
	Verbose bool     `query:"verbose"`
	Limit   int      `query:"limit" default:"20" maximum:"100"`
	Tags    []string `query:"tag"`
	Auth    string   `header:"Authorization" required:"true"`
	Accept  []string `header:"X-List"`
	Theme   string   `cookie:"theme" enum:"dark,light"`
}

type getItemOut struct {
	ETag     string    `header:"ETag"`
	Modified time.Time `header:"Last-Modified"`
	Body     struct {
		ID      int64    `json:"id"`
		Verbose bool     `json:"verbose"`
		Limit   int      `json:"limit"`
		Tags    []string `json:"tags"`
		List    []string `json:"list"`
		Theme   string   `json:"theme"`
	}
}

type createIn struct {
	Dry  bool `query:"dry"`
	Body item
}

type createOut struct {
	Status   int    `json:"-"`
	Location string `header:"Location"`
	Body     item
}

type updateIn struct {
	vane.Conditional
	ID   int64 `path:"id"`
	Body item
}

type formIn struct {
	Body struct {
		Name  string                `form:"name" required:"true" minLength:"2"`
		Count int                   `form:"count" default:"1" maximum:"9"`
		File  *multipart.FileHeader `form:"file"`
	}
}

type formOut struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
	File  string `json:"file"`
	Size  int64  `json:"size"`
}

type rawIn struct {
	Body []byte
}

type rawOut struct {
	ContentType string `header:"Content-Type"`
	Body        []byte
}

type readerIn struct {
	Body io.Reader
}

type readerOut struct {
	Body io.Reader
}

type deepIn struct {
	Filter map[string]string `query:"filter"`
	Page   struct {
		Size int `json:"size" default:"10"`
		From int `json:"from"`
	} `query:"page"`
}

type filesIn struct {
	Path string `path:"path"`
}

type filesIn2 struct {
	ID int64 `path:"id"`
}

type withRequestIn struct {
	ID  string `path:"id"`
	Req *http.Request
}

type resolvedIn struct {
	Tenant string `header:"X-Tenant"`
}

func (in *resolvedIn) Resolve(ctx context.Context, req *http.Request) []problem.FieldError {
	if in.Tenant == "forbidden" {
		return []problem.FieldError{{Location: "header.X-Tenant", Message: "no such tenant", Value: in.Tenant}}
	}
	if req.Host == "" {
		return []problem.FieldError{{Message: "no host"}}
	}
	return nil
}

type errIn struct {
	Code int `path:"code"`
}

type echo struct {
	Text string `json:"text"`
}

// ratio is a flat output with a float and a string slice: encoded from
// offsets, and by the codec when the float has no JSON form.
type ratioIn struct {
	X float64 `path:"x"`
}

type ratioOut struct {
	Ratio float64  `json:"ratio"`
	Parts []string `json:"parts"`
	Empty []string `json:"empty,omitempty"`
}

var modified = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

func differentialRouter() *vane.Router {
	r := vane.New()
	vane.Get(r, "/items/{id}", func(ctx context.Context, in *getItemIn) (*getItemOut, error) {
		out := &getItemOut{ETag: fmt.Sprintf(`"v%d"`, in.ID), Modified: modified}
		out.Body.ID, out.Body.Verbose, out.Body.Limit, out.Body.Tags = in.ID, in.Verbose, in.Limit, in.Tags
		out.Body.List, out.Body.Theme = in.Accept, in.Theme
		return out, nil
	})
	vane.Post(r, "/items", func(ctx context.Context, in *createIn) (*createOut, error) {
		return &createOut{Status: http.StatusCreated, Location: "/items/1", Body: in.Body}, nil
	}, vane.Responds(201, "created"))
	vane.Put(r, "/items/{id}", func(ctx context.Context, in *updateIn) (*item, error) {
		if err := in.Check(vane.Version{ETag: `"v1"`, Exists: true}); err != nil {
			return nil, err
		}
		return &in.Body, nil
	})
	vane.Delete(r, "/items/{id}", func(ctx context.Context, in *filesIn2) (*struct{}, error) { return nil, nil })
	vane.Get(r, "/ratio/{x}", func(ctx context.Context, in *ratioIn) (*ratioOut, error) {
		return &ratioOut{Ratio: 1 / in.X, Parts: strings.Split(fmt.Sprint(in.X), ".")}, nil
	})
	vane.Post(r, "/forms", func(ctx context.Context, in *formIn) (*formOut, error) {
		out := &formOut{Name: in.Body.Name, Count: in.Body.Count}
		if f := in.Body.File; f != nil {
			out.File, out.Size = f.Filename, f.Size
		}
		return out, nil
	})
	vane.Post(r, "/raw", func(ctx context.Context, in *rawIn) (*rawOut, error) {
		return &rawOut{ContentType: "text/plain; charset=utf-8", Body: bytes.ToUpper(in.Body)}, nil
	})
	vane.Post(r, "/reader", func(ctx context.Context, in *readerIn) (*readerOut, error) {
		b, err := io.ReadAll(in.Body)
		if err != nil {
			return nil, vane.Error(http.StatusRequestEntityTooLarge, err.Error())
		}
		return &readerOut{Body: strings.NewReader(strings.Repeat(string(b), 3))}, nil
	}, vane.BodyLimit(64))
	vane.Get(r, "/deep", func(ctx context.Context, in *deepIn) (*deepIn, error) { return in, nil })
	vane.Get(r, "/files/{path...}", func(ctx context.Context, in *filesIn) (*filesIn, error) { return in, nil })
	vane.Get(r, "/req/{id}", func(ctx context.Context, in *withRequestIn) (*echo, error) {
		return &echo{Text: in.ID + " " + in.Req.Method + " " + in.Req.URL.String() + " " + vane.Param(in.Req, "id") + " " + in.Req.Header.Get("X-A")}, nil
	})
	vane.Get(r, "/resolve", func(ctx context.Context, in *resolvedIn) (*echo, error) { return &echo{Text: in.Tenant}, nil })
	vane.Get(r, "/err/{code}", func(ctx context.Context, in *errIn) (*echo, error) {
		switch in.Code {
		case 404:
			return nil, vane.NotFound("no such thing")
		case 503:
			return nil, vane.Unavailable(0, "later")
		case 500:
			return nil, errors.New("a secret the client must not see")
		case 418:
			return nil, vane.Error(418, "teapot").With("brew", "earl grey").WithHeader("X-Teapot", "yes")
		}
		return &echo{Text: "ok"}, nil
	})
	vane.Get(r, "/panic", func(ctx context.Context, in *struct{}) (*echo, error) { panic("boom") })
	return r
}

func gzipped(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	io.WriteString(w, s)
	w.Close()
	return b.String()
}

func multipartBody() (string, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	w.WriteField("name", "rex")
	w.WriteField("count", "3")
	f, _ := w.CreateFormFile("file", "photo.png")
	f.Write(bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 50))
	w.Close()
	return b.String(), w.FormDataContentType()
}

// req formats a request: method, target, headers, body (its
// Content-Length added when it has one).
func req(method, target, body string, headers ...string) string {
	var b strings.Builder
	b.WriteString(method + " " + target + " HTTP/1.1\r\nHost: example.com\r\n")
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	if body != "" || method == "POST" || method == "PUT" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n" + body)
	return b.String()
}

const auth = "Authorization: Bearer t"

func differentialCorpus() map[string]string {
	mp, mpType := multipartBody()
	json := "Content-Type: application/json"
	return map[string]string{
		"get":                      req("GET", "/items/7?verbose=true&tag=a&tag=b%20c&limit=5", "", auth, "X-List: a, b", "X-List: c", "Cookie: theme=dark; x=1"),
		"get defaults":             req("GET", "/items/7", "", auth),
		"get head":                 req("HEAD", "/items/7", "", auth),
		"get bad id":               req("GET", "/items/0", "", auth),
		"get leading zero":         req("GET", "/items/07", "", auth),
		"get not an int":           req("GET", "/items/x?limit=1000", "", auth),
		"get missing auth":         req("GET", "/items/7", ""),
		"get bad cookie":           req("GET", "/items/7", "", auth, "Cookie: theme=blue"),
		"get if-none-match":        req("GET", "/items/7", "", auth, `If-None-Match: "v7"`),
		"get if-modified-since":    req("GET", "/items/7", "", auth, "If-Modified-Since: "+modified.Format(http.TimeFormat)),
		"get if-match fails":       req("GET", "/items/7", "", auth, `If-Match: "v1"`),
		"get not acceptable":       req("GET", "/items/7", "", auth, "Accept: text/html"),
		"get accept json":          req("GET", "/items/7", "", auth, "Accept: text/html, application/json;q=0.5"),
		"flat float":               req("GET", "/ratio/8", ""),
		"flat float exponent":      req("GET", "/ratio/1e300", ""),
		"flat float infinite":      req("GET", "/ratio/0", ""),
		"flat float head":          req("HEAD", "/ratio/8", ""),
		"flat accept lines":        req("GET", "/ratio/8", "", "Accept: text/html", "Accept: application/json;q=0.5"),
		"flat accept refused":      req("GET", "/ratio/8", "", "Accept: text/html", "Accept: application/xml"),
		"create":                   req("POST", "/items?dry=true", `{"name":"rex","email":"a@b.example","tags":["x"],"extra":{"k":[1,2]}}`, json),
		"create invalid":           req("POST", "/items", `{"name":"","email":"nope","tags":["a","b","c","d"]}`, json),
		"create mistyped":          req("POST", "/items", `{"name":1,"tags":"x"}`, json),
		"create malformed":         req("POST", "/items", `{"name":`, json),
		"create duplicate key":     req("POST", "/items", `{"name":"a","name":"b"}`, json),
		"create wrong type":        req("POST", "/items", `{"name":"a"}`, "Content-Type: text/plain"),
		"create no type":           req("POST", "/items", `{"name":"a"}`),
		"create empty":             req("POST", "/items", ``, json),
		"create gzip":              req("POST", "/items", gzipped(`{"name":"zipped"}`), json, "Content-Encoding: gzip"),
		"create bad gzip":          req("POST", "/items", "not gzip at all", json, "Content-Encoding: gzip"),
		"create unknown coding":    req("POST", "/items", `{}`, json, "Content-Encoding: br"),
		"create too large":         req("POST", "/items", `{"name":"`+strings.Repeat("a", 2<<20)+`"}`, json),
		"create chunked":           "POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n{\"name\r\n8\r\n\":\"rex\"}\r\n0\r\n\r\n",
		"create bad query":         req("POST", "/items?dry=maybe", `{"name":"a"}`, json),
		"update":                   req("PUT", "/items/1", `{"name":"rex"}`, json, `If-Match: "v1"`),
		"update stale":             req("PUT", "/items/1", `{"name":"rex"}`, json, `If-Match: "v0"`),
		"update if-match lines":    req("PUT", "/items/1", `{"name":"rex"}`, json, `If-Match: "v0"`, `If-Match: "v1"`),
		"post if-none-match *":     req("POST", "/items", `{"name":"a"}`, json, "If-None-Match: *"),
		"delete":                   req("DELETE", "/items/3", ""),
		"form urlencoded":          req("POST", "/forms", "name=rex&count=2", "Content-Type: application/x-www-form-urlencoded"),
		"form invalid":             req("POST", "/forms", "name=r&count=99", "Content-Type: application/x-www-form-urlencoded"),
		"form multipart":           req("POST", "/forms", mp, "Content-Type: "+mpType),
		"form no boundary":         req("POST", "/forms", mp, "Content-Type: multipart/form-data"),
		"raw":                      req("POST", "/raw", "hello", "Content-Type: application/octet-stream"),
		"reader":                   req("POST", "/reader", "ab", "Content-Type: application/octet-stream"),
		"reader over its limit":    req("POST", "/reader", strings.Repeat("z", 100), "Content-Type: application/octet-stream"),
		"deep":                     req("GET", "/deep?filter[color]=red&filter[size]=m&page[from]=3", ""),
		"deep bad":                 req("GET", "/deep?page[size]=x", ""),
		"files":                    req("GET", "/files/a/b/c.txt", ""),
		"files empty":              req("GET", "/files/", ""),
		"files escaped":            req("GET", "/files/a%2Fb/c", ""),
		"files dotted":             req("GET", "/files/a/../../etc", ""),
		"request field":            req("GET", "/req/9?q=1", "", "X-A: b"),
		"resolver":                 req("GET", "/resolve", "", "X-Tenant: acme"),
		"resolver refuses":         req("GET", "/resolve", "", "X-Tenant: forbidden"),
		"error 404":                req("GET", "/err/404", ""),
		"error 503":                req("GET", "/err/503", ""),
		"error 500":                req("GET", "/err/500", ""),
		"error 418":                req("GET", "/err/418", ""),
		"panic":                    req("GET", "/panic", ""),
		"no route":                 req("GET", "/nowhere", ""),
		"405":                      req("PATCH", "/items/1", "{}"),
		"options":                  req("OPTIONS", "/items/1", ""),
		"trailing slash":           req("GET", "/items/7/", "", auth),
		"unclean":                  req("GET", "/items/../items/7", "", auth),
		"escaped path":             req("GET", "/items/%37", "", auth),
		"utf-8 path":               req("GET", "/files/caf\xc3\xa9", ""),
		"fragment":                 req("GET", "/items/7?a=1#frag", "", auth),
		"absolute form":            req("GET", "http://example.com/items/7", "", auth),
		"asterisk":                 req("GET", "*", ""),
		"http/1.0":                 "GET /items/7 HTTP/1.0\r\nAuthorization: Bearer t\r\n\r\n",
		"no host":                  "GET /items/7 HTTP/1.1\r\nAuthorization: Bearer t\r\n\r\n",
		"two hosts":                "GET /items/7 HTTP/1.1\r\nHost: a\r\nHost: b\r\nAuthorization: Bearer t\r\n\r\n",
		"space before colon":       "GET /items/7 HTTP/1.1\r\nHost: a\r\nAuthorization : Bearer t\r\n\r\n",
		"declared over the server": "POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40000000\r\n\r\n{",
	}
}

// serverAnswers are the requests of the corpus that net/http's server
// answers itself, in text/plain: the engine answers them with the same
// status and a problem.
// fasthttp refuses itself, with the same 400, an asterisk-form target of
// any method but OPTIONS, and whitespace between a field name and its
// colon (RFC 9112 section 5.1), which versions before 1.78 kept in the
// name.
var serverAnswers = map[string]bool{"no host": true, "two hosts": true, "space before colon": true, "asterisk": true}

func TestDifferential(t *testing.T) {
	r := differentialRouter()
	addrs := map[string]string{}
	for _, eng := range engines {
		addrs[eng] = serveOn(t, eng, r, nil)
	}
	for name, raw := range differentialCorpus() {
		t.Run(name, func(t *testing.T) {
			var got [2][]answer
			for i, eng := range engines {
				got[i] = exchange(t, addrs[eng], raw, 1)
			}
			if len(got[0]) != len(got[1]) {
				t.Fatalf("net/http answered %d times, fast %d:\n%v\n%v", len(got[0]), len(got[1]), got[0], got[1])
			}
			for i := range got[0] {
				a, b := got[0][i].comparable(), got[1][i].comparable()
				if serverAnswers[name] {
					// Answered by the server before any handler: net/http
					// in text/plain, the fast engine with a problem
					// (documented in docs/guide/fast-engine.md).
					if a.status != b.status || b.header.Get("Content-Type") != "application/problem+json" {
						t.Errorf("statuses differ: net/http %d, fast %d %q", a.status, b.status, b.header.Get("Content-Type"))
					}
					continue
				}
				if !reflect.DeepEqual(a, b) {
					t.Errorf("answers differ:\nnet/http %v\nfast     %v", a, b)
				}
			}
		})
	}
}

// TestDifferentialRoutesAreNative: every typed operation of the
// differential router is served natively, so that TestDifferential
// checks the native path.
func TestDifferentialRoutesAreNative(t *testing.T) {
	for _, rt := range Routes(differentialRouter()) {
		if !rt.Native {
			t.Errorf("%s %s is served by the adapter: %s", rt.Method, rt.Pattern, rt.Reason)
		}
	}
}
