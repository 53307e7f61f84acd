package respond

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"os"
	"reflect"
	"testing"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/schema"
)

type accepted struct {
	Status int `enum:"200,202"`
	Body   struct {
		Job string `json:"job"`
	}
}

// A Status field's enum lists the statuses the output answers: each is
// documented with the output's body, and any other is an error, not an
// undocumented answer.
func TestStatusEnum(t *testing.T) {
	reg := schema.NewRegistry("#/components/schemas/")
	o, err := Compile(reflect.TypeFor[accepted](), reg)
	if err != nil {
		t.Fatal(err)
	}
	list, err := o.Responses(&operation.Description{Method: "POST", Status: 200}, nil, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, r := range list {
		if r.Status < 300 {
			got += fmt.Sprintf("%d:%d ", r.Status, len(r.Content))
		}
	}
	if got != "200:1 202:1 " {
		t.Errorf("documented %q", got)
	}
	enc := NewEncoders(codec.JSON)
	w := httptest.NewRecorder()
	if err := o.Write(w, httptest.NewRequest("POST", "/", nil), &accepted{Status: 202}, 200, enc); err != nil || w.Code != 202 {
		t.Errorf("202: %d %v", w.Code, err)
	}
	w = httptest.NewRecorder()
	if err := o.Write(w, httptest.NewRequest("POST", "/", nil), &accepted{Status: 203}, 200, enc); err == nil || w.Body.Len() != 0 {
		t.Errorf("203, not in the enum: %d %v", w.Code, err)
	}
	if _, err := Compile(reflect.TypeFor[struct {
		Status int `enum:"200,404"`
		Body   string
	}](), reg); err == nil {
		t.Error("an error status in a Status enum was accepted")
	}
}

type photoOut struct {
	ContentType string `header:"Content-Type"`
	Body        []byte `mediaType:"image/png, image/jpeg"`
}

type pngOut struct {
	Body []byte `mediaType:"image/png"`
}

// A raw body's mediaType tag documents its media types instead of
// application/octet-stream; one concrete type is also its default
// Content-Type.
func TestRawMediaTypes(t *testing.T) {
	reg := schema.NewRegistry("#/components/schemas/")
	o, err := Compile(reflect.TypeFor[photoOut](), reg)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := o.Responses(&operation.Description{Method: "GET", Status: 200}, nil, reg, nil)
	if c := list[0].Content; len(c) != 2 || c[0].MediaType != "image/png" || c[1].MediaType != "image/jpeg" {
		t.Errorf("documented %+v", c)
	}
	p, err := Compile(reflect.TypeFor[pngOut](), reg)
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	if err := p.Write(w, httptest.NewRequest("GET", "/", nil), &pngOut{Body: []byte("\x89PNG")}, 200, NewEncoders(codec.JSON)); err != nil || w.Header().Get("Content-Type") != "image/png" {
		t.Errorf("%v %v", w.Header(), err)
	}
	if _, err := Compile(reflect.TypeFor[struct {
		Body struct{} `mediaType:"image/png"`
	}](), reg); err == nil {
		t.Error("a mediaType tag on a JSON body was accepted")
	}
}

type fileOut struct {
	ContentType string `header:"Content-Type"`
	Body        *os.File
}

type bytesReaderOut struct {
	Body *bytes.Reader
}

// A body of a concrete reader type is sent as its bytes, and closed when
// it is a Closer, never encoded as the JSON {}.
func TestConcreteReaderBodies(t *testing.T) {
	reg := schema.NewRegistry("#/components/schemas/")
	f, err := os.CreateTemp(t.TempDir(), "body")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("file contents")
	f.Seek(0, 0)
	o, err := Compile(reflect.TypeFor[fileOut](), reg)
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	if err := o.Write(w, httptest.NewRequest("GET", "/", nil), &fileOut{ContentType: "text/plain", Body: f}, 200, NewEncoders(codec.JSON)); err != nil ||
		w.Body.String() != "file contents" || w.Header().Get("Content-Type") != "text/plain" {
		t.Errorf("*os.File: %q %v %v", w.Body, w.Header(), err)
	}
	if _, err := f.Read(make([]byte, 1)); err == nil {
		t.Error("the file was not closed")
	}
	b, err := Compile(reflect.TypeFor[bytesReaderOut](), reg)
	if err != nil {
		t.Fatal(err)
	}
	w = httptest.NewRecorder()
	if err := b.Write(w, httptest.NewRequest("GET", "/", nil), &bytesReaderOut{Body: bytes.NewReader([]byte("raw"))}, 200, NewEncoders(codec.JSON)); err != nil ||
		w.Body.String() != "raw" || w.Header().Get("Content-Type") != "application/octet-stream" {
		t.Errorf("*bytes.Reader: %q %v %v", w.Body, w.Header(), err)
	}
	w = httptest.NewRecorder()
	if err := b.Write(w, httptest.NewRequest("GET", "/", nil), &bytesReaderOut{}, 200, NewEncoders(codec.JSON)); err != nil || w.Body.Len() != 0 {
		t.Errorf("a nil reader: %q %v", w.Body, err)
	}
}
