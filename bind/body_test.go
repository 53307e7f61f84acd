package bind

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vane-http/vane/problem"
)

// A JSON body must say it is JSON: a JSON media type, in UTF-8. A body
// that says nothing (or says it badly) is refused, so that a cross-site
// form post cannot reach a JSON operation.
func TestJSONContentType(t *testing.T) {
	cases := []struct {
		ct     []string
		status int
		detail string
	}{
		{[]string{"application/json"}, 0, ""},
		{[]string{"application/json; charset=utf-8"}, 0, ""},
		{[]string{"APPLICATION/JSON;CHARSET=UTF-8"}, 0, ""},
		{[]string{"application/merge-patch+json"}, 0, ""},
		{nil, 415, "a request body needs a Content-Type; send application/json"},
		{[]string{""}, 415, "a request body needs a Content-Type"},
		{[]string{";;;"}, 415, `Content-Type ";;;" is malformed; send application/json`},
		{[]string{"application/json;"}, 0, ""},
		{[]string{"application/json; charset"}, 415, "is malformed"},
		{[]string{"application/json", "application/json"}, 415, "is malformed"},
		{[]string{"text/plain"}, 415, `content type "text/plain" is not supported; send application/json or another application/*+json type`},
		{[]string{"application/x-www-form-urlencoded"}, 415, "not supported"},
		{[]string{"multipart/form-data; boundary=x"}, 415, "not supported"},
		{[]string{"text/json"}, 415, "not supported"},
		{[]string{"application/json; charset=iso-8859-1"}, 415, `charset "iso-8859-1" is not supported; JSON is sent in UTF-8`},
	}
	b := compile(t, reflect.TypeFor[createInput](), "POST", "/items")
	for _, c := range cases {
		t.Run(strings.Join(c.ct, "|"), func(t *testing.T) {
			req := httptest.NewRequest("POST", "/items", strings.NewReader(`{"name":"x"}`))
			if c.ct != nil {
				req.Header["Content-Type"] = c.ct
			}
			var in createInput
			prob := b.Bind(req, nil, &in, &State{})
			if c.status == 0 {
				if prob != nil || in.Body.Name != "x" {
					t.Errorf("%v %+v", prob, in)
				}
				return
			}
			if prob == nil || prob.Status != c.status || !strings.Contains(prob.Detail, c.detail) {
				t.Errorf("got %v, want %d %q", prob, c.status, c.detail)
			}
		})
	}
	// An empty body needs no Content-Type: it is the missing body.
	var in optionalInput
	if prob := b.Bind(httptest.NewRequest("POST", "/items", nil), nil, &createInput{}, &State{}); prob == nil || prob.Status != 422 {
		t.Errorf("empty required body: %v", prob)
	}
	ob := compile(t, reflect.TypeFor[optionalInput](), "POST", "/items")
	if prob := ob.Bind(httptest.NewRequest("POST", "/items", nil), nil, &in, &State{}); prob != nil || in.Body != nil {
		t.Errorf("empty optional body: %v", prob)
	}
}

// Keys match exactly; an inexact key is unknown, and not bound.
// Duplicate keys are a 400 naming the key and where it is.
func TestStrictJSONBodies(t *testing.T) {
	type line struct {
		Name string `json:"name"`
	}
	type order struct {
		Body struct {
			Name  string `json:"name"`
			Lines []line `json:"lines"`
		}
	}
	b := compile(t, reflect.TypeFor[order](), "POST", "/orders")
	bind := func(body string) (order, *State, error) {
		req := httptest.NewRequest("POST", "/orders", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		var o order
		st := &State{}
		if prob := b.Bind(req, nil, &o, st); prob != nil {
			return o, st, prob
		}
		return o, st, nil
	}
	o, st, err := bind(`{"NAME":"a","Name":"b","lines":[{"NAME":"c"}]}`)
	if err != nil || o.Body.Name != "" || len(o.Body.Lines) != 1 || o.Body.Lines[0].Name != "" {
		t.Errorf("inexact keys bound: %+v %v", o, err)
	}
	if string(st.RawJSON) == "" {
		t.Error("the raw JSON goes to the validator, which decides on unknown keys")
	}
	cases := []struct {
		body, loc, detail string
	}{
		{`{"name":"a","name":"b"}`, "body.name", `malformed JSON at byte offset 12: duplicate key "name"`},
		{`{"lines":[{"name":"a"},{"name":"b","name":"c"}]}`, "body.lines[1].name", `duplicate key "name"`},
		{`{"extra":{"k":1,"k":2}}`, "body.extra.k", `duplicate key "k"`},
	}
	for _, c := range cases {
		t.Run(c.body, func(t *testing.T) {
			_, _, err := bind(c.body)
			prob, _ := err.(interface{ StatusCode() int })
			if prob == nil || prob.StatusCode() != 400 || !strings.Contains(err.Error(), c.detail) || !strings.Contains(err.Error(), c.loc+": duplicate key") {
				t.Errorf("got %v, want 400 %q at %s", err, c.detail, c.loc)
			}
		})
	}
}

func TestDecodeErrorsKeepLocations(t *testing.T) {
	type in struct {
		Body struct {
			Items []struct {
				Count int8 `json:"count"`
			} `json:"items"`
		}
	}
	cases := []struct {
		body   string
		status int
		want   string
	}{
		{`{"items":[{"count":1},{"count":"x"}]}`, 422, `body.items[1].count: expected integer, got string "x"`},
		{`{"items":[{"count":1000}]}`, 422, "body.items[0].count: got number 1000, out of range for int8"},
		{`{"items":[{"count":1},}`, 400, "malformed JSON at byte offset 21: invalid character ',' at start of value (in body.items)"},
		{`{"items":[{"count":1}`, 400, "malformed JSON at byte offset 21: unexpected EOF"},
		{"{\"items\":\"\xff\"}", 400, "malformed JSON at byte offset 10: invalid UTF-8 (in body.items)"},
		{`[1]`, 422, "body: expected object, got array"},
	}
	b := compile(t, reflect.TypeFor[in](), "POST", "/x")
	for _, c := range cases {
		t.Run(c.body, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/x", strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			prob := b.Bind(req, nil, &in{}, &State{})
			if prob == nil || prob.Status != c.status || !strings.Contains(prob.Error(), c.want) {
				t.Errorf("got %v, want %d %q", prob, c.status, c.want)
			}
		})
	}
}

// A []byte or io.Reader body is raw: any content type, or none.
func TestRawBodiesTakeAnyType(t *testing.T) {
	type raw struct{ Body []byte }
	for _, ct := range []string{"", "image/png", ";;;"} {
		t.Run(ct, func(t *testing.T) {
			var r raw
			prob, st := bindBody(t, reflect.TypeFor[raw](), 0, ct, "\x89PNG", &r)
			st.Release()
			if prob != nil || string(r.Body) != "\x89PNG" {
				t.Errorf("%v %q", prob, r.Body)
			}
		})
	}
}

func TestFormContentTypes(t *testing.T) {
	cases := []struct {
		ct     string
		body   string
		status int
	}{
		{"application/x-www-form-urlencoded", "user=ann", 0},
		{"application/x-www-form-urlencoded; charset=utf-8", "user=ann", 0},
		{"", "user=ann", 415},
		{";;;", "user=ann", 415},
		{"application/json", `{"user":"ann"}`, 415},
		{"multipart/form-data", "x", 400}, // no boundary
		{"multipart/form-data; boundary=" + strings.Repeat("b", 70), "--" + strings.Repeat("b", 70) + "\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nann\r\n--" + strings.Repeat("b", 70) + "--\r\n", 0},
		{"multipart/form-data; boundary=" + strings.Repeat("b", 71), "--" + strings.Repeat("b", 71) + "\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nann\r\n--" + strings.Repeat("b", 71) + "--\r\n", 400},
		{"multipart/form-data; boundary=" + strings.Repeat("b", 5000), "--" + strings.Repeat("b", 5000) + "\r\n", 400},    // past mime/multipart's buffer: its error text was the detail
		{"multipart/form-data; boundary=zz", "--zz\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nann\r\n", 400}, // no closing boundary
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%.60s", c.ct), func(t *testing.T) {
			var l login
			prob, _ := bindBody(t, reflect.TypeFor[login](), 0, c.ct, c.body, &l)
			if c.status == 0 {
				if prob != nil || l.Body.User != "ann" {
					t.Errorf("%v %+v", prob, l)
				}
				return
			}
			if prob == nil || prob.Status != c.status {
				t.Errorf("got %v, want %d", prob, c.status)
			}
			if prob != nil && strings.Contains(prob.Detail, "bufio") {
				t.Errorf("the detail shows mime/multipart's internals: %q", prob.Detail)
			}
		})
	}
}

func multipartBody(t *testing.T, build func(*multipart.Writer)) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	build(mw)
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), mw.FormDataContentType()
}

// Files past MultipartMemory go to temporary files, which Cleanup removes
// once the handler is done; the handler can read them until then.
func TestMultipartTemporaryFilesAreRemoved(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	big := strings.Repeat("0123456789abcdef", 4096) // 64 KiB
	body, ct := multipartBody(t, func(mw *multipart.Writer) {
		mw.WriteField("title", "report")
		fw, _ := mw.CreateFormFile("file", "big.bin")
		fw.Write([]byte(big))
		fw, _ = mw.CreateFormFile("unknown", "other.bin") // a part the input does not declare
		fw.Write([]byte(big))
	})
	b, err := Compile(reflect.TypeFor[upload](), Config{Method: "POST", Pattern: "/u", MultipartMemory: 1024})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", "/u", strings.NewReader(body))
	req.Header.Set("Content-Type", ct)
	var u upload
	var st State
	if prob := b.Bind(req, nil, &u, &st); prob != nil {
		t.Fatal(prob)
	}
	files, _ := os.ReadDir(dir)
	if len(files) == 0 {
		t.Fatal("no temporary file: the test does not test anything")
	}
	f, err := u.Body.File.Open()
	if err != nil {
		t.Fatal(err)
	}
	content, _ := io.ReadAll(f)
	f.Close()
	if string(content) != big {
		t.Errorf("file content: %d bytes", len(content))
	}
	st.Cleanup()
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("left behind: %v", files)
	}
	st.Cleanup() // twice is fine
}

// A multipart body that fails half-way leaves no temporary file either.
func TestMultipartFailuresLeaveNoFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	body, ct := multipartBody(t, func(mw *multipart.Writer) {
		fw, _ := mw.CreateFormFile("file", "big.bin")
		fw.Write(bytes.Repeat([]byte("x"), 64<<10))
	})
	b, err := Compile(reflect.TypeFor[upload](), Config{Method: "POST", Pattern: "/u", MultipartMemory: 1024})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", "/u", strings.NewReader(body[:len(body)-20])) // cut before the end
	req.Header.Set("Content-Type", ct)
	var st State
	prob := b.Bind(req, nil, &upload{}, &st)
	st.Cleanup()
	if prob == nil || prob.Status != 400 {
		t.Errorf("truncated multipart: %v", prob)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("left behind: %v", files)
	}
}

// Parts are bounded: more than mime/multipart's 1000 is a 413.
func TestMultipartPartsAreBounded(t *testing.T) {
	body, ct := multipartBody(t, func(mw *multipart.Writer) {
		mw.WriteField("title", "x")
		for i := range 1200 {
			mw.WriteField(fmt.Sprintf("f%d", i), "v")
		}
	})
	var st State
	b, err := Compile(reflect.TypeFor[upload](), Config{Method: "POST", Pattern: "/u"})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", "/u", strings.NewReader(body))
	req.Header.Set("Content-Type", ct)
	p := b.Bind(req, nil, &upload{}, &st)
	st.Cleanup()
	if p == nil || p.Status != 413 || !strings.Contains(p.Detail, "too many parts") {
		t.Errorf("got %v", p)
	}
}

// A multipart field or file of one value sent in two parts is refused, as
// in a query or an urlencoded form: which of them a reader takes would
// depend on the reader. Lists take every part.
func TestMultipartRepeatedFieldRefused(t *testing.T) {
	b, err := Compile(reflect.TypeFor[upload](), Config{Method: "POST", Pattern: "/u"})
	if err != nil {
		t.Fatal(err)
	}
	file := func(mw *multipart.Writer, name string) {
		fw, _ := mw.CreateFormFile(name, name+".bin")
		fw.Write([]byte("data"))
	}
	for what, c := range map[string]struct {
		build func(*multipart.Writer)
		msg   string
	}{
		"a field twice":        {func(mw *multipart.Writer) { mw.WriteField("title", "a"); mw.WriteField("title", "b"); file(mw, "file") }, string(errRepeated)},
		"a field twice, alike": {func(mw *multipart.Writer) { mw.WriteField("title", "a"); mw.WriteField("title", "a"); file(mw, "file") }, string(errRepeated)},
		"an integer twice": {func(mw *multipart.Writer) {
			mw.WriteField("title", "a")
			mw.WriteField("count", "1")
			mw.WriteField("count", "2")
			file(mw, "file")
		}, string(errRepeated)},
		"a file in two parts": {func(mw *multipart.Writer) { mw.WriteField("title", "a"); file(mw, "file"); file(mw, "file") }, string(errRepeatedFile)},
	} {
		body, ct := multipartBody(t, c.build)
		req := httptest.NewRequest("POST", "/u", strings.NewReader(body))
		req.Header.Set("Content-Type", ct)
		var st State
		prob := b.Bind(req, nil, &upload{}, &st)
		st.Cleanup()
		if prob == nil || prob.Status != 422 || len(prob.Errors) != 1 || prob.Errors[0].Message != c.msg {
			t.Errorf("%s: %v, want one 422: %s", what, prob, c.msg)
		}
	}
	body, ct := multipartBody(t, func(mw *multipart.Writer) {
		mw.WriteField("title", "a")
		mw.WriteField("tag", "x")
		mw.WriteField("tag", "y")
		file(mw, "file")
		file(mw, "more")
		file(mw, "more")
	})
	req := httptest.NewRequest("POST", "/u", strings.NewReader(body))
	req.Header.Set("Content-Type", ct)
	var u upload
	var st State
	prob := b.Bind(req, nil, &u, &st)
	defer st.Cleanup()
	if prob != nil || len(u.Body.Tags) != 2 || len(u.Body.More) != 2 {
		t.Errorf("lists take every part: %v, tags %v, %d files", prob, u.Body.Tags, len(u.Body.More))
	}
}

// A malformed multipart body is a 400 in the client's terms, never
// mime/multipart's own message; a temporary file that cannot be written
// is the server's failure (500), and its path is not shown.
func TestMultipartFailuresSayWhat(t *testing.T) {
	b, err := Compile(reflect.TypeFor[upload](), Config{Method: "POST", Pattern: "/u", MultipartMemory: 1024})
	if err != nil {
		t.Fatal(err)
	}
	bind := func(body, ct string) *problem.Details {
		req := httptest.NewRequest("POST", "/u", strings.NewReader(body))
		req.Header.Set("Content-Type", ct)
		var st State
		defer st.Cleanup()
		return b.Bind(req, nil, &upload{}, &st)
	}
	bad := "--b\r\nContent-Disposition form-data; name=\"title\"\r\n\r\nx\r\n--b--\r\n" // a header line without its colon
	prob := bind(bad, "multipart/form-data; boundary=b")
	if prob == nil || prob.Status != 400 || strings.Contains(prob.Detail, "multipart:") || strings.Contains(prob.Detail, "MIME") {
		t.Errorf("a header line without a colon: %v, want a 400 in the client's terms", prob)
	}
	missing := filepath.Join(t.TempDir(), "gone")
	t.Setenv("TMPDIR", missing)
	body, ct := multipartBody(t, func(mw *multipart.Writer) {
		mw.WriteField("title", "x")
		fw, _ := mw.CreateFormFile("file", "big.bin")
		fw.Write(bytes.Repeat([]byte("x"), 64<<10))
	})
	prob = bind(body, ct)
	if prob == nil || prob.Status != 500 || strings.Contains(prob.Detail, missing) || strings.Contains(prob.Detail, "gone") {
		t.Errorf("no temporary directory: %v, want a 500 that names no path", prob)
	}
}
