package vane_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/vane-http/vane"
)

type Doc struct {
	ETag string `header:"ETag"`
	Body struct {
		Text string `json:"text"`
	}
}

// An output with an ETag (or Last-Modified) header field answers a GET
// whose If-None-Match matches with 304 Not Modified, without a body.
func ExampleRegister_notModified() {
	r := vane.New()
	vane.Get(r, "/doc", func(ctx context.Context, in *struct{}) (*Doc, error) {
		out := &Doc{ETag: `"v7"`}
		out.Body.Text = "hello"
		return out, nil
	})
	for _, inm := range []string{"", `"v6"`, `W/"v7"`} {
		req := httptest.NewRequest("GET", "/doc", nil)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Println(w.Code, w.Header().Get("ETag"), strings.TrimSpace(w.Body.String()))
	}
	// Output:
	// 200 "v7" {"text":"hello"}
	// 200 "v7" {"text":"hello"}
	// 304 "v7"
}

var docVersion = `"v7"`

// UpdateDoc checks the request's preconditions before the handler runs.
type UpdateDoc struct {
	Body struct {
		Text string `json:"text"`
	}
}

// Precondition returns the current document's validators.
func (in *UpdateDoc) Precondition(ctx context.Context) (etag string, lastModified time.Time, err error) {
	return docVersion, time.Time{}, nil
}

// An input that implements respond.Preconditioner gets If-Match answered
// 412 before the handler changes anything.
func ExampleRegister_precondition() {
	r := vane.New()
	vane.Put(r, "/doc", func(ctx context.Context, in *UpdateDoc) (*struct{}, error) {
		docVersion = `"v8"`
		return nil, nil
	})
	for _, im := range []string{`"v6"`, `"v7"`, `"v7"`} {
		req := httptest.NewRequest("PUT", "/doc", strings.NewReader(`{"text":"bye"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("If-Match", im)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Println(im, w.Code, http.StatusText(w.Code))
	}
	// Output:
	// "v6" 412 Precondition Failed
	// "v7" 204 No Content
	// "v7" 412 Precondition Failed
}

// upperJSON is a codec for text/x-upper: JSON, upper-cased.
type upperJSON struct{}

func (upperJSON) Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return bytes.ToUpper(b), err
}

func (upperJSON) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// A router answers with another media type when the request's Accept
// prefers it, and 406 when it accepts nothing the operation can produce.
func ExampleWithMediaCodec() {
	r := vane.New(vane.WithMediaCodec("text/x-upper", upperJSON{}))
	vane.Get(r, "/greeting", func(ctx context.Context, in *struct{}) (*struct {
		Message string `json:"message"`
	}, error) {
		return &struct {
			Message string `json:"message"`
		}{"hello"}, nil
	})
	for _, accept := range []string{"", "text/x-upper", "text/html"} {
		req := httptest.NewRequest("GET", "/greeting", nil)
		req.Header.Set("Accept", accept)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Println(w.Code, w.Header().Get("Content-Type"), strings.TrimSpace(w.Body.String()))
	}
	fmt.Println(r.Operations()[0].MediaTypes)
	// Output:
	// 200 application/json {"message":"hello"}
	// 200 text/x-upper {"MESSAGE":"HELLO"}
	// 406 application/problem+json {"type":"about:blank","title":"Not Acceptable","status":406,"detail":"None of the media types this operation answers with is acceptable: application/json, text/x-upper."}
	// [application/json text/x-upper]
}
