package bind

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

type level int

func (l *level) UnmarshalText(b []byte) error {
	switch string(b) {
	case "low":
		*l = 1
	case "high":
		*l = 2
	default:
		return io.ErrUnexpectedEOF
	}
	return nil
}

type everything struct {
	Org     string        `path:"org"`
	ID      int64         `path:"id"`
	S       string        `query:"s"`
	B       bool          `query:"b"`
	I       int           `query:"i"`
	I8      int8          `query:"i8"`
	I16     int16         `query:"i16"`
	I32     int32         `query:"i32"`
	U       uint          `query:"u"`
	U8      uint8         `query:"u8"`
	U16     uint16        `query:"u16"`
	U32     uint32        `query:"u32"`
	U64     uint64        `query:"u64"`
	F32     float32       `query:"f32"`
	F64     float64       `query:"f64"`
	T       time.Time     `query:"t"`
	Day     time.Time     `query:"day" format:"date"`
	D       time.Duration `query:"d"`
	Addr    netip.Addr    `query:"addr"`
	Level   level         `query:"level"`
	P       *int          `query:"p"`
	Tags    []string      `query:"tag"`
	Nums    []int         `query:"n"`
	Limit   int           `query:"limit" default:"20"`
	Sort    []string      `query:"sort" default:"name,id"`
	Auth    string        `header:"Authorization" required:"true"`
	Accept  []string      `header:"Accept"`
	Retries *uint8        `header:"x-retries"`
	Theme   string        `cookie:"theme"`
	Session int           `cookie:"session_id"`
	Ignored string
}

func compile(t testing.TB, typ reflect.Type, method, pattern string, params ...string) *Binder {
	t.Helper()
	b, err := Compile(typ, Config{Method: method, Pattern: pattern, PathParams: params})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A parameter of one value sent twice is refused, whichever of its values
// a proxy in front might have read: the document allows one.
func TestRepeatedScalarRefused(t *testing.T) {
	type in struct {
		S    string   `query:"s"`
		I    int      `query:"i"`
		B    bool     `query:"b"`
		Tags []string `query:"tag"`
	}
	b := compile(t, reflect.TypeFor[in](), "GET", "/x")
	for _, q := range []string{"s=a&s=b", "s=a&s=a", "i=1&i=1", "b=true&b=false", "tag=a&s=x&tag=b&s=y"} {
		var v in
		var st State
		prob := b.Bind(httptest.NewRequest("GET", "/x?"+q, nil), nil, &v, &st)
		st.Release()
		if prob == nil || prob.Status != 422 || len(prob.Errors) != 1 || prob.Errors[0].Message != string(errRepeated) {
			t.Errorf("?%s: %v, want one 422 naming the repeated parameter", q, prob)
		}
	}
	var v in
	var st State
	if prob := b.Bind(httptest.NewRequest("GET", "/x?tag=a&tag=b&s=x", nil), nil, &v, &st); prob != nil || len(v.Tags) != 2 || v.S != "x" {
		t.Errorf("a list takes every value: %v %+v", prob, v)
	}
}

func TestEverySourceAndType(t *testing.T) {
	b := compile(t, reflect.TypeFor[everything](), "GET", "/orgs/{org}/items/{id}", "org", "id")
	req := httptest.NewRequest("GET", "/x?s=a+b%21&b=true&i=-1&i8=-8&i16=16&i32=32&u=1&u8=8&u16=16&u32=32&u64=64&f32=1.5&f64=-2.25"+
		"&t=2024-01-02T03:04:05Z&day=2024-02-29&d=1m30s&addr=10.0.0.1&level=high&p=7&tag=a&tag=b,c&n=1&n=2&n=3", nil)
	req.Header.Set("Authorization", "Bearer x")
	req.Header.Add("Accept", "a/b, c/d")
	req.Header.Add("Accept", "e/f")
	req.Header.Set("X-Retries", "3")
	req.Header.Set("Cookie", `theme="dark"; session_id=42`)
	var in everything
	var st State
	if prob := b.Bind(req, []string{"acme", "99"}, &in, &st); prob != nil {
		t.Fatalf("bind: %v", prob)
	}
	st.Release()
	want := everything{
		Org: "acme", ID: 99, S: "a b!", B: true, I: -1, I8: -8, I16: 16, I32: 32, U: 1, U8: 8, U16: 16, U32: 32, U64: 64,
		F32: 1.5, F64: -2.25, T: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), Day: time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
		D: 90 * time.Second, Addr: netip.MustParseAddr("10.0.0.1"), Level: 2, Tags: []string{"a", "b,c"}, Nums: []int{1, 2, 3},
		Limit: 20, Sort: []string{"name", "id"}, Auth: "Bearer x", Accept: []string{"a/b", "c/d", "e/f"}, Theme: "dark", Session: 42,
	}
	if in.P == nil || *in.P != 7 || in.Retries == nil || *in.Retries != 3 {
		t.Fatalf("pointers: %v %v", in.P, in.Retries)
	}
	in.P, in.Retries = nil, nil
	if !reflect.DeepEqual(in, want) {
		t.Errorf("got  %+v\nwant %+v", in, want)
	}
	// Every parameter but the defaulted-or-absent ones is present; the
	// defaults count as present (they are validated too).
	if st.Present == 0 {
		t.Error("no presence bits")
	}
}

func TestBindingAllocatesNothingForScalars(t *testing.T) {
	type in struct {
		ID    int64  `path:"id"`
		Name  string `query:"name"`
		Limit int    `query:"limit" default:"10"`
		Auth  string `header:"Authorization"`
		Theme string `cookie:"theme"`
	}
	b := compile(t, reflect.TypeFor[in](), "GET", "/{id}", "id")
	req := httptest.NewRequest("GET", "/1?name=x&limit=5", nil)
	req.Header.Set("Authorization", "a")
	req.Header.Set("Cookie", "theme=dark")
	vals := []string{"1"}
	var v in
	n := testing.AllocsPerRun(100, func() {
		var st State
		b.Bind(req, vals, &v, &st)
		st.Release()
	})
	if n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func TestParameterErrors(t *testing.T) {
	b := compile(t, reflect.TypeFor[everything](), "GET", "/orgs/{org}/items/{id}", "org", "id")
	req := httptest.NewRequest("GET", "/x?i=x&i8=300&u=-1&b=maybe&t=yesterday&d=long&addr=nope&level=mid&f64=x&n=1,x&s=%zz", nil)
	req.Header.Set("Cookie", "session_id=abc")
	var in everything
	var st State
	prob := b.Bind(req, []string{"acme", "nine"}, &in, &st)
	if prob == nil || prob.Status != 422 {
		t.Fatalf("want 422, got %v", prob)
	}
	got := map[string]string{}
	for _, e := range prob.Errors {
		got[e.Location] = e.Message
	}
	want := map[string]string{
		"path.id":              "expected an integer",
		"query.i":              "expected an integer",
		"query.i8":             "integer out of range for 8 bits",
		"query.u":              "expected an integer",
		"query.b":              "expected a boolean",
		"query.t":              "expected a date-time (RFC 3339)",
		"query.d":              "expected a duration such as 1m30s",
		"query.addr":           "invalid value: ParseAddr(\"nope\"): unable to parse IP",
		"query.level":          "invalid value: unexpected EOF",
		"query.f64":            "expected a number",
		"query.n":              "expected an integer",
		"query.s":              "invalid URL escape",
		"header.Authorization": "required parameter is missing",
		"cookie.session_id":    "expected an integer",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %v\nwant %v", got, want)
	}
}

func TestCompileErrorsNameTypeFieldAndPattern(t *testing.T) {
	type noField struct {
		ID int `path:"id"`
	}
	type mapHeader struct {
		M map[string]int `header:"X-M"`
	}
	type sliceCookie struct {
		C []string `cookie:"c"`
	}
	type bodyOnGet struct {
		Body struct{ A int }
	}
	type badDefault struct {
		N int `query:"n" default:"many"`
	}
	cases := []struct {
		typ     reflect.Type
		method  string
		pattern string
		params  []string
		want    string
	}{
		{reflect.TypeFor[noField](), "GET", "/a/{id}/{other}", []string{"id", "other"}, "no field binds path parameter {other}"},
		{reflect.TypeFor[noField](), "GET", "/a", nil, `path parameter "id" is not in the pattern`},
		{reflect.TypeFor[mapHeader](), "GET", "/a", nil, "bound only from the query, in style deepObject"},
		{reflect.TypeFor[sliceCookie](), "GET", "/a", nil, "cookie parameter cannot be a slice"},
		{reflect.TypeFor[bodyOnGet](), "GET", "/a", nil, "GET operation takes no request body"},
		{reflect.TypeFor[badDefault](), "GET", "/a", nil, `default "many"`},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			_, err := Compile(c.typ, Config{Method: c.method, Pattern: c.pattern, PathParams: c.params})
			if err == nil {
				t.Fatalf("%v: no error", c.typ)
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, c.typ.Name()) || !strings.Contains(msg, c.pattern) {
				t.Errorf("%v: %q should name the type, pattern and %q", c.typ, msg, c.want)
			}
		})
	}
}

type item struct {
	Name  string   `json:"name"`
	Count int      `json:"count"`
	Tags  []string `json:"tags,omitempty"`
}

type createInput struct {
	Body item
}

type optionalInput struct {
	Body *item
}

func bindBody(t *testing.T, typ reflect.Type, limit int64, ct, body string, v any) (*problem.Details, *State) {
	t.Helper()
	b, err := Compile(typ, Config{Method: "POST", Pattern: "/items", BodyLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", "/items", strings.NewReader(body))
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	st := &State{}
	return b.Bind(req, nil, v, st), st
}

func TestJSONBody(t *testing.T) {
	var in createInput
	prob, st := bindBody(t, reflect.TypeFor[createInput](), 0, "application/json; charset=utf-8", `{"name":"lamp","count":2}`, &in)
	if prob != nil || in.Body.Name != "lamp" || in.Body.Count != 2 {
		t.Fatalf("%v %+v", prob, in)
	}
	if string(st.RawJSON) != `{"name":"lamp","count":2}` {
		t.Errorf("raw JSON kept for the validator: %q", st.RawJSON)
	}
	st.Release()

	// +json media types, parameters and any case are JSON too.
	for _, ct := range []string{"application/merge-patch+json", "Application/JSON;charset=UTF-8", `application/vnd.api+json; ext="x;y"`} {
		t.Run(ct, func(t *testing.T) {
			var in createInput
			if prob, _ := bindBody(t, reflect.TypeFor[createInput](), 0, ct, `{"name":"x"}`, &in); prob != nil || in.Body.Name != "x" {
				t.Errorf("%q: %v", ct, prob)
			}
		})
	}
}

func TestBodyErrors(t *testing.T) {
	typ := reflect.TypeFor[createInput]()
	cases := []struct {
		name, ct, body string
		limit          int64
		status         int
		detail         string
		loc            string
	}{
		{"wrong content type", "text/plain", `{}`, 0, 415, `content type "text/plain" is not supported; send application/json`, ""},
		{"too large", "application/json", `{"name":"` + strings.Repeat("x", 100) + `"}`, 50, 413, "larger than the limit of 50 bytes", ""},
		{"malformed", "application/json", `{"name": "x",}`, 0, 400, "malformed JSON at byte offset 12", ""},
		{"truncated", "application/json", `{"name": "x"`, 0, 400, "malformed JSON", ""},
		{"wrong type", "application/json", `{"name": 5}`, 0, 422, "validation failed", "body.name"},
		{"empty but required", "application/json", ``, 0, 422, "validation failed", "body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var in createInput
			prob, _ := bindBody(t, typ, c.limit, c.ct, c.body, &in)
			if prob == nil || prob.Status != c.status || !strings.Contains(prob.Detail, c.detail) {
				t.Fatalf("got %+v, want %d %q", prob, c.status, c.detail)
			}
			if c.loc != "" && (len(prob.Errors) != 1 || prob.Errors[0].Location != c.loc) {
				t.Errorf("errors %+v, want location %s", prob.Errors, c.loc)
			}
		})
	}
	// An optional (pointer) body may be empty.
	var opt optionalInput
	if prob, _ := bindBody(t, reflect.TypeFor[optionalInput](), 0, "", "", &opt); prob != nil || opt.Body != nil {
		t.Errorf("optional body: %v %v", prob, opt.Body)
	}
}

func TestRawBodies(t *testing.T) {
	type raw struct{ Body []byte }
	type stream struct{ Body io.Reader }
	var r raw
	prob, st := bindBody(t, reflect.TypeFor[raw](), 0, "image/png", "\x89PNG", &r)
	st.Release()
	if prob != nil || string(r.Body) != "\x89PNG" {
		t.Fatalf("[]byte body: %v %q", prob, r.Body)
	}
	// A stream is limited as it is read (its length unknown here), or at
	// once when its declared length is over the limit.
	b, err := Compile(reflect.TypeFor[stream](), Config{Method: "POST", Pattern: "/s", BodyLimit: 4})
	if err != nil {
		t.Fatal(err)
	}
	var s stream
	req := httptest.NewRequest("POST", "/s", io.MultiReader(strings.NewReader("a,b\n1,2\n")))
	if prob := b.Bind(req, nil, &s, &State{}); prob != nil {
		t.Fatal(prob)
	}
	if _, err := io.ReadAll(s.Body); err == nil {
		t.Error("reading past the limit from an io.Reader body should fail")
	}
	if prob, _ := bindBody(t, reflect.TypeFor[stream](), 4, "text/csv", "a,b\n1,2\n", &stream{}); prob == nil || prob.Status != 413 {
		t.Errorf("declared length over the limit: %v", prob)
	}
}

type upload struct {
	Body struct {
		Title string                  `form:"title" required:"true"`
		Count int                     `form:"count" default:"1"`
		Tags  []string                `form:"tag"`
		File  *multipart.FileHeader   `form:"file" required:"true"`
		More  []*multipart.FileHeader `form:"more"`
	}
}

type login struct {
	Body struct {
		User     string `form:"user" required:"true"`
		Remember bool   `form:"remember"`
	}
}

func TestForms(t *testing.T) {
	var l login
	prob, st := bindBody(t, reflect.TypeFor[login](), 0, "application/x-www-form-urlencoded", "user=ann+lee&remember=true", &l)
	st.Release()
	if prob != nil || l.Body.User != "ann lee" || !l.Body.Remember {
		t.Fatalf("urlencoded: %v %+v", prob, l)
	}
	prob, _ = bindBody(t, reflect.TypeFor[login](), 0, "application/x-www-form-urlencoded", "remember=1", &login{})
	if prob == nil || prob.Status != 422 || prob.Errors[0].Location != "body.user" {
		t.Errorf("missing form field: %+v", prob)
	}

	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("title", "report")
	mw.WriteField("tag", "a")
	mw.WriteField("tag", "b")
	fw, _ := mw.CreateFormFile("file", "r.txt")
	fw.Write([]byte("hello"))
	fw, _ = mw.CreateFormFile("more", "s.txt")
	fw.Write([]byte("x"))
	mw.Close()
	var u upload
	prob, _ = bindBody(t, reflect.TypeFor[upload](), 0, mw.FormDataContentType(), buf.String(), &u)
	if prob != nil {
		t.Fatal(prob)
	}
	if u.Body.Title != "report" || u.Body.Count != 1 || len(u.Body.Tags) != 2 || u.Body.File == nil || u.Body.File.Filename != "r.txt" || len(u.Body.More) != 1 {
		t.Errorf("multipart: %+v", u.Body)
	}
	f, _ := u.Body.File.Open()
	content, _ := io.ReadAll(f)
	if string(content) != "hello" {
		t.Errorf("file content %q", content)
	}
	// A form with files accepts multipart only.
	prob, _ = bindBody(t, reflect.TypeFor[upload](), 0, "application/x-www-form-urlencoded", "title=x", &upload{})
	if prob == nil || prob.Status != 415 {
		t.Errorf("urlencoded to a file form: %+v", prob)
	}
	// Over the limit.
	prob, _ = bindBody(t, reflect.TypeFor[upload](), 100, mw.FormDataContentType(), buf.String(), &upload{})
	if prob == nil || prob.Status != 413 {
		t.Errorf("multipart over the limit: %+v", prob)
	}
}

func TestDescription(t *testing.T) {
	b := compile(t, reflect.TypeFor[everything](), "GET", "/orgs/{org}/items/{id}", "org", "id")
	byName := map[string]int{}
	for i, p := range b.Parameters {
		byName[p.In+"."+p.Name] = i
	}
	tag := b.Parameters[byName["query.tag"]]
	if tag.Style != "form" || tag.Explode == nil || !*tag.Explode || tag.Schema.Type != "array" {
		t.Errorf("query slice: %+v", tag)
	}
	if p := b.Parameters[byName["path.id"]]; !p.Required || p.Schema.Type != "integer" {
		t.Errorf("path: %+v", p)
	}
	if p := b.Parameters[byName["header.Authorization"]]; !p.Required {
		t.Errorf("required header: %+v", p)
	}
	if p := b.Parameters[byName["query.limit"]]; p.Required || p.Schema.Default != int64(20) {
		t.Errorf("default: %+v %v", p, p.Schema.Default)
	}
	u, err := Compile(reflect.TypeFor[upload](), Config{Method: "POST", Pattern: "/u"})
	if err != nil {
		t.Fatal(err)
	}
	if len(u.RequestBody.Content) != 1 || u.RequestBody.Content[0].MediaType != "multipart/form-data" {
		t.Errorf("upload body: %+v", u.RequestBody)
	}
	if s := u.RequestBody.Content[0].Schema; s.Properties["file"].ContentMediaType != "application/octet-stream" || !s.IsRequired("file") {
		t.Errorf("file schema: %+v", s)
	}
}

var _ = http.MethodGet

func TestDurationAndBytesParameters(t *testing.T) {
	type in struct {
		Wait time.Duration `query:"wait" default:"1m30s"`
		Raw  []byte        `query:"raw"`
	}
	b := compile(t, reflect.TypeFor[in](), "GET", "/")
	var v in
	var st State
	if prob := b.Bind(httptest.NewRequest("GET", "/?raw=abc", nil), nil, &v, &st); prob != nil {
		t.Fatal(prob)
	}
	if v.Wait != 90*time.Second || string(v.Raw) != "abc" {
		t.Errorf("%+v", v)
	}
	if p := b.Parameters[1]; p.Schema.Type != "string" || p.Schema.ContentEncoding != "" {
		t.Errorf("%s: schema %+v", p.Name, p.Schema)
	}
}

func TestFileFieldsKeepTheirTags(t *testing.T) {
	type in struct {
		Body struct {
			File   *multipart.FileHeader   `form:"file" doc:"The picture." deprecated:"true"`
			Extras []*multipart.FileHeader `form:"extras" doc:"More pictures." maxItems:"3"`
		}
	}
	b, err := Compile(reflect.TypeFor[in](), Config{Method: "POST", Pattern: "/u"})
	if err != nil {
		t.Fatal(err)
	}
	s := b.RequestBody.Content[0].Schema
	if f := s.Properties["file"]; f.Description != "The picture." || !f.Deprecated || f.Type != "string" || f.ContentMediaType != "application/octet-stream" {
		t.Errorf("file: %+v", f)
	}
	if f := s.Properties["extras"]; f.Description != "More pictures." || f.MaxItems == nil || *f.MaxItems != 3 || f.Items == nil || f.Items.ContentMediaType != "application/octet-stream" {
		t.Errorf("extras: %+v", f)
	}
}

// Duration parameters and form values are Go duration text ("1m30s"), and
// documented so: a string with the syntax's pattern, not JSON's integer
// nanoseconds.
func TestDurationTextIsDocumentedAsText(t *testing.T) {
	type in struct {
		Wait    time.Duration   `query:"wait" default:"1m30s" enum:"1m30s,2m"`
		Steps   []time.Duration `query:"step"`
		Timeout *time.Duration  `header:"X-Timeout" doc:"How long to wait."`
		Body    struct {
			TTL time.Duration `form:"ttl"`
		}
	}
	b, err := Compile(reflect.TypeFor[in](), Config{Method: "POST", Pattern: "/"})
	if err != nil {
		t.Fatal(err)
	}
	isText := func(what string, s *schema.Schema) {
		t.Helper()
		if s == nil || s.Type != "string" || s.Format != "" || s.Pattern != schema.DurationPattern {
			t.Errorf("%s: %+v", what, s)
		}
	}
	wait := b.Parameters[0].Schema
	isText("wait", wait)
	if wait.Default != "1m30s" || len(wait.Enum) != 2 || wait.Enum[1] != "2m" || wait.Description == "" {
		t.Errorf("wait: default %v, enum %v, description %q", wait.Default, wait.Enum, wait.Description)
	}
	if s := b.Parameters[1].Schema; s.Type != "array" {
		t.Errorf("step: %+v", s)
	} else {
		isText("step items", s.Items)
	}
	isText("X-Timeout", b.Parameters[2].Schema)
	isText("form ttl", b.RequestBody.Content[0].Schema.Properties["ttl"])
}

// An integer parameter or form field has one spelling per value: digits
// without leading zeros, after '-' for a negative value; 01, +1, -0 and
// 007 are refused (422) in the path, the query, a header, a cookie and a
// form, for every integer kind, while 0, 7 and -7 bind. A path names a
// resource: /pets/1 and /pets/01 must not both name pet 1.
func TestIntegerHasOneSpelling(t *testing.T) {
	type ints struct {
		ID     int64  `path:"id"`
		U      uint16 `path:"u"`
		I      int    `query:"i"`
		I8     int8   `query:"i8"`
		U64    uint64 `query:"u64"`
		P      *int32 `query:"p"`
		List   []int  `query:"list" explode:"false"`
		Hdr    int    `header:"X-N"`
		Cookie uint   `cookie:"c"`
		Body   struct {
			F int `form:"f"`
		}
	}
	b := compile(t, reflect.TypeFor[ints](), "POST", "/pets/{id}/{u}", "id", "u")
	bind := func(v string) (*ints, *problem.Details) {
		q := "i=" + v + "&i8=" + v + "&u64=" + v + "&p=" + v + "&list=1," + v
		req := httptest.NewRequest("POST", "/x?"+strings.ReplaceAll(q, "+", "%2B"), strings.NewReader("f="+strings.ReplaceAll(v, "+", "%2B")))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-N", v)
		req.Header.Set("Cookie", "c="+v)
		var in ints
		var st State
		defer st.Cleanup()
		defer st.Release()
		return &in, b.Bind(req, []string{v, v}, &in, &st)
	}
	for _, v := range []string{"01", "+1", "-0", "007", "+0", "00", "-01"} {
		_, prob := bind(v)
		if prob == nil || prob.Status != 422 {
			t.Fatalf("%q: want 422, got %v", v, prob)
		}
		got := map[string]bool{}
		for _, e := range prob.Errors {
			got[e.Location] = true
			if (strings.HasPrefix(e.Location, "path.") || strings.HasPrefix(e.Location, "header.")) && e.Value != v {
				t.Errorf("%q: %s: value %q", v, e.Location, e.Value)
			}
		}
		// Unsigned kinds refuse a sign of their own accord; every
		// location is refused either way.
		for _, loc := range []string{"path.id", "path.u", "query.i", "query.i8", "query.u64", "query.p", "query.list", "header.X-N", "cookie.c", "body.f"} {
			if !got[loc] {
				t.Errorf("%q: %s accepted (errors %v)", v, loc, prob.Errors)
			}
		}
	}
	for _, c := range []struct {
		v    string
		want int64
	}{{"0", 0}, {"7", 7}, {"10", 10}} {
		in, prob := bind(c.v)
		if prob != nil || in.ID != c.want || int64(in.U) != c.want || int64(in.I) != c.want || int64(*in.P) != c.want ||
			int64(in.Hdr) != c.want || int64(in.Cookie) != c.want || int64(in.Body.F) != c.want || len(in.List) != 2 {
			t.Errorf("%q: %+v %v", c.v, in, prob)
		}
	}
	var neg struct {
		ID int64 `path:"id"`
		N  int8  `query:"n"`
	}
	nb := compile(t, reflect.TypeOf(neg), "GET", "/a/{id}", "id")
	var st State
	if prob := nb.Bind(httptest.NewRequest("GET", "/x?n=-128", nil), []string{"-7"}, &neg, &st); prob != nil || neg.ID != -7 || neg.N != -128 {
		t.Errorf("negative values: %+v %v", neg, prob)
	}
}

// A header of one value sent in several field lines is their values
// joined by commas (RFC 9110 section 5.3), which its schema then checks:
// an integer refuses it, a free string gets the whole list.
// Reading the first line alone would let a proxy in front, which combines
// them, check another value than the handler gets.
func TestRepeatedScalarHeaderIsOneList(t *testing.T) {
	type in struct {
		N    int    `header:"X-N"`
		Text string `header:"X-Text"`
	}
	b := compile(t, reflect.TypeFor[in](), "GET", "/x")
	for _, c := range []struct {
		name  string
		lines []string
		loc   string
	}{
		{"X-N", []string{"1", "2"}, "header.X-N"},
		{"X-N", []string{"1", "1"}, "header.X-N"},
	} {
		req := httptest.NewRequest("GET", "/x", nil)
		req.Header[c.name] = c.lines
		var v in
		var st State
		prob := b.Bind(req, nil, &v, &st)
		st.Release()
		if prob == nil || prob.Status != 422 || len(prob.Errors) != 1 || prob.Errors[0].Location != c.loc || prob.Errors[0].Value != strings.Join(c.lines, ", ") {
			t.Errorf("%s: %q: %v, want one 422 at %s with the joined value", c.name, c.lines, prob, c.loc)
		}
	}
	req := httptest.NewRequest("GET", "/x", nil)
	req.Header["X-Text"] = []string{"a", "b"}
	req.Header["X-N"] = []string{"7"}
	var v in
	var st State
	if prob := b.Bind(req, nil, &v, &st); prob != nil || v.Text != "a, b" || v.N != 7 {
		t.Errorf("X-Text in two lines: %v %+v, want \"a, b\"", prob, v)
	}
	st.Release()
}

// A query value whose bytes are not UTF-8, escaped or raw, is a 422: no
// JSON Schema string holds it (a JSON body's are refused too). UTF-8,
// escaped or raw, is bound.
func TestQueryValueNotUTF8(t *testing.T) {
	type in struct {
		S    string   `query:"s"`
		Tags []string `query:"tag"`
	}
	b := compile(t, reflect.TypeFor[in](), "GET", "/x")
	for _, q := range []string{"s=%FF", "s=%C0%AF", "s=%ED%A0%80", "s=a\xffb", "tag=a&tag=%FF", "s=%F4%90%80%80"} {
		req := httptest.NewRequest("GET", "/x", nil)
		req.URL.RawQuery = q
		var v in
		var st State
		prob := b.Bind(req, nil, &v, &st)
		st.Release()
		if prob == nil || prob.Status != 422 || len(prob.Errors) != 1 || prob.Errors[0].Message != string(errNotUTF8) {
			t.Errorf("?%q: %v %+v, want one 422: %s", q, prob, v, errNotUTF8)
		}
	}
	for q, want := range map[string]string{"s=%C3%A9": "é", "s=\xc3\xa9": "é", "s=%F0%9F%91%8D": "👍"} {
		req := httptest.NewRequest("GET", "/x", nil)
		req.URL.RawQuery = q
		var v in
		var st State
		if prob := b.Bind(req, nil, &v, &st); prob != nil || v.S != want {
			t.Errorf("?%q: %v %q, want %q", q, prob, v.S, want)
		}
		st.Release()
	}
}
