package respond_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/respond"
	"github.com/vane-http/vane/schema"
)

type versioned struct {
	ETag     string    `header:"ETag"`
	Modified time.Time `header:"Last-Modified"`
	Body     struct {
		Name string `json:"name"`
	}
}

// TestWriteRequestIsWrite writes the same outputs for the same requests
// through Write and through WriteRequest with a Request read from them:
// the answers (status, headers, body) and errors are the same.
func TestWriteRequestIsWrite(t *testing.T) {
	out, err := respond.Compile(reflect.TypeFor[versioned](), schema.NewRegistry("#/components/schemas/"))
	if err != nil {
		t.Fatal(err)
	}
	enc := respond.NewEncoders(codec.JSON, respond.Encoder{MediaType: "application/x-test", Codec: codec.JSON})
	modified := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name, method string
		header       http.Header
	}{
		{"plain GET", "GET", nil},
		{"If-None-Match matches", "GET", http.Header{"If-None-Match": {`"v1"`}}},
		{"If-Modified-Since", "HEAD", http.Header{"If-Modified-Since": {modified.Format(http.TimeFormat)}}},
		{"If-Match fails", "GET", http.Header{"If-Match": {`"v2"`}}},
		{"Accept chooses", "GET", http.Header{"Accept": {"application/x-test"}}},
		{"Accept refuses", "GET", http.Header{"Accept": {"text/html"}}},
		{"POST ignores If-None-Match", "POST", http.Header{"If-None-Match": {`"v1"`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := &versioned{ETag: `"v1"`, Modified: modified}
			v.Body.Name = "rex"
			hr := httptest.NewRequest(c.method, "/", nil)
			for k, vs := range c.header {
				hr.Header[k] = vs
			}
			w1, w2 := httptest.NewRecorder(), httptest.NewRecorder()
			err1 := out.Write(w1, hr, v, http.StatusOK, enc)
			err2 := out.WriteRequest(w2, &respond.Request{Method: c.method, Header: hr.Header, Context: context.Background()}, v, http.StatusOK, enc)
			if err1 != err2 || w1.Code != w2.Code || w1.Body.String() != w2.Body.String() || !reflect.DeepEqual(w1.Header(), w2.Header()) {
				t.Fatalf("Write: %v %d %v %q\nWriteRequest: %v %d %v %q", err1, w1.Code, w1.Header(), w1.Body, err2, w2.Code, w2.Header(), w2.Body)
			}
		})
	}
}

type download struct {
	Body io.Reader
}

type trackedReader struct {
	io.Reader
	closed bool
}

func (r *trackedReader) Close() error { r.closed = true; return nil }

// streamer is a ResponseWriter that sends reader bodies itself (when
// take is set), as vane's fast engine does after the handler returns.
type streamer struct {
	*httptest.ResponseRecorder
	take bool
	got  io.Reader
}

func (s *streamer) StreamBody(rd io.Reader) bool {
	if !s.take {
		return false
	}
	s.got = rd
	return true
}

// TestBodyStreamer: a reader body goes to a writer that streams bodies,
// which closes it after sending, so Write must not close it; one that
// declines gets the body copied and closed, as any writer.
func TestBodyStreamer(t *testing.T) {
	out, err := respond.Compile(reflect.TypeFor[download](), schema.NewRegistry("#/components/schemas/"))
	if err != nil {
		t.Fatal(err)
	}
	enc := respond.NewEncoders(codec.JSON)
	for _, take := range []bool{true, false} {
		rd := &trackedReader{Reader: strings.NewReader("file bytes")}
		w := &streamer{ResponseRecorder: httptest.NewRecorder(), take: take}
		if err := out.WriteRequest(w, &respond.Request{Method: "GET"}, &download{Body: rd}, http.StatusOK, enc); err != nil {
			t.Fatal(err)
		}
		if take {
			if w.got != rd || rd.closed || w.Body.Len() != 0 {
				t.Errorf("taken: got %v, closed %v, copied %q; want the reader, open, nothing copied", w.got, rd.closed, w.Body)
			}
		} else if w.Body.String() != "file bytes" || !rd.closed {
			t.Errorf("declined: copied %q, closed %v", w.Body, rd.closed)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/octet-stream" || w.Code != 200 {
			t.Errorf("%d %q", w.Code, ct)
		}
	}
	// HEAD sends no body: nothing to stream, and the reader is closed.
	rd := &trackedReader{Reader: strings.NewReader("x")}
	w := &streamer{ResponseRecorder: httptest.NewRecorder(), take: true}
	out.WriteRequest(w, &respond.Request{Method: "HEAD"}, &download{Body: rd}, http.StatusOK, enc)
	if w.got != nil || !rd.closed {
		t.Errorf("HEAD: streamed %v, closed %v", w.got, rd.closed)
	}
}

// TestChosen: Chosen is nil exactly when Accept accepts none of the
// media types, and otherwise the encoders of the one Accept prefers,
// which Write then encodes with without reading Accept again (the
// request below refuses everything), Vary: Accept still sent.
func TestChosen(t *testing.T) {
	enc := respond.NewEncoders(codec.JSON, respond.Encoder{MediaType: "application/x-test", Codec: codec.JSON})
	for accept, want := range map[string]string{
		"": "application/json", "application/json": "application/json", "*/*;q=0.1": "application/json",
		"application/x-test": "application/x-test", "application/json;q=0.5, application/x-test": "application/x-test",
		"text/html": "", "application/json;q=0, application/x-test;q=0": "",
	} {
		h := http.Header{}
		if accept != "" {
			h.Set("Accept", accept)
		}
		chosen := enc.Chosen(h)
		if want == "" {
			if chosen != nil {
				t.Errorf("Accept %q: chose, want nil", accept)
			}
			continue
		}
		if chosen == nil || chosen.Chosen(http.Header{"Accept": {"text/html"}}) != chosen {
			t.Fatalf("Accept %q: %v, or chose again", accept, chosen)
		}
		out := compileOut[versioned](t)
		w := httptest.NewRecorder()
		refusing := httptest.NewRequest("GET", "/", nil)
		refusing.Header.Set("Accept", "text/html")
		if err := out.Write(w, refusing, &versioned{}, http.StatusOK, chosen); err != nil {
			t.Fatalf("Accept %q: %v", accept, err)
		}
		if ct := w.Header().Get("Content-Type"); ct != want || w.Header().Get("Vary") != "Accept" {
			t.Errorf("Accept %q: Content-Type %q, Vary %q; want %q, Accept", accept, ct, w.Header().Get("Vary"), want)
		}
	}
}

type seekableDownload struct {
	Body io.ReadSeeker
}

type trackedSeeker struct {
	io.ReadSeeker
	closed bool
}

func (r *trackedSeeker) Close() error { r.closed = true; return nil }

// TestBodyStreamerRanges: a seekable reader body, which answers Range, is
// handed to a writer that streams bodies for each kind of answer (whole,
// one range, several as multipart/byteranges) as one reader of exactly
// the bytes a writer that declines is sent, Content-Length long, and
// closes the body when closed; Write neither copies nor closes it. A
// writer that appended the bytes instead would hold a whole file in
// memory per request.
func TestBodyStreamerRanges(t *testing.T) {
	out, err := respond.Compile(reflect.TypeFor[seekableDownload](), schema.NewRegistry("#/components/schemas/"))
	if err != nil {
		t.Fatal(err)
	}
	enc := respond.NewEncoders(codec.JSON)
	content := strings.Repeat("0123456789abcdef", 5000) // over respond.ChunkSize
	for _, rng := range []string{"", "bytes=10-19", "bytes=0-4,70000-"} {
		t.Run(rng, func(t *testing.T) {
			header := http.Header{}
			if rng != "" {
				header.Set("Range", rng)
			}
			serve := func(take bool) (*streamer, *trackedSeeker) {
				rd := &trackedSeeker{ReadSeeker: strings.NewReader(content)}
				w := &streamer{ResponseRecorder: httptest.NewRecorder(), take: take}
				if err := out.WriteRequest(w, &respond.Request{Method: "GET", Header: header}, &seekableDownload{Body: rd}, http.StatusOK, enc); err != nil {
					t.Fatal(err)
				}
				return w, rd
			}
			copied, rd := serve(false)
			if !rd.closed {
				t.Error("declined: the body is not closed")
			}
			streamed, rd := serve(true)
			if streamed.got == nil || streamed.Body.Len() != 0 || rd.closed {
				t.Fatalf("taken: got %v, copied %d bytes, closed %v; want a reader, nothing copied, open", streamed.got, streamed.Body.Len(), rd.closed)
			}
			if streamed.Code != copied.Code || streamed.Header().Get("Content-Range") != copied.Header().Get("Content-Range") {
				t.Errorf("status %d %q, want %d %q", streamed.Code, streamed.Header().Get("Content-Range"), copied.Code, copied.Header().Get("Content-Range"))
			}
			b, err := io.ReadAll(streamed.got)
			if err != nil {
				t.Fatal(err)
			}
			// A multipart answer's boundary is random: compare with it replaced.
			want := copied.Body.String()
			if ct := copied.Header().Get("Content-Type"); strings.HasPrefix(ct, "multipart/byteranges") {
				want = strings.ReplaceAll(want, strings.TrimPrefix(ct, "multipart/byteranges; boundary="),
					strings.TrimPrefix(streamed.Header().Get("Content-Type"), "multipart/byteranges; boundary="))
			}
			if string(b) != want {
				t.Errorf("streamed %d bytes, want the %d the copy got", len(b), len(want))
			}
			if cl := streamed.Header().Get("Content-Length"); cl != strconv.Itoa(len(b)) {
				t.Errorf("Content-Length %s, streamed %d", cl, len(b))
			}
			if c, ok := streamed.got.(io.Closer); !ok || c.Close() != nil || !rd.closed {
				t.Errorf("closing the streamed reader does not close the body")
			}
		})
	}
}

// bodyHeaders is a ResponseWriter that takes an encoded body's header
// lines (when take is set), as vane's fast engine does.
type bodyHeaders struct {
	*httptest.ResponseRecorder
	take  bool
	calls int
	ct    []string
}

func (b *bodyHeaders) SetBodyHeader(ct []string) bool {
	b.calls++
	if !b.take {
		return false
	}
	b.ct = ct
	return true
}

type typedOutput struct {
	ContentType string `header:"Content-Type"`
	Body        struct {
		Name string `json:"name"`
	}
}

// TestBodyHeaderSetter: WriteRequest gives an encoded body's Content-Type
// to a writer that takes it, instead of setting it and nosniff in the
// header map; one that declines gets both in the map. Write never asks,
// nor does WriteRequest when the output sets its own Content-Type.
func TestBodyHeaderSetter(t *testing.T) {
	out := compileOut[versioned](t)
	enc := respond.NewEncoders(codec.JSON, respond.Encoder{MediaType: "application/x-test", Codec: codec.JSON})
	req := &respond.Request{Method: "GET", Header: http.Header{"Accept": {"application/x-test"}}}
	for _, take := range []bool{true, false} {
		w := &bodyHeaders{ResponseRecorder: httptest.NewRecorder(), take: take}
		if err := out.WriteRequest(w, req, &versioned{ETag: `"v1"`}, http.StatusOK, enc); err != nil {
			t.Fatal(err)
		}
		ct, sniff := w.Header()["Content-Type"], w.Header()["X-Content-Type-Options"]
		switch {
		case w.calls != 1:
			t.Errorf("take %v: %d calls, want 1", take, w.calls)
		case take && (len(w.ct) != 1 || w.ct[0] != "application/x-test" || ct != nil || sniff != nil):
			t.Errorf("taken: %q, header %v; want application/x-test, and neither line in the map", w.ct, w.Header())
		case !take && (len(ct) != 1 || ct[0] != "application/x-test" || len(sniff) != 1 || sniff[0] != "nosniff"):
			t.Errorf("declined: header %v, want the Content-Type and nosniff", w.Header())
		}
		if w.Body.String() != `{"name":""}` || w.Header().Get("Etag") != `"v1"` || w.Header().Get("Vary") != "Accept" {
			t.Errorf("take %v: body %q, header %v", take, w.Body, w.Header())
		}
	}
	w := &bodyHeaders{ResponseRecorder: httptest.NewRecorder(), take: true}
	out.Write(w, httptest.NewRequest("GET", "/", nil), &versioned{}, http.StatusOK, enc)
	if w.calls != 0 || w.Header().Get("Content-Type") != "application/json" {
		t.Errorf("Write: %d calls, header %v; want none, the Content-Type in the map", w.calls, w.Header())
	}
	own := compileOut[typedOutput](t)
	w = &bodyHeaders{ResponseRecorder: httptest.NewRecorder(), take: true}
	own.WriteRequest(w, &respond.Request{Method: "GET"}, &typedOutput{ContentType: "application/vnd.x+json"}, http.StatusOK, enc)
	if w.calls != 0 || w.Header().Get("Content-Type") != "application/vnd.x+json" || w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("own Content-Type: %d calls, header %v", w.calls, w.Header())
	}
}
