package bind_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/vane-http/vane"
)

type echoIn struct {
	Body struct {
		Name string `json:"name"`
	}
}

type echoOut struct {
	Body struct {
		Name string `json:"name"`
	}
}

func echo(ctx context.Context, in *echoIn) (*echoOut, error) {
	out := &echoOut{}
	out.Body.Name = in.Body.Name
	return out, nil
}

// A router served by plain net/http, without vane.Serve and its outer
// limit, still limits the bodies of typed operations: 1 MiB by default.
func TestDefaultBodyLimitWithoutServe(t *testing.T) {
	r := vane.New()
	vane.Post(r, "/echo", echo)
	srv := httptest.NewServer(r)
	defer srv.Close()
	big := `{"name":"` + strings.Repeat("x", 2<<20) + `"}`
	fits := `{"name":"` + strings.Repeat("x", 1<<20-100) + `"}`
	cases := []struct {
		name    string
		body    io.Reader
		length  int64 // -1: chunked
		status  int
		problem bool
	}{
		{"2 MiB declared", strings.NewReader(big), int64(len(big)), 413, true},
		{"2 MiB chunked", io.MultiReader(strings.NewReader(big)), -1, 413, true},
		{"just under 1 MiB", strings.NewReader(fits), int64(len(fits)), 200, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", srv.URL+"/echo", c.body)
			req.ContentLength = c.length
			req.Header.Set("Content-Type", "application/json")
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != c.status || c.problem != (resp.Header.Get("Content-Type") == "application/problem+json") {
				t.Errorf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		})
	}
}

type uploadIn struct {
	Body struct {
		File *multipart.FileHeader `form:"file" required:"true"`
	}
}

// The temporary files of a multipart body live as long as the handler
// and are removed once the response is written, whoever serves the router.
func TestMultipartFilesRemovedAfterTheHandler(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	var seen []os.DirEntry
	var content int
	r := vane.New(vane.BodyLimit(64 << 20)) // files past 32 MiB go to disk
	vane.Post(r, "/upload", func(ctx context.Context, in *uploadIn) (*struct{}, error) {
		seen, _ = os.ReadDir(dir)
		f, err := in.Body.File.Open()
		if err != nil {
			return nil, err
		}
		defer f.Close()
		n, _ := io.Copy(io.Discard, f)
		content = int(n)
		return nil, nil
	})
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "big.bin")
	fw.Write(bytes.Repeat([]byte("v"), 33<<20))
	mw.Close()
	ct := mw.FormDataContentType()
	serveDirect := func() int {
		req := httptest.NewRequest("POST", "/upload", bytes.NewReader(buf.Bytes()))
		req.Header.Set("Content-Type", ct)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w.Code
	}
	srv := httptest.NewServer(r)
	defer srv.Close()
	serveHTTP := func() int {
		resp, err := srv.Client().Post(srv.URL+"/upload", ct, bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for name, do := range map[string]func() int{"ServeHTTP": serveDirect, "net/http server": serveHTTP} {
		t.Run(name, func(t *testing.T) {
			seen, content = nil, 0
			if code := do(); code != 204 {
				t.Fatalf("status %d", code)
			}
			if len(seen) == 0 || content != 33<<20 {
				t.Fatalf("during the handler: %d files, %d bytes read", len(seen), content)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

type cookieIn struct {
	Session *http.Cookie `cookie:"session" required:"true"`
	Theme   http.Cookie  `cookie:"theme"`
}

func TestCookieInputs(t *testing.T) {
	r := vane.New()
	vane.Get(r, "/me", func(ctx context.Context, in *cookieIn) (*struct{ Body []string }, error) {
		return &struct{ Body []string }{Body: []string{in.Session.Name, in.Session.Value, in.Theme.Value}}, nil
	})
	req := httptest.NewRequest("GET", "/me", nil)
	req.AddCookie(&http.Cookie{Name: "session", Value: "s3cr3t"})
	req.AddCookie(&http.Cookie{Name: "theme", Value: "dark"})
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != `["session","s3cr3t","dark"]` {
		t.Errorf("%d %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/me", nil))
	if w.Code != 422 || !strings.Contains(w.Body.String(), "cookie.session") {
		t.Errorf("missing required cookie: %d %s", w.Code, w.Body)
	}
	p := r.Operations()[0].Param("cookie", "session")
	if p == nil || !p.Required || p.Schema.Type != "string" {
		t.Errorf("documented as %+v", p)
	}
}

// An http.Cookie anywhere but in a cookie is refused when the operation
// is registered, with a message naming the type and field.
func TestCookieOutsideACookieIsARegistrationError(t *testing.T) {
	type in struct {
		C http.Cookie `header:"Cookie"`
	}
	msg := func() (msg string) {
		defer func() { msg, _ = recover().(string) }()
		vane.Get(vane.New(), "/c", func(ctx context.Context, _ *in) (*struct{}, error) { return nil, nil })
		return ""
	}()
	if !strings.Contains(msg, "in.C") || !strings.Contains(msg, "is bound from a cookie") {
		t.Errorf("panic: %q", msg)
	}
}

type searchIn struct {
	Tags   []string          `query:"tag" maxItems:"3"`
	IDs    []int             `query:"ids" explode:"false"`
	Filter map[string]string `query:"filter" maxProperties:"2"`
}

// Lists and objects in the query are bound as the document describes them,
// and checked by the rules of their tags.
func TestQueryStylesEndToEnd(t *testing.T) {
	r := vane.New()
	vane.Get(r, "/search", func(ctx context.Context, in *searchIn) (*struct{ Body searchIn }, error) {
		return &struct{ Body searchIn }{Body: *in}, nil
	})
	cases := []struct {
		query  string
		status int
		body   string
	}{
		{"tag=a,b&tag=c&ids=1,2&filter[x]=1&filter[y]=2", 200, `{"Tags":["a,b","c"],"IDs":[1,2],"Filter":{"x":"1","y":"2"}}`},
		{"tag=a&tag=b&tag=c&tag=d", 422, "query.tag"},
		{"filter[x]=1&filter[y]=2&filter[z]=3", 422, "query.filter"},
		{"ids=1,x", 422, "query.ids"},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest("GET", "/search?"+c.query, nil))
			if w.Code != c.status || !strings.Contains(w.Body.String(), c.body) {
				t.Errorf("%d %s", w.Code, w.Body)
			}
		})
	}
	d := r.Operations()[0]
	for name, want := range map[string]string{"tag": "form true", "ids": "form false", "filter": "deepObject true"} {
		t.Run("documented "+name, func(t *testing.T) {
			p := d.Param("query", name)
			b, _ := json.Marshal(p.Explode)
			if got := p.Style + " " + string(b); got != want {
				t.Errorf("documented as %s, want %s", got, want)
			}
		})
	}
}

type requiredIn struct {
	Body struct {
		Name string `json:"name"`
	}
}

// A key differing in case does not satisfy a required property: the
// validator's scan of the raw body matches keys as exactly as the decoder.
func TestRequiredKeyMatchesExactly(t *testing.T) {
	r := vane.New()
	vane.Post(r, "/s", func(ctx context.Context, in *requiredIn) (*struct{ Body string }, error) {
		return &struct{ Body string }{Body: in.Body.Name}, nil
	})
	for body, want := range map[string]int{`{"NAME":"a"}`: 422, `{"Name":"a"}`: 422, `{"name":"a"}`: 200} {
		t.Run(body, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/s", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != want {
				t.Fatalf("%s: %d %s, want %d", body, w.Code, w.Body, want)
			}
			if want == 422 && !strings.Contains(w.Body.String(), `"location":"body.name","message":"required property is missing"`) {
				t.Errorf("%s: %s", body, w.Body)
			}
		})
	}
}

type strictIn struct {
	Body struct {
		Name string `json:"name,omitempty"`
	}
}

// Keys match exactly: {"NAME":"a"} does not fill name (whether the
// unknown key is then refused is the validator's decision); a duplicate
// key is a 400 naming it and where it is.
func TestStrictJSONEndToEnd(t *testing.T) {
	r := vane.New()
	vane.Post(r, "/s", func(ctx context.Context, in *strictIn) (*struct{ Body string }, error) {
		return &struct{ Body string }{Body: in.Body.Name}, nil
	})
	post := func(body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/s", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w
	}
	if w := post(`{"NAME":"a"}`); w.Code == 200 && strings.Contains(w.Body.String(), "a") {
		t.Errorf("NAME filled name: %s", w.Body)
	}
	w := post(`{"name":"a","name":"b"}`)
	if w.Code != 400 || !strings.Contains(w.Body.String(), `"location":"body.name","message":"duplicate key"`) {
		t.Errorf("duplicate: %d %s", w.Code, w.Body)
	}
	if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("problem without nosniff: %q", got)
	}
}

// A typed operation's integer path parameter has one spelling: /pets/01,
// /pets/+1 and /pets/-0 are 422s naming path.id (not other URLs of pet
// 1 or 0), /pets/0 is bound and then refused by its minimum, as before,
// and /pets/1 reaches the handler.
func TestPathIntegerSpellingEndToEnd(t *testing.T) {
	type getPet struct {
		ID int64 `path:"id" minimum:"1"`
	}
	r := vane.New()
	vane.Get(r, "/pets/{id}", func(ctx context.Context, in *getPet) (*struct{ Body int64 }, error) {
		return &struct{ Body int64 }{in.ID}, nil
	})
	for _, c := range []struct {
		path, status, message string
	}{
		{"/pets/01", "422", "no leading zeros"},
		{"/pets/+1", "422", "no + sign"},
		{"/pets/-0", "422", "rather than -0"},
		{"/pets/%2B1", "422", "no + sign"},
		{"/pets/0", "422", "expected number >= 1"},
		{"/pets/1", "200", ""},
	} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", c.path, nil))
		body := w.Body.String()
		if strconv.Itoa(w.Code) != c.status || c.message != "" && (!strings.Contains(body, c.message) || !strings.Contains(body, `"path.id"`)) ||
			c.status == "200" && strings.TrimSpace(body) != "1" {
			t.Errorf("%s: %d %s", c.path, w.Code, body)
		}
	}
}

// A typed operation reads every member of a gzip body, and refuses
// bytes after the last one, over a real connection.
func TestGzipMembersEndToEnd(t *testing.T) {
	r := vane.New()
	vane.Post(r, "/echo", echo)
	srv := httptest.NewServer(r)
	defer srv.Close()
	member := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	two := append(member(`{"name":"Re`), member(`x"}`)...)
	for _, c := range []struct {
		name   string
		body   []byte
		status int
		want   string
	}{
		{"two members", two, 200, `{"name":"Rex"}`},
		{"garbage after a member", append(member(`{"name":"Rex"}`), "garbage"...), 400, "not gzip throughout"},
	} {
		req, _ := http.NewRequest("POST", srv.URL+"/echo", bytes.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Encoding", "gzip")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.status || !strings.Contains(string(body), c.want) {
			t.Errorf("%s: %d %s", c.name, res.StatusCode, body)
		}
	}
}
