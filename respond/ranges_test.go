package respond_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/respond"
	"github.com/vane-http/vane/schema"
)

// A file as bytes, with its validators.
type fileBytes struct {
	ETag         string    `header:"ETag"`
	LastModified time.Time `header:"Last-Modified"`
	Body         []byte    `mediaType:"text/plain"`
}

// A file as an io.ReadSeeker.
type fileSeeker struct {
	ETag string `header:"ETag"`
	Body io.ReadSeeker
}

// A stream: an io.Reader, which may hold a seeker but is not declared one.
type fileStream struct {
	Body io.Reader
}

var alphabet = []byte("abcdefghijklmnopqrstuvwxyz")

func compileOut[O any](t *testing.T) *respond.Output {
	t.Helper()
	out, err := respond.Compile(reflect.TypeFor[O](), schema.NewRegistry("#/components/schemas/"))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func rangeRequest(method string, h ...string) *http.Request {
	req := httptest.NewRequest(method, "/file", nil)
	for i := 0; i+1 < len(h); i += 2 {
		req.Header.Add(h[i], h[i+1])
	}
	return req
}

func ExampleOutput_Write_ranges() {
	type file struct {
		ETag string `header:"ETag"`
		Body []byte `mediaType:"text/plain"`
	}
	out, err := respond.Compile(reflect.TypeFor[file](), schema.NewRegistry("#/components/schemas/"))
	if err != nil {
		panic(err)
	}
	req := httptest.NewRequest("GET", "/file", nil)
	req.Header.Set("Range", "bytes=-5")
	w := httptest.NewRecorder()
	if err := out.Write(w, req, &file{ETag: `"v1"`, Body: []byte("hello, world")}, http.StatusOK, respond.NewEncoders(codec.JSON)); err != nil {
		panic(err)
	}
	fmt.Println(w.Code, w.Header().Get("Content-Range"), w.Body.String())
	// Output:
	// 206 bytes 7-11/12 world
}

func TestWriteRanges(t *testing.T) {
	lm := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	enc := respond.NewEncoders(codec.JSON)
	for _, c := range []struct {
		name         string
		out          func() (*respond.Output, any)
		req          *http.Request
		status       int
		contentRange string
		body         string
		acceptRanges bool
	}{
		{"bytes, no Range", bytesOut(t, lm), rangeRequest("GET"), 200, "", string(alphabet), true},
		{"bytes, one range", bytesOut(t, lm), rangeRequest("GET", "Range", "bytes=2-4"), 206, "bytes 2-4/26", "cde", true},
		{"bytes, suffix", bytesOut(t, lm), rangeRequest("GET", "Range", "bytes=-3"), 206, "bytes 23-25/26", "xyz", true},
		{"bytes, open", bytesOut(t, lm), rangeRequest("GET", "Range", "bytes=20-"), 206, "bytes 20-25/26", "uvwxyz", true},
		{"bytes, past the end", bytesOut(t, lm), rangeRequest("GET", "Range", "bytes=20-1000"), 206, "bytes 20-25/26", "uvwxyz", true},
		{"bytes, malformed", bytesOut(t, lm), rangeRequest("GET", "Range", "bytes=4-2"), 200, "", string(alphabet), true},
		{"bytes, other unit", bytesOut(t, lm), rangeRequest("GET", "Range", "lines=1-2"), 200, "", string(alphabet), true},
		{"bytes, two Range lines", bytesOut(t, lm), rangeRequest("GET", "Range", "bytes=0-1", "Range", "bytes=3-4"), 200, "", string(alphabet), true},
		{"HEAD ignores Range", bytesOut(t, lm), rangeRequest("HEAD", "Range", "bytes=2-4"), 200, "", "", true},
		{"POST ignores Range", bytesOut(t, lm), rangeRequest("POST", "Range", "bytes=2-4"), 200, "", string(alphabet), true},
		{"If-Range strong ETag", bytesOut(t, lm), rangeRequest("GET", "Range", "bytes=2-4", "If-Range", `"v1"`), 206, "bytes 2-4/26", "cde", true},
		{"If-Range other ETag", bytesOut(t, lm), rangeRequest("GET", "Range", "bytes=2-4", "If-Range", `"v0"`), 200, "", string(alphabet), true},
		{"If-Range weak ETag", bytesOut(t, lm), rangeRequest("GET", "Range", "bytes=2-4", "If-Range", `W/"v1"`), 200, "", string(alphabet), true},
		{"If-Range date", bytesOut(t, lm), rangeRequest("GET", "Range", "bytes=2-4", "If-Range", lm.Format(http.TimeFormat)), 206, "bytes 2-4/26", "cde", true},
		{"If-Range earlier date", bytesOut(t, lm), rangeRequest("GET", "Range", "bytes=2-4", "If-Range", lm.Add(-time.Second).Format(http.TimeFormat)), 200, "", string(alphabet), true},
		{"seeker, one range", seekerOut(t), rangeRequest("GET", "Range", "bytes=2-4"), 206, "bytes 2-4/26", "cde", true},
		{"seeker, no Range", seekerOut(t), rangeRequest("GET"), 200, "", string(alphabet), true},
		{"seeker, HEAD", seekerOut(t), rangeRequest("HEAD"), 200, "", "", true},
		{"io.Reader holding a seeker", func() (*respond.Output, any) {
			return compileOut[fileStream](t), &fileStream{Body: bytes.NewReader(alphabet)}
		}, rangeRequest("GET", "Range", "bytes=2-4"), 200, "", string(alphabet), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, v := c.out()
			w := httptest.NewRecorder()
			if err := out.Write(w, c.req, v, http.StatusOK, enc); err != nil {
				t.Fatal(err)
			}
			if w.Code != c.status || w.Header().Get("Content-Range") != c.contentRange || w.Body.String() != c.body {
				t.Errorf("%d %q %q; want %d %q %q", w.Code, w.Header().Get("Content-Range"), w.Body, c.status, c.contentRange, c.body)
			}
			if got := w.Header().Get("Accept-Ranges") == "bytes"; got != c.acceptRanges {
				t.Errorf("Accept-Ranges %q", w.Header().Get("Accept-Ranges"))
			}
			if c.acceptRanges {
				want := fmt.Sprint(len(c.body))
				if c.req.Method == "HEAD" {
					want = fmt.Sprint(len(alphabet))
				}
				if got := w.Header().Get("Content-Length"); got != want {
					t.Errorf("Content-Length %q, want %s", got, want)
				}
			}
		})
	}
}

func bytesOut(t *testing.T, lm time.Time) func() (*respond.Output, any) {
	return func() (*respond.Output, any) {
		return compileOut[fileBytes](t), &fileBytes{ETag: `"v1"`, LastModified: lm, Body: alphabet}
	}
}

func seekerOut(t *testing.T) func() (*respond.Output, any) {
	return func() (*respond.Output, any) {
		return compileOut[fileSeeker](t), &fileSeeker{ETag: `"v1"`, Body: bytes.NewReader(alphabet)}
	}
}

// Several ranges are one multipart/byteranges body, sorted and coalesced;
// its Content-Length is the body's length.
func TestWriteMultipartRanges(t *testing.T) {
	body := bytes.Repeat(alphabet, 100) // 2600 bytes
	for _, out := range []struct {
		name string
		o    *respond.Output
		v    any
	}{
		{"bytes", compileOut[fileBytes](t), &fileBytes{Body: body}},
		{"seeker", compileOut[fileSeeker](t), &fileSeeker{Body: bytes.NewReader(body)}},
	} {
		t.Run(out.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			req := rangeRequest("GET", "Range", "bytes=2000-2009, 0-4, 2-6, -3")
			if err := out.o.Write(w, req, out.v, http.StatusOK, respond.NewEncoders(codec.JSON)); err != nil {
				t.Fatal(err)
			}
			if w.Code != 206 || w.Header().Get("Content-Length") != fmt.Sprint(w.Body.Len()) {
				t.Fatalf("%d, Content-Length %s for %d bytes", w.Code, w.Header().Get("Content-Length"), w.Body.Len())
			}
			mt, params, err := mime.ParseMediaType(w.Header().Get("Content-Type"))
			if err != nil || mt != "multipart/byteranges" {
				t.Fatalf("Content-Type %q", w.Header().Get("Content-Type"))
			}
			mr := multipart.NewReader(w.Body, params["boundary"])
			want := []struct{ cr, data string }{
				{"bytes 0-6/2600", string(body[0:7])},
				{"bytes 2000-2009/2600", string(body[2000:2010])},
				{"bytes 2597-2599/2600", string(body[2597:])},
			}
			for i := 0; ; i++ {
				p, err := mr.NextPart()
				if err == io.EOF {
					if i != len(want) {
						t.Fatalf("%d parts, want %d", i, len(want))
					}
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				data, _ := io.ReadAll(p)
				if i >= len(want) || p.Header.Get("Content-Range") != want[i].cr || string(data) != want[i].data {
					t.Fatalf("part %d: %q %q", i, p.Header.Get("Content-Range"), data)
				}
			}
		})
	}
}

// A Range that nothing satisfies sends nothing: Write returns the 416
// problem, with Content-Range: bytes */size, and none of the output's
// headers go with it.
func TestWriteRangeNotSatisfiable(t *testing.T) {
	out := compileOut[fileBytes](t)
	w := httptest.NewRecorder()
	err := out.Write(w, rangeRequest("GET", "Range", "bytes=26-,-0"), &fileBytes{ETag: `"v1"`, Body: alphabet}, http.StatusOK, respond.NewEncoders(codec.JSON))
	var p *problem.Details
	if !errors.As(err, &p) || p.Status != http.StatusRequestedRangeNotSatisfiable || p.Header.Get("Content-Range") != "bytes */26" {
		t.Fatalf("%v", err)
	}
	if w.Body.Len() != 0 || w.Header().Get("ETag") != "" {
		t.Errorf("sent %q with ETag %q", w.Body, w.Header().Get("ETag"))
	}
	problem.Write(w, p)
	if w.Code != 416 || w.Header().Get("Content-Range") != "bytes */26" || w.Header().Get("Content-Type") != problem.ContentType {
		t.Errorf("%d %v", w.Code, w.Header())
	}
}

// Single ranges are answered as http.ServeContent answers them.
func TestWriteRangesAsServeContent(t *testing.T) {
	body := bytes.Repeat(alphabet, 3)
	out := compileOut[fileSeeker](t)
	for _, rg := range []string{"bytes=0-0", "bytes=0-77", "bytes=0-1000", "bytes=77-", "bytes=-1", "bytes=-78", "bytes=-1000", "bytes=30-40", "bytes=78-", "bytes=1000-2000"} {
		want := httptest.NewRecorder()
		http.ServeContent(want, rangeRequest("GET", "Range", rg), "", time.Time{}, bytes.NewReader(body))
		got := httptest.NewRecorder()
		err := out.Write(got, rangeRequest("GET", "Range", rg), &fileSeeker{Body: bytes.NewReader(body)}, http.StatusOK, respond.NewEncoders(codec.JSON))
		var p *problem.Details
		if errors.As(err, &p) {
			problem.Write(got, p)
		} else if err != nil {
			t.Fatal(err)
		}
		if got.Code != want.Code || got.Header().Get("Content-Range") != want.Header().Get("Content-Range") ||
			(got.Code != 416 && got.Body.String() != want.Body.String()) {
			t.Errorf("%s: %d %q %q; ServeContent: %d %q %q", rg, got.Code, got.Header().Get("Content-Range"), got.Body,
				want.Code, want.Header().Get("Content-Range"), want.Body)
		}
	}
}

func TestResponsesDocumentRanges(t *testing.T) {
	reg := schema.NewRegistry("#/components/schemas/")
	for _, c := range []struct {
		out    *respond.Output
		method string
		ranged bool
	}{
		{compileOut[fileBytes](t), "GET", true},
		{compileOut[fileSeeker](t), "GET", true},
		{compileOut[fileStream](t), "GET", false},
		{compileOut[fileBytes](t), "POST", false},
	} {
		d := &operation.Description{Method: c.method, Pattern: "/file", Status: 200}
		list, err := c.out.Responses(d, nil, reg, respond.NewEncoders(codec.JSON))
		if err != nil {
			t.Fatal(err)
		}
		var partial, unsatisfiable *operation.Response
		for i := range list {
			switch list[i].Status {
			case 206:
				partial = &list[i]
			case 416:
				unsatisfiable = &list[i]
			}
		}
		if (partial != nil) != c.ranged || (unsatisfiable != nil) != c.ranged {
			t.Errorf("%s %v: 206 %v, 416 %v; want ranges %v", c.method, c.out, partial != nil, unsatisfiable != nil, c.ranged)
			continue
		}
		if !c.ranged {
			continue
		}
		hasHeader := func(r *operation.Response, name string) bool {
			for _, h := range r.Headers {
				if h.Name == name {
					return true
				}
			}
			return false
		}
		var types []string
		for _, ct := range partial.Content {
			types = append(types, ct.MediaType)
		}
		if !hasHeader(partial, "Content-Range") || !hasHeader(unsatisfiable, "Content-Range") || !hasHeader(&list[0], "Accept-Ranges") ||
			!strings.Contains(strings.Join(types, " "), "multipart/byteranges") {
			t.Errorf("206 %+v, 416 %+v, 200 %+v", partial, unsatisfiable, list[0])
		}
	}
}

// deadlineRecorder records the write deadlines set through it.
type deadlineRecorder struct {
	*httptest.ResponseRecorder
	deadlines []time.Time
}

func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	d.deadlines = append(d.deadlines, t)
	return nil
}

// A body larger than a chunk extends the write deadline before each
// chunk, by the server's WriteTimeout, and a small one sets none.
func TestWriteExtendsTheWriteDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		big := bytes.Repeat([]byte{'x'}, 10*respond.ChunkSize+1)
		for _, c := range []struct {
			name string
			out  *respond.Output
			v    func() any
			want int // deadlines set
		}{
			{"small bytes", compileOut[fileBytes](t), func() any { return &fileBytes{Body: alphabet} }, 0},
			{"large bytes", compileOut[fileBytes](t), func() any { return &fileBytes{Body: big} }, 11},
			{"seeker", compileOut[fileSeeker](t), func() any { return &fileSeeker{Body: bytes.NewReader(big)} }, 11},
			{"stream", compileOut[fileStream](t), func() any { return &fileStream{Body: io.MultiReader(bytes.NewReader(big))} }, 11},
		} {
			for _, srv := range []*http.Server{{WriteTimeout: 5 * time.Second}, {}} {
				req := rangeRequest("GET")
				req = req.WithContext(context.WithValue(req.Context(), http.ServerContextKey, srv))
				w := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
				if err := c.out.Write(w, req, c.v(), http.StatusOK, respond.NewEncoders(codec.JSON)); err != nil {
					t.Fatal(err)
				}
				allowance := srv.WriteTimeout
				extended := w.deadlines
				if allowance == 0 {
					allowance = respond.DefaultChunkTimeout
					// With no WriteTimeout of the server's, the last
					// deadline set clears the body's.
					if c.want > 0 {
						if last := extended[len(extended)-1]; !last.IsZero() {
							t.Errorf("%s: the body's deadline is left at %v", c.name, last)
						}
						extended = extended[:len(extended)-1]
					}
				}
				if len(extended) < c.want || len(extended) > c.want+1 {
					t.Errorf("%s, WriteTimeout %v: %d deadlines, want %d", c.name, srv.WriteTimeout, len(extended), c.want)
				}
				for _, d := range extended {
					if !d.Equal(start.Add(allowance)) {
						t.Errorf("%s: deadline %v, want now + %v", c.name, d.Sub(start), allowance)
					}
				}
			}
		}
	})
}
