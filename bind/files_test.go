package bind

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"net/textproto"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/vane-http/vane/schema"
)

type photoUpload struct {
	Body struct {
		Title  string                  `form:"title"`
		Photo  *multipart.FileHeader   `form:"photo" required:"true" contentType:"image/png, image/jpeg" maxSize:"1KiB"`
		Extras []*multipart.FileHeader `form:"extra" contentType:"image/*" maxSize:"2KB"`
		Notes  *multipart.FileHeader   `form:"notes"`
	}
}

// countingBody counts the bytes read from it.
type countingBody struct {
	r io.Reader
	n int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func filePart(mw *multipart.Writer, field, name, ct string, data []byte) {
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="`+field+`"; filename="`+name+`"`)
	if ct != "" {
		h.Set("Content-Type", ct)
	}
	w, _ := mw.CreatePart(h)
	w.Write(data)
}

func bindPhoto(t *testing.T, limit int64, build func(*multipart.Writer)) (*photoUpload, *countingBody, int, string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	body, ct := multipartBody(t, build)
	b, err := Compile(reflect.TypeFor[photoUpload](), Config{Method: "POST", Pattern: "/p", BodyLimit: limit, MultipartMemory: 512})
	if err != nil {
		t.Fatal(err)
	}
	cr := &countingBody{r: strings.NewReader(body)}
	req := httptest.NewRequest("POST", "/p", cr)
	req.Header.Set("Content-Type", ct)
	var in photoUpload
	var st State
	prob := b.Bind(req, nil, &in, &st)
	st.Cleanup()
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("left behind: %v", files)
	}
	if prob == nil {
		return &in, cr, 0, ""
	}
	loc := ""
	if len(prob.Errors) > 0 {
		loc = prob.Errors[0].Location + ": " + prob.Errors[0].Message
	}
	return &in, cr, prob.Status, loc
}

func TestFileConstraints(t *testing.T) {
	png := bytes.Repeat([]byte{0x89}, 1024)
	for _, c := range []struct {
		name   string
		build  func(*multipart.Writer)
		status int
		loc    string
	}{
		{"accepted", func(mw *multipart.Writer) {
			mw.WriteField("title", "Rex")
			filePart(mw, "photo", "rex.png", "image/png", png)
			filePart(mw, "extra", "a.gif", "image/gif", []byte("GIF89a"))
			filePart(mw, "extra", "b.webp", "IMAGE/WEBP; q=1", []byte("RIFF"))
			filePart(mw, "notes", "n.txt", "text/plain", bytes.Repeat([]byte("n"), 4096)) // no rules
		}, 0, ""},
		{"media type parameters", func(mw *multipart.Writer) {
			filePart(mw, "photo", "rex.jpg", "image/JPEG; charset=binary", []byte("jpg"))
		}, 0, ""},
		{"wrong type", func(mw *multipart.Writer) {
			filePart(mw, "photo", "rex.gif", "image/gif", []byte("GIF89a"))
		}, 422, "body.photo: the file's media type must be one of image/png, image/jpeg"},
		{"no type is application/octet-stream", func(mw *multipart.Writer) {
			filePart(mw, "photo", "rex", "", []byte("?"))
		}, 422, "body.photo: the file's media type must be one of image/png, image/jpeg"},
		{"malformed type", func(mw *multipart.Writer) {
			filePart(mw, "photo", "rex", "image", []byte("?"))
		}, 422, "body.photo: the file's media type must be one of image/png, image/jpeg"},
		{"one too large", func(mw *multipart.Writer) {
			filePart(mw, "photo", "rex.png", "image/png", append(png, 0))
		}, 413, "body.photo: the file is larger than 1 KiB"},
		{"the second of a list too large", func(mw *multipart.Writer) {
			filePart(mw, "photo", "rex.png", "image/png", png)
			filePart(mw, "extra", "a.gif", "image/gif", []byte("GIF89a"))
			filePart(mw, "extra", "b.gif", "image/gif", bytes.Repeat([]byte("x"), 2001))
		}, 413, "body.extra: the file is larger than 1.953125 KiB"},
		{"a list's wrong type", func(mw *multipart.Writer) {
			filePart(mw, "photo", "rex.png", "image/png", png)
			filePart(mw, "extra", "a.txt", "text/plain", []byte("x"))
		}, 422, "body.extra: the file's media type must be one of image/*"},
		{"a value under a file's name is no file", func(mw *multipart.Writer) {
			mw.WriteField("photo", "not a file")
		}, 422, "body.photo: required file is missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, _, status, loc := bindPhoto(t, 1<<20, c.build)
			if status != c.status || loc != c.loc {
				t.Fatalf("%d %q; want %d %q", status, loc, c.status, c.loc)
			}
			if status == 0 && (in.Body.Photo == nil || in.Body.Photo.Size == 0) {
				t.Errorf("no photo bound: %+v", in.Body)
			}
		})
	}
}

// A refused file stops the reading: a file of the wrong type when its
// header arrives, a file too large once it passes its limit, whatever
// follows and whatever the body limit allows.
func TestFileConstraintsStopReading(t *testing.T) {
	huge := bytes.Repeat([]byte("x"), 8<<20)
	_, cr, status, _ := bindPhoto(t, 64<<20, func(mw *multipart.Writer) {
		filePart(mw, "photo", "rex.gif", "image/gif", huge)
	})
	if status != 422 || cr.n > 64<<10 {
		t.Errorf("wrong type: %d after reading %d bytes of %d", status, cr.n, len(huge))
	}
	_, cr, status, _ = bindPhoto(t, 64<<20, func(mw *multipart.Writer) {
		filePart(mw, "photo", "rex.png", "image/png", huge)
	})
	if status != 413 || cr.n > 1024+64<<10 {
		t.Errorf("too large: %d after reading %d bytes of %d", status, cr.n, len(huge))
	}
}

// The body's own limits still hold, and a malformed body is a 400, as
// without rules.
func TestFileConstraintsKeepTheBodyLimits(t *testing.T) {
	_, _, status, _ := bindPhoto(t, 600, func(mw *multipart.Writer) {
		filePart(mw, "photo", "rex.png", "image/png", bytes.Repeat([]byte("x"), 1000))
	})
	if status != 413 {
		t.Errorf("over the body limit: %d", status)
	}
	body, ct := multipartBody(t, func(mw *multipart.Writer) {
		filePart(mw, "photo", "rex.png", "image/png", []byte("png"))
	})
	b, err := Compile(reflect.TypeFor[photoUpload](), Config{Method: "POST", Pattern: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", "/p", strings.NewReader(body[:len(body)-10]))
	req.Header.Set("Content-Type", ct)
	var st State
	prob := b.Bind(req, nil, &photoUpload{}, &st)
	st.Cleanup()
	if prob == nil || prob.Status != 400 {
		t.Errorf("truncated: %v", prob)
	}
}

func TestFileConstraintsDocumented(t *testing.T) {
	b, err := Compile(reflect.TypeFor[photoUpload](), Config{Method: "POST", Pattern: "/p", Registry: schema.NewRegistry("#/components/schemas/")})
	if err != nil {
		t.Fatal(err)
	}
	c := b.RequestBody.Content[0]
	if c.MediaType != "multipart/form-data" || c.Encoding["photo"] != "image/png, image/jpeg" || c.Encoding["extra"] != "image/*" || c.Encoding["notes"] != "" {
		t.Fatalf("%s %v", c.MediaType, c.Encoding)
	}
	photo := c.Schema.Properties["photo"]
	if !strings.Contains(photo.Description, "At most 1 KiB.") || !strings.Contains(photo.Description, "image/png, image/jpeg") {
		t.Errorf("photo: %+v", photo)
	}
	if extra := c.Schema.Properties["extra"]; !strings.Contains(extra.Description, "At most 1.953125 KiB.") {
		t.Errorf("extra: %+v", extra)
	}
}

func TestFileConstraintTags(t *testing.T) {
	type notAFile struct {
		Body struct {
			Name string `form:"name" maxSize:"1KB"`
		}
	}
	type badType struct {
		Body struct {
			F *multipart.FileHeader `form:"f" contentType:"image"`
		}
	}
	type badSize struct {
		Body struct {
			F *multipart.FileHeader `form:"f" maxSize:"5 parsecs"`
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[notAFile](), reflect.TypeFor[badType](), reflect.TypeFor[badSize]()} {
		if _, err := Compile(typ, Config{Method: "POST", Pattern: "/p"}); err == nil {
			t.Errorf("%v compiled", typ)
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int64
		ok   bool
	}{
		{"512", 512, true}, {"512B", 512, true}, {"100KB", 100000, true}, {"5MB", 5000000, true}, {"1GB", 1e9, true},
		{"1KiB", 1024, true}, {"5MiB", 5 << 20, true}, {"2GiB", 2 << 30, true}, {" 5 MiB ", 5 << 20, true},
		{"", 0, false}, {"0", 0, false}, {"-1", 0, false}, {"MiB", 0, false}, {"5mib", 0, false}, {"1.5MiB", 0, false},
		{"5TB", 0, false}, {"9999999999999999GiB", 0, false}, {"9999999999999999999", 0, false},
	} {
		got, err := ParseSize(c.s)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v", c.s, got, err)
		}
	}
}

// Every size ParseSize accepts is positive and is what its digits times
// its unit say; FormatSize's text parses back for whole units.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"512", "5MiB", "100KB", "1GiB", "0", "", "9223372036854775807", "922337203685477580GiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n <= 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		t2 := strings.TrimSpace(s)
		i := strings.IndexFunc(t2, func(r rune) bool { return r < '0' || r > '9' })
		if i < 0 {
			i = len(t2)
		}
		units := map[string]int64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
		unit, ok := units[strings.TrimSpace(t2[i:])]
		if !ok || n%unit != 0 {
			t.Fatalf("ParseSize(%q) = %d, not a multiple of its unit", s, n)
		}
		if got, err := ParseSize(strings.TrimLeft(t2[:i], "0") + strings.TrimSpace(t2[i:])); err != nil || got != n {
			t.Fatalf("ParseSize(%q) = %d, but without leading zeros %d, %v", s, n, got, err)
		}
	})
}

func FuzzParseTypeList(f *testing.F) {
	for _, s := range []string{"image/png,image/jpeg", "image/*", "*/*", "*/png", "text/plain; charset=utf-8", "a/b, ,c/d"} {
		f.Add(s, "image/png")
	}
	f.Fuzz(func(t *testing.T, list, ct string) {
		types, err := parseTypeList(list)
		if err != nil {
			return
		}
		r := &fileRule{types: types}
		mt, ok := r.accepts(ct)
		if !ok {
			return
		}
		// An accepted media type is one of the list, or in one of its ranges.
		for _, typ := range types {
			if typ == mt || typ == "*/*" || (strings.HasSuffix(typ, "/*") && strings.HasPrefix(mt, strings.TrimSuffix(typ, "*"))) {
				return
			}
		}
		t.Fatalf("%q accepted as %q by %v", ct, mt, types)
	})
}

// minSize: a smaller file, in a single field or in a list, is a 422 naming
// the field; the document gives it as minLength. A file field's size is
// never said with minLength or maxLength, which are refused on it.
func TestFileMinSize(t *testing.T) {
	type upload struct {
		Body struct {
			Photo *multipart.FileHeader   `form:"photo" minSize:"1" maxSize:"1KiB"`
			More  []*multipart.FileHeader `form:"more" minSize:"4"`
		}
	}
	b, err := Compile(reflect.TypeFor[upload](), Config{Method: "POST", Pattern: "/p", Registry: schema.NewRegistry("#/components/schemas/")})
	if err != nil {
		t.Fatal(err)
	}
	for what, c := range map[string]struct {
		build func(*multipart.Writer)
		want  string
	}{
		"an empty photo":      {func(mw *multipart.Writer) { filePart(mw, "photo", "a.png", "image/png", nil) }, "body.photo: the file is smaller than 1 byte"},
		"a photo of one byte": {func(mw *multipart.Writer) { filePart(mw, "photo", "a.png", "image/png", []byte("x")) }, ""},
		"a list with a short one": {func(mw *multipart.Writer) {
			filePart(mw, "more", "a", "", []byte("four"))
			filePart(mw, "more", "b", "", []byte("abc"))
		}, "body.more: the file is smaller than 4 bytes"},
		"a list long enough": {func(mw *multipart.Writer) {
			filePart(mw, "more", "a", "", []byte("four"))
			filePart(mw, "more", "b", "", []byte("fives"))
		}, ""},
	} {
		body, ct := multipartBody(t, c.build)
		req := httptest.NewRequest("POST", "/p", strings.NewReader(body))
		req.Header.Set("Content-Type", ct)
		var in upload
		var st State
		prob := b.Bind(req, nil, &in, &st)
		st.Cleanup()
		got := ""
		if prob != nil {
			if prob.Status != 422 || len(prob.Errors) != 1 {
				t.Errorf("%s: %v, want a 422 with one error", what, prob)
				continue
			}
			got = prob.Errors[0].Location + ": " + prob.Errors[0].Message
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", what, got, c.want)
		}
	}
	photo := b.RequestBody.Content[0].Schema.Properties["photo"]
	if photo.MinLength == nil || *photo.MinLength != 1 || !strings.Contains(photo.Description, "From 1 byte to 1 KiB.") {
		t.Errorf("the document of photo: minLength %v, %q", photo.MinLength, photo.Description)
	}
	type withMinLength struct {
		Body struct {
			F *multipart.FileHeader `form:"f" minLength:"1"`
		}
	}
	type minOverMax struct {
		Body struct {
			F *multipart.FileHeader `form:"f" minSize:"2KiB" maxSize:"1KiB"`
		}
	}
	type minOnText struct {
		Body struct {
			Name string `form:"name" minSize:"1"`
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[withMinLength](), reflect.TypeFor[minOverMax](), reflect.TypeFor[minOnText]()} {
		if _, err := Compile(typ, Config{Method: "POST", Pattern: "/p"}); err == nil {
			t.Errorf("%v compiled", typ)
		}
	}
}
