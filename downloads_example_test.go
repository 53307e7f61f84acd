package vane_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"time"

	"github.com/vane-http/vane"
)

// Report is a download: an io.ReadSeeker body (an *os.File serves as
// well) is sent whole, or in the byte ranges a Range asks for; its ETag
// and Last-Modified make If-Range, If-None-Match and the other
// preconditions work.
type Report struct {
	ContentType  string        `header:"Content-Type"`
	ETag         string        `header:"ETag"`
	LastModified time.Time     `header:"Last-Modified"`
	Body         io.ReadSeeker `mediaType:"text/csv"`
}

type GetReport struct {
	Name string `path:"name" pattern:"^[a-z]+$"`
}

func getReport(ctx context.Context, in *GetReport) (*Report, error) {
	data := "day,visits\nmon,10\ntue,12\n"
	return &Report{
		ContentType:  "text/csv",
		ETag:         `"r1"`,
		LastModified: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC),
		Body:         strings.NewReader(data),
	}, nil
}

// A Range request gets 206 Partial Content with the bytes it asks for.
func Example_download() {
	r := vane.New()
	vane.Get(r, "/reports/{name}", getReport)

	req := httptest.NewRequest("GET", "/reports/visits", nil)
	req.Header.Set("Range", "bytes=11-16")
	req.Header.Set("If-Range", `"r1"`) // resume only if it has not changed
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	fmt.Println(w.Code, w.Header().Get("Content-Range"), w.Body.String())
	// Output:
	// 206 bytes 11-16/25 mon,10
}

// UploadAvatar is a multipart form whose file field says which media
// types it takes and how small and large a file may be.
type UploadAvatar struct {
	Body struct {
		Avatar *multipart.FileHeader `form:"avatar" required:"true" contentType:"image/png,image/jpeg" minSize:"1" maxSize:"1MiB"`
	}
}

type Avatar struct {
	Size int64 `json:"size"`
}

func uploadAvatar(ctx context.Context, in *UploadAvatar) (*Avatar, error) {
	return &Avatar{Size: in.Body.Avatar.Size}, nil
}

// A file of another type is refused before the handler runs, naming the
// field; so is a file larger than maxSize (413) and an empty one (422).
func Example_uploadConstraints() {
	r := vane.New()
	vane.Post(r, "/avatar", uploadAvatar)

	for _, c := range []struct{ ctype, data string }{{"image/png", "image bytes"}, {"image/gif", "image bytes"}, {"image/png", ""}} {
		ctype := c.ctype
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="avatar"; filename="me"`)
		h.Set("Content-Type", ctype)
		part, _ := mw.CreatePart(h)
		part.Write([]byte(c.data))
		mw.Close()
		req := httptest.NewRequest("POST", "/avatar", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Println(ctype, w.Code, strings.TrimSpace(w.Body.String()))
	}
	// Output:
	// image/png 200 {"size":11}
	// image/gif 422 {"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"location":"body.avatar","message":"the file's media type must be one of image/png, image/jpeg","value":"image/gif"}]}
	// image/png 422 {"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"location":"body.avatar","message":"the file is smaller than 1 byte","value":0}]}
}
