package bind

import (
	"bytes"
	"compress/gzip"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/vane-http/vane/problem"
)

// gzipMember returns s compressed as one gzip member.
func gzipMember(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// members returns each of parts as a gzip member of its own, joined.
func members(parts ...string) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, gzipMember(p)...)
	}
	return b
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// bindCoded binds body, sent with Content-Encoding gzip and type ct, into
// a new value of typ, within limit; it returns the value, the problem, and
// how many bytes of body were read.
func bindCoded(t *testing.T, typ reflect.Type, limit int64, ct string, body []byte) (any, *problem.Details, int) {
	t.Helper()
	b, err := Compile(typ, Config{Method: "POST", Pattern: "/items", BodyLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	cr := &countingReader{r: bytes.NewReader(body)}
	req := httptest.NewRequest("POST", "/items", cr)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Content-Encoding", "gzip")
	v := reflect.New(typ).Interface()
	st := &State{}
	defer st.Cleanup()
	defer st.Release()
	prob := b.Bind(req, nil, v, st)
	return v, prob, cr.n
}

// A gzip body of several members (RFC 1952 section 2.2) is read whole,
// every member, as JSON, a urlencoded form and a multipart form; bytes
// after the last member that begin no member (garbage, zero padding, a
// cut-short or corrupt member) are a 400, whatever the body's type; and
// the decompressed limit holds across members.
func TestGzipMembers(t *testing.T) {
	jsonType := reflect.TypeFor[createInput]()
	for name, body := range map[string][]byte{
		"one member":      members(`{"name":"lamp","count":2}`),
		"two members":     members(`{"name":"la`, `mp","count":2}`),
		"three members":   members(`{"name"`, `:"lamp",`, `"count":2}`),
		"empty members":   append(members(strings.Split(strings.Repeat(",", 999), ",")...), members(`{"name":"lamp","count":2}`)...),
		"a trailing none": append(members(`{"name":"lamp","count":2}`), members("")...),
	} {
		v, prob, _ := bindCoded(t, jsonType, 0, "application/json", body)
		if in := v.(*createInput); prob != nil || in.Body.Name != "lamp" || in.Body.Count != 2 {
			t.Errorf("%s: %v %+v", name, prob, in)
		}
	}

	valid := members(`{"name":"la`, `mp","count":2}`)
	corrupt := gzipMember(`{"x":1}`)
	corrupt[len(corrupt)-6] ^= 0xff // the CRC-32
	for name, tail := range map[string][]byte{
		"3 bytes of garbage":  []byte("xyz"),
		"20 bytes of garbage": []byte("these are not gzip!!"),
		"zero padding":        make([]byte, 512),
		"a member cut short":  gzipMember(`{"x":1}`)[:15],
		"a corrupt member":    corrupt,
		"a lone magic number": {0x1f, 0x8b},
	} {
		body := append(bytes.Clone(valid), tail...)
		_, prob, _ := bindCoded(t, jsonType, 0, "application/json", body)
		if prob == nil || prob.Status != 400 || !strings.Contains(prob.Detail, "not gzip throughout") {
			t.Errorf("JSON, then %s: %v", name, prob)
		}
		form := append(gzipMember("title=a&"), gzipMember("count=2")...)
		_, prob, _ = bindCoded(t, reflect.TypeFor[formInput](), 0, "application/x-www-form-urlencoded", append(form, tail...))
		if prob == nil || prob.Status != 400 || !strings.Contains(prob.Detail, "not gzip throughout") {
			t.Errorf("urlencoded form, then %s: %v", name, prob)
		}
		mp, ct := gzipMultipart(t)
		_, prob, _ = bindCoded(t, reflect.TypeFor[formInput](), 0, ct, append(mp, tail...))
		if prob == nil || prob.Status != 400 || !strings.Contains(prob.Detail, "not gzip throughout") {
			t.Errorf("multipart form, then %s: %v", name, prob)
		}
	}

	v, prob, _ := bindCoded(t, reflect.TypeFor[formInput](), 0, "application/x-www-form-urlencoded", append(gzipMember("title=a&"), gzipMember("count=2")...))
	if in := v.(*formInput); prob != nil || in.Body.Title != "a" || in.Body.Count != 2 {
		t.Errorf("urlencoded form of two members: %v %+v", prob, in)
	}
	mp, ct := gzipMultipart(t)
	v, prob, _ = bindCoded(t, reflect.TypeFor[formInput](), 0, ct, mp)
	if in := v.(*formInput); prob != nil || in.Body.Title != "a" || in.Body.Count != 2 {
		t.Errorf("multipart form of two members: %v %+v", prob, in)
	}

	// Ten members of 1 MiB of spaces each, about 1 KiB compressed: the
	// 64 KiB limit on what they inflate to stops the reading inside the
	// first member, so the bytes read are those of one member at most,
	// and what the gzip reader buffers ahead (4 KiB).
	spaces := gzipMember(`{"name":"` + strings.Repeat(" ", 1<<20))
	bomb := bytes.Repeat(spaces, 10)
	_, prob, read := bindCoded(t, jsonType, 64<<10, "application/json", bomb)
	if prob == nil || prob.Status != 413 || read > len(spaces)+4<<10 {
		t.Errorf("a bomb of %d members of %d bytes: %v, %d bytes read", 10, len(spaces), prob, read)
	}
}

type formInput struct {
	Body struct {
		Title string `form:"title"`
		Count int    `form:"count"`
	}
}

// gzipMultipart returns a multipart form (title=a, count=2) compressed
// as two gzip members split inside a part, and its Content-Type.
func gzipMultipart(t *testing.T) ([]byte, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	w.WriteField("title", "a")
	w.WriteField("count", "2")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	return members(s[:len(s)/2], s[len(s)/2:]), w.FormDataContentType()
}

// Whatever is appended to gzip members, the body reads as their contents
// joined when what follows is itself gzip members (or nothing), and is
// otherwise a 400, never a 5xx, never the first members' contents
// accepted with the rest ignored. The limit holds on the decoded bytes.
func FuzzGzipMembers(f *testing.F) {
	f.Add("abc", "def", []byte{})
	f.Add("abc", "", []byte("garbage"))
	f.Add("", "", []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	f.Add("x", "y", gzipMember("z"))
	f.Add("x", "y", gzipMember("z")[:12])
	f.Add(strings.Repeat("a", 300), "b", make([]byte, 9))
	b, err := Compile(reflect.TypeFor[struct{ Body []byte }](), Config{Method: "POST", Pattern: "/raw", BodyLimit: 1024})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, first, second string, tail []byte) {
		body := append(members(first, second), tail...)
		req := httptest.NewRequest("POST", "/raw", bytes.NewReader(body))
		req.Header.Set("Content-Encoding", "gzip")
		var in struct{ Body []byte }
		st := &State{}
		defer st.Release()
		prob := b.Bind(req, nil, &in, st)

		// What the tail holds on its own, read by the standard library.
		want, tailOK := first+second, true
		if len(tail) > 0 {
			zr, err := gzip.NewReader(bytes.NewReader(tail))
			if err == nil {
				var rest []byte
				rest, err = io.ReadAll(zr)
				want += string(rest)
			}
			tailOK = err == nil
		}
		switch {
		case !tailOK:
			if prob == nil || prob.Status != 400 {
				t.Fatalf("tail %q: %v, body %q", tail, prob, in.Body)
			}
		case want == "":
			if prob == nil || prob.Status != 422 { // an empty body is the missing body
				t.Fatalf("empty: %v", prob)
			}
		case len(want) > 1024:
			if prob == nil || prob.Status != 413 {
				t.Fatalf("%d bytes decoded past the limit: %v", len(want), prob)
			}
		case prob != nil || string(in.Body) != want:
			t.Fatalf("got %q %v, want %q", in.Body, prob, want)
		}
	})
}
