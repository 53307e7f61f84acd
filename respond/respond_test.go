package respond_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/respond"
	"github.com/vane-http/vane/schema"
)

type created struct {
	Status   int       `json:"-"`
	Location string    `header:"Location"`
	Modified time.Time `header:"Last-Modified"`
	Tags     []string  `header:"X-Tag"`
	Body     struct {
		ID int `json:"id"`
	}
}

func ExampleOutput_Write() {
	out, err := respond.Compile(reflect.TypeFor[created](), schema.NewRegistry("#/components/schemas/"))
	if err != nil {
		panic(err)
	}
	v := &created{Status: http.StatusCreated, Location: "/pets/7", Tags: []string{"a", "b"}}
	v.Body.ID = 7
	w := httptest.NewRecorder()
	if err := out.Write(w, nil, v, http.StatusOK, respond.NewEncoders(codec.JSON)); err != nil {
		panic(err)
	}
	fmt.Println(w.Code, w.Header().Get("Location"), w.Header()["X-Tag"], w.Header().Get("Content-Type"))
	fmt.Println(w.Body.String())
	// Output:
	// 201 /pets/7 [a b] application/json
	// {"id":7}
}

func TestWriteNoBodyStatuses(t *testing.T) {
	out, err := respond.Compile(reflect.TypeFor[created](), schema.NewRegistry("#/components/schemas/"))
	if err != nil {
		t.Fatal(err)
	}
	for _, status := range []int{http.StatusNoContent, http.StatusResetContent, http.StatusNotModified} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			w := httptest.NewRecorder()
			if err := out.Write(w, nil, &created{Status: status}, http.StatusOK, respond.NewEncoders(codec.JSON)); err != nil {
				t.Fatal(err)
			}
			if w.Code != status || w.Body.Len() != 0 {
				t.Errorf("%d %q, want %d and no body", w.Code, w.Body, status)
			}
		})
	}
}

func TestWriteRefusesAnotherType(t *testing.T) {
	out, err := respond.Compile(reflect.TypeFor[created](), schema.NewRegistry("#/components/schemas/"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "want *respond_test.created") {
			t.Errorf("panic %v", r)
		}
	}()
	out.Write(httptest.NewRecorder(), nil, &struct{ Body string }{}, 200, respond.NewEncoders(codec.JSON))
}

// Responses lists the success response, the extra ones and exactly the
// errors operation.ErrorStatuses names, by status.
func TestResponses(t *testing.T) {
	reg := schema.NewRegistry("#/components/schemas/")
	out, err := respond.Compile(reflect.TypeFor[created](), reg)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		d    operation.Description
		want string
	}{
		{"no input", operation.Description{Method: "GET", Status: 201}, "201 304 404 412 500"},
		{"parameters", operation.Description{Method: "GET", Status: 201, Parameters: []operation.Parameter{{Name: "id", In: "path"}}}, "201 304 404 412 422 500"},
		{"body", operation.Description{Method: "POST", Status: 201, RequestBody: &operation.RequestBody{}}, "201 400 404 408 412 413 415 422 500"},
		{"a write without input", operation.Description{Method: "DELETE", Status: 201}, "201 404 412 500"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			list, err := out.Responses(&c.d, map[int]string{404: "no such pet"}, reg, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range list {
				got = append(got, fmt.Sprint(r.Status))
				if r.Status >= 400 && (len(r.Content) != 1 || r.Content[0].MediaType != "application/problem+json") {
					t.Errorf("%d: content %+v", r.Status, r.Content)
				}
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("statuses %v, want %s", got, c.want)
			}
			if list[0].Headers == nil || list[0].Content[0].MediaType != "application/json" {
				t.Errorf("success response %+v", list[0])
			}
		})
	}
}

type login struct {
	Session  http.Cookie  `doc:"The session cookie."`
	Prefs    *http.Cookie `header:"Set-Cookie"`
	Trackers []*http.Cookie
	Body     struct {
		User string `json:"user"`
	}
}

// Cookie fields become Set-Cookie lines, documented once as the
// Set-Cookie header; a cookie under another header name is refused.
func TestSetCookie(t *testing.T) {
	reg := schema.NewRegistry("#/components/schemas/")
	out, err := respond.Compile(reflect.TypeFor[login](), reg)
	if err != nil {
		t.Fatal(err)
	}
	v := &login{Session: http.Cookie{Name: "session", Value: "abc", HttpOnly: true, Path: "/"},
		Trackers: []*http.Cookie{{Name: "a", Value: "1"}, nil, {Name: "b", Value: "2", MaxAge: 60}}}
	w := httptest.NewRecorder()
	if err := out.Write(w, nil, v, 200, respond.NewEncoders(codec.JSON)); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(w.Header()["Set-Cookie"], " | ")
	if want := "session=abc; Path=/; HttpOnly | a=1 | b=2; Max-Age=60"; got != want {
		t.Errorf("Set-Cookie %q, want %q", got, want)
	}
	list, err := out.Responses(&operation.Description{Status: 200}, nil, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h := list[0].Headers; len(h) != 1 || h[0].Name != "Set-Cookie" || h[0].Description != "The session cookie." {
		t.Errorf("documented headers %+v", h)
	}
	type bad struct {
		C    http.Cookie `header:"Cookie"`
		Body string
	}
	if _, err := respond.Compile(reflect.TypeFor[bad](), reg); err == nil || !strings.Contains(err.Error(), "Set-Cookie") {
		t.Errorf("a cookie under another header: %v", err)
	}
}

// A body whose media type Accept chooses says so in Vary, so that a cache
// keys it by Accept; with JSON alone, or a raw body, there is nothing to
// vary.
func TestVaryAccept(t *testing.T) {
	type tagged struct {
		ETag string `header:"ETag"`
		Body struct {
			ID int `json:"id"`
		}
	}
	type raw struct{ Body []byte }
	reg := schema.NewRegistry("#/components/schemas/")
	two := respond.NewEncoders(codec.JSON, respond.Encoder{MediaType: "application/cbor", Codec: codec.JSON})
	for _, tc := range []struct {
		name   string
		typ    reflect.Type
		out    any
		enc    *respond.Encoders
		before []string // Vary set by a middleware
		inm    string
		status int
		want   []string
	}{
		{"two media types", reflect.TypeFor[tagged](), &tagged{ETag: `"1"`}, two, nil, "", 200, []string{"Accept"}},
		{"added to a middleware's", reflect.TypeFor[tagged](), &tagged{ETag: `"1"`}, two, []string{"Origin"}, "", 200, []string{"Origin", "Accept"}},
		{"304 too", reflect.TypeFor[tagged](), &tagged{ETag: `"1"`}, two, nil, `"1"`, 304, []string{"Accept"}},
		{"JSON alone", reflect.TypeFor[tagged](), &tagged{}, respond.NewEncoders(codec.JSON), nil, "", 200, nil},
		{"raw body", reflect.TypeFor[raw](), &raw{}, two, nil, "", 200, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := respond.Compile(tc.typ, reg)
			if err != nil {
				t.Fatal(err)
			}
			w := httptest.NewRecorder()
			if tc.before != nil {
				w.Header()["Vary"] = tc.before
			}
			req := httptest.NewRequest("GET", "/", nil)
			if tc.inm != "" {
				req.Header.Set("If-None-Match", tc.inm)
			}
			if err := out.Write(w, req, tc.out, http.StatusOK, tc.enc); err != nil {
				t.Fatal(err)
			}
			if w.Code != tc.status || !reflect.DeepEqual(w.Header()["Vary"], tc.want) {
				t.Errorf("%d Vary %q, want %d %q", w.Code, w.Header()["Vary"], tc.status, tc.want)
			}
		})
	}
}

func ExampleEncoders_Chosen() {
	enc := respond.NewEncoders(codec.JSON, respond.Encoder{MediaType: "application/cbor", Codec: codec.JSON})
	for _, accept := range []string{"", "application/*", "application/cbor", "text/html"} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		if chosen := enc.Chosen(req.Header); chosen == nil {
			fmt.Printf("%q: 406, %s\n", accept, enc.NotAcceptable())
		} else {
			fmt.Printf("%q: %s\n", accept, chosen.MediaType())
		}
	}
	// Output:
	// "": application/json
	// "application/*": application/json
	// "application/cbor": application/cbor
	// "text/html": 406, none of the media types in Accept can be sent; this operation answers with application/json, application/cbor
}

func ExampleOutput_Negotiated() {
	reg := schema.NewRegistry("#/components/schemas/")
	for _, tc := range []struct {
		t      reflect.Type
		status int
	}{
		{reflect.TypeFor[created](), http.StatusOK},
		{reflect.TypeFor[struct{ Body []byte }](), http.StatusOK},
		{reflect.TypeFor[struct{}](), http.StatusOK},
		{reflect.TypeFor[struct {
			Body struct{ ID int }
		}](), http.StatusNoContent},
	} {
		out, err := respond.Compile(tc.t, reg)
		if err != nil {
			panic(err)
		}
		fmt.Println(out.Negotiated(tc.status))
	}
	// Output:
	// true
	// false
	// false
	// false
}

type streamed struct {
	Body io.Reader
}

// flushCounter records flushes between writes.
type flushCounter struct {
	*httptest.ResponseRecorder
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++ }

// An io.Reader body reaches the client as it is read: a flush after every
// read.
func TestReaderBodyFlushed(t *testing.T) {
	out, err := respond.Compile(reflect.TypeFor[streamed](), schema.NewRegistry("#/components/schemas/"))
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	go func() {
		for _, s := range []string{"a", "b", "c"} {
			pw.Write([]byte(s))
		}
		pw.Close()
	}()
	w := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
	if err := out.Write(w, nil, &streamed{Body: pr}, 200, respond.NewEncoders(codec.JSON)); err != nil {
		t.Fatal(err)
	}
	if w.Body.String() != "abc" || w.flushes != 3 {
		t.Errorf("%q with %d flushes, want abc with 3", w.Body, w.flushes)
	}
}
