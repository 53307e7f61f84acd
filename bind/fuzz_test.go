package bind

import (
	"bytes"
	"flag"
	"github.com/vane-http/vane/internal/addr"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/vane-http/vane/problem"
)

// budget is the time one input of n bytes may take while fuzzing:
// generous, so that a loaded machine does not fail it, and far below what
// a super-linear binder takes on a hostile input.
func budget(n int) time.Duration {
	d := 200*time.Millisecond + time.Duration(n)*time.Microsecond
	if raceEnabled {
		d *= 10
	}
	return d
}

// fuzzing reports whether the test binary runs the fuzzer (go test -fuzz,
// make fuzz), not only the seed corpus as a plain go test run does.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// timed runs f and, while fuzzing, fails t when it takes longer than the
// budget for n bytes: the fuzzer searches for inputs that take long. A
// plain go test run of the seed corpus asserts nothing on time, which
// would depend on the machine's load.
func timed(t *testing.T, n int, f func()) {
	t.Helper()
	if !fuzzing() {
		f()
		return
	}
	start := time.Now()
	f()
	if took := time.Since(start); took > budget(n) {
		t.Fatalf("%d bytes took %v", n, took)
	}
}

// checkProblem fails t unless prob is nil or a client error of a status
// the binder documents.
func checkProblem(t *testing.T, prob *problem.Details, statuses ...int) {
	t.Helper()
	if prob == nil {
		return
	}
	for _, s := range statuses {
		if prob.Status == s {
			return
		}
	}
	t.Fatalf("status %d: %v", prob.Status, prob)
}

type fuzzParams struct {
	everything
	Styles styles
}

func allUTF8(ss []string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// FuzzQuery: any query string binds, or fails with a 422, in time linear
// in its length.
func FuzzQuery(f *testing.F) {
	for _, q := range []string{
		"s=a+b%21&b=true&i=-1&tag=a&tag=b,c&n=1&n=2&limit=5",
		"ids=1,2,3&words=a%2Cb,c&space=a%20b+c&pipe=a|b&filter[a]=1&filter%5Bb%5D=2&page[size]=3&page[order]=x&age[x]=1",
		"filter[a][b]=1&page[size]=x&ids=,,&tag=&%zz=1&s=%zz", "&&&=&==&filter[=1&filter]=2&[]=", "i8=300&u=-1&f32=1e99&d=1h&t=x", "s=%FF", "s=a\xffb&tag=%C0%AF",
	} {
		f.Add(q)
	}
	b := compile(f, reflect.TypeFor[everything](), "GET", "/orgs/{org}/items/{id}", "org", "id")
	sb := compile(f, reflect.TypeFor[styles](), "GET", "/")
	f.Fuzz(func(t *testing.T, query string) {
		req := httptest.NewRequest("GET", "/", nil)
		req.URL.RawQuery = query
		req.Header.Set("Authorization", "x")
		timed(t, len(query), func() {
			var v everything
			prob := b.Bind(req, []string{"o", "1"}, &v, &State{})
			checkProblem(t, prob, 422)
			if prob == nil && (!utf8.ValidString(v.S) || !allUTF8(v.Tags)) {
				t.Fatalf("bound bytes that are not UTF-8: %q %q", v.S, v.Tags)
			}
			var s styles
			checkProblem(t, sb.Bind(req, nil, &s, &State{}), 422)
			// What ?tag=… sends is what is bound: every value, unsplit
			// (values that are not UTF-8 are refused).
			if vals, err := url.ParseQuery(query); err == nil {
				if tags := vals["tag"]; len(tags) > 0 && allUTF8(tags) && !reflect.DeepEqual(s.Tags, tags) {
					t.Fatalf("tags %q from %q", s.Tags, tags)
				}
			}
		})
	})
}

// FuzzHeadersAndCookies: any header list and Cookie header binds or fails
// with a 422, in linear time.
func FuzzHeadersAndCookies(f *testing.F) {
	f.Add("a/b, c/d", "3", `theme="dark"; session_id=42`)
	f.Add(",,, ,", "x", `;;; =; session_id="; theme=`)
	b := compile(f, reflect.TypeFor[everything](), "GET", "/orgs/{org}/items/{id}", "org", "id")
	type cookies struct {
		C  http.Cookie  `cookie:"c"`
		P  *http.Cookie `cookie:"p"`
		ID int          `cookie:"session_id"`
	}
	cb := compile(f, reflect.TypeFor[cookies](), "GET", "/")
	f.Fuzz(func(t *testing.T, accept, retries, cookie string) {
		req := httptest.NewRequest("GET", "/", nil)
		req.Header["Authorization"] = []string{"x"}
		req.Header["Accept"] = []string{accept}
		req.Header["X-Retries"] = []string{retries}
		req.Header["Cookie"] = []string{cookie}
		timed(t, len(accept)+len(retries)+len(cookie), func() {
			checkProblem(t, b.Bind(req, []string{"o", "1"}, &everything{}, &State{}), 422)
			checkProblem(t, cb.Bind(req, nil, &cookies{}, &State{}), 422)
		})
	})
}

// FuzzJSONBody: any body and Content-Type gets the body bound or a 400,
// 413, 415 or 422, in linear time.
func FuzzJSONBody(f *testing.F) {
	for _, s := range [][2]string{
		{"application/json", `{"name":"lamp","count":2,"tags":["a"]}`},
		{"application/json; charset=utf-8", `{"name":"a","name":"b"}`},
		{"application/merge-patch+json", `{"NAME":"a","count":"x"}`},
		{"text/plain", `{}`}, {";;;", `{}`}, {"", `{}`}, {"application/json", ``}, {"application/json", `[[[[`},
		{"application/json; charset=latin1", `{}`}, {"application/json", "{\"name\":\"\xff\"}"},
	} {
		f.Add(s[0], []byte(s[1]))
	}
	b, err := Compile(reflect.TypeFor[createInput](), Config{Method: "POST", Pattern: "/items", BodyLimit: 4096})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		req := httptest.NewRequest("POST", "/items", bytes.NewReader(body))
		req.Header["Content-Type"] = []string{ct}
		timed(t, len(body)+len(ct), func() {
			var st State
			checkProblem(t, b.Bind(req, nil, &createInput{}, &st), 400, 413, 415, 422)
			st.Release()
		})
	})
}

// FuzzForm: any urlencoded or multipart body binds or fails with a
// 400, 413, 415 or 422, in linear time, leaving no temporary file.
func FuzzForm(f *testing.F) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("title", "report")
	mw.WriteField("tag", "a")
	fw, _ := mw.CreateFormFile("file", "r.txt")
	fw.Write([]byte("hello"))
	mw.Close()
	f.Add(mw.FormDataContentType(), buf.Bytes())
	f.Add("multipart/form-data; boundary=x", []byte("--x\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nt\r\n--x--\r\n"))
	f.Add("application/x-www-form-urlencoded", []byte("title=x&count=2&tag=a&tag=b"))
	f.Add("application/x-www-form-urlencoded", []byte("count=x&%zz&title"))
	dir := f.TempDir()
	os.Setenv("TMPDIR", dir) //nolint:usetesting // f.Setenv cannot be used with f.Fuzz
	defer os.Unsetenv("TMPDIR")
	type textForm struct {
		Body struct {
			Title string   `form:"title" required:"true"`
			Count int      `form:"count" default:"1"`
			Tags  []string `form:"tag"`
		}
	}
	ub, err := Compile(reflect.TypeFor[upload](), Config{Method: "POST", Pattern: "/u", BodyLimit: 8192, MultipartMemory: 64})
	if err != nil {
		f.Fatal(err)
	}
	tb, err := Compile(reflect.TypeFor[textForm](), Config{Method: "POST", Pattern: "/t", BodyLimit: 8192})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		timed(t, len(body)+len(ct), func() {
			for _, bind := range []func(*http.Request, *State) *problem.Details{
				func(req *http.Request, st *State) *problem.Details { return ub.Bind(req, nil, &upload{}, st) },
				func(req *http.Request, st *State) *problem.Details { return tb.Bind(req, nil, &textForm{}, st) },
			} {
				req := httptest.NewRequest("POST", "/", bytes.NewReader(body))
				req.Header["Content-Type"] = []string{ct}
				var st State
				checkProblem(t, bind(req, &st), 400, 413, 415, 422)
				st.Release()
				st.Cleanup()
			}
		})
		if files, _ := os.ReadDir(dir); len(files) != 0 {
			t.Fatalf("temporary files left: %v", files)
		}
	})
}

// FuzzMediaType: the Content-Type parser never accepts what
// mime.ParseMediaType refuses, and agrees with it on the media type.
func FuzzMediaType(f *testing.F) {
	for _, s := range []string{"application/json", "Application/JSON; charset=\"utf-8\"", ";;;", "a/b;c=d;;", `a/b; c="\"x\""`, "a/b c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ct string) {
		timed(t, len(ct), func() {
			mt, params, ok := parseMediaType(ct)
			if !ok {
				return
			}
			want, wantParams, err := mime.ParseMediaType(ct)
			if err != nil {
				if strings.Contains(err.Error(), "duplicate parameter") || strings.Contains(err.Error(), "invalid media parameter") {
					return // RFC 9110 allows both; mime does not
				}
				t.Fatalf("%q: accepted, but mime says %v", ct, err)
			}
			if mt != want {
				t.Fatalf("%q: %q, mime %q", ct, mt, want)
			}
			if cs, ok := mediaParam(params, "charset"); ok && cs != wantParams["charset"] {
				t.Fatalf("%q: charset %q, mime %q", ct, cs, wantParams["charset"])
			}
		})
	})
}

// Every integer kind accepts a text exactly when it is the one spelling
// of a value in range (what strconv.FormatInt or FormatUint writes for
// it), on the fast path (int, int64) and the parsers alike, and stores
// that value.
func FuzzIntegerSpelling(f *testing.F) {
	for _, s := range []string{"0", "-0", "01", "+1", "-1", "007", "127", "128", "-128", "-129", "255", "256", "9223372036854775807",
		"-9223372036854775808", "18446744073709551615", "1_0", "0x10", " 1", "1 ", "", "-", "+", "١",
		"999999999999999999", "9999999999999999999", "10000000000000000000", "09", "1a", "1/"} {
		f.Add(s)
	}
	kinds := []reflect.Type{reflect.TypeFor[int](), reflect.TypeFor[int8](), reflect.TypeFor[int16](), reflect.TypeFor[int32](), reflect.TypeFor[int64](),
		reflect.TypeFor[uint](), reflect.TypeFor[uint8](), reflect.TypeFor[uint16](), reflect.TypeFor[uint32](), reflect.TypeFor[uint64]()}
	parsers := make([]parser, len(kinds))
	for i, k := range kinds {
		p, err := scalarParser(k, "")
		if err != nil {
			f.Fatal(err)
		}
		parsers[i] = p
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, k := range kinds {
			v := reflect.New(k)
			err := parsers[i](s, addr.OfValue(v))
			var spelled string
			var inRange bool
			if k.Kind() >= reflect.Uint && k.Kind() <= reflect.Uint64 {
				n, perr := strconv.ParseUint(s, 10, k.Bits())
				spelled, inRange = strconv.FormatUint(n, 10), perr == nil
				if err == nil && v.Elem().Uint() != n {
					t.Fatalf("%v %q: stored %v", k, s, v.Elem())
				}
			} else {
				n, perr := strconv.ParseInt(s, 10, k.Bits())
				spelled, inRange = strconv.FormatInt(n, 10), perr == nil
				if err == nil && v.Elem().Int() != n {
					t.Fatalf("%v %q: stored %v", k, s, v.Elem())
				}
			}
			if want := inRange && spelled == s; (err == nil) != want {
				t.Fatalf("%v %q: accepted %v, want %v (%v)", k, s, err == nil, want, err)
			}
			if fk := fastKind(k); fk != fastNone {
				fp := param{fast: fk, parse: parsers[i]}
				w := reflect.New(k)
				if ferr := fp.set(s, addr.OfValue(w)); (ferr == nil) != (err == nil) || ferr == nil && w.Elem().Int() != v.Elem().Int() {
					t.Fatalf("%v %q: fast path %v %v, parser %v %v", k, s, w.Elem(), ferr, v.Elem(), err)
				}
			}
		}
	})
}
