package vanetest

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
)

// Multipart is a multipart/form-data body, built part by part, for Do and
// its shorthands (which send it with its Content-Type) or for a request of
// your own (Bytes and ContentType):
//
//	body := vanetest.NewMultipart().
//		Field("caption", "Rex at the beach").
//		File("photo", "rex.png", "image/png", png)
//	res := api.Post("/pets/7/photos", body)
//
// For Call, put the files in the input instead, made with [File]: Call
// builds the same body from the input's form fields.
//
// The parts are sent in the order they were added. A Multipart is not safe
// for concurrent use.
type Multipart struct {
	boundary string
	parts    []part
}

// part is one part: a form value named field (header nil), or a part
// with its own header.
type part struct {
	field   string
	header  textproto.MIMEHeader
	content []byte
}

// NewMultipart returns an empty multipart/form-data body with a random
// boundary.
func NewMultipart() *Multipart {
	return &Multipart{boundary: multipart.NewWriter(io.Discard).Boundary()}
}

// Field adds a form value: a part named name with no Content-Type.
func (m *Multipart) Field(name, value string) *Multipart {
	m.parts = append(m.parts, part{field: name, content: []byte(value)})
	return m
}

// File adds a file: a part named field with the file name filename,
// Content-Type contentType (none when empty) and the bytes content.
func (m *Multipart) File(field, filename, contentType string, content []byte) *Multipart {
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", multipart.FileContentDisposition(field, filename))
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	return m.Part(h, content)
}

// Part adds a part with exactly the header and content given, for what
// Field and File do not make (a value with a Content-Type of its own, a
// part without a name).
func (m *Multipart) Part(header textproto.MIMEHeader, content []byte) *Multipart {
	if header == nil {
		header = textproto.MIMEHeader{}
	}
	m.parts = append(m.parts, part{header: header, content: content})
	return m
}

// ContentType is the body's media type with its boundary, for the
// request's Content-Type header.
func (m *Multipart) ContentType() string {
	return "multipart/form-data; boundary=" + m.boundary
}

// Bytes returns the encoded body: its parts, then the closing boundary.
func (m *Multipart) Bytes() []byte {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	w.SetBoundary(m.boundary) //nolint:errcheck // NewWriter's own boundary is valid
	for _, p := range m.parts {
		// Writing to a bytes.Buffer does not fail.
		if p.header == nil {
			w.WriteField(p.field, string(p.content)) //nolint:errcheck
			continue
		}
		pw, _ := w.CreatePart(p.header)
		pw.Write(p.content) //nolint:errcheck
	}
	w.Close() //nolint:errcheck
	return b.Bytes()
}

// File returns a file as a handler receives one (a *multipart.FileHeader
// whose Open reads content, with the file name filename and the
// Content-Type contentType, none when empty), for the file fields of an
// input sent with Call:
//
//	in := &UploadPhoto{ID: 7}
//	in.Body.Photo = vanetest.File("rex.png", "image/png", png)
//	out, p := vanetest.Call[UploadPhoto, Photo](api, "uploadPhoto", in)
//
// The content is kept in memory.
func File(filename, contentType string, content []byte) *multipart.FileHeader {
	m := NewMultipart().File("file", filename, contentType, content)
	form, err := multipart.NewReader(bytes.NewReader(m.Bytes()), m.boundary).ReadForm(int64(len(content)) + 1<<10)
	if err != nil || len(form.File["file"]) != 1 {
		// The body was made here and holds one small-header part: reading
		// it back fails only for a name that mime/multipart refuses.
		panic(fmt.Sprintf("vanetest.File(%q, %q): %v", filename, contentType, err))
	}
	return form.File["file"][0]
}

// addFile adds fh to m as the file part field: its file name, its headers
// (Content-Type and any other, the Content-Disposition excepted) and its
// content.
func addFile(m *Multipart, field string, fh *multipart.FileHeader) error {
	f, err := fh.Open()
	if err != nil {
		return fmt.Errorf("opening the file %q of %s: %w", fh.Filename, field, err)
	}
	defer f.Close()
	content, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("reading the file %q of %s: %w", fh.Filename, field, err)
	}
	h := textproto.MIMEHeader{}
	for k, v := range fh.Header {
		h[k] = append([]string(nil), v...)
	}
	h.Set("Content-Disposition", multipart.FileContentDisposition(field, fh.Filename))
	m.Part(h, content)
	return nil
}
