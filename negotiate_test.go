package vane

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// textCodec encodes as Go's %v, for a second media type.
type textCodec struct{}

func (textCodec) Marshal(v any) ([]byte, error)      { return []byte(fmt.Sprintf("%v", v)), nil }
func (textCodec) Unmarshal(data []byte, v any) error { return fmt.Errorf("not supported") }

type greetingOut struct {
	Body struct {
		Message string `json:"message"`
	}
}

type vendorOut struct {
	ContentType string `header:"Content-Type"`
	Body        struct {
		Message string `json:"message"`
	}
}

// Accept chooses among JSON and the router's other encodings; nothing
// acceptable is a 406 naming what is; an output's Content-Type field is
// kept; the document lists every media type and the 406.
func TestContentNegotiation(t *testing.T) {
	r := New(Encode("text/plain", textCodec{}))
	Get(r, "/greet", func(ctx context.Context, _ *struct{}) (*greetingOut, error) {
		out := &greetingOut{}
		out.Body.Message = "hi"
		return out, nil
	})
	Get(r, "/vendor", func(ctx context.Context, _ *struct{}) (*vendorOut, error) {
		out := &vendorOut{ContentType: "application/vnd.example+json"}
		out.Body.Message = "hi"
		return out, nil
	})
	cases := []struct {
		path, accept string
		status       int
		ct, body     string
	}{
		{"/greet", "", 200, "application/json", `{"message":"hi"}`},
		{"/greet", "*/*", 200, "application/json", `{"message":"hi"}`},
		{"/greet", "text/plain", 200, "text/plain", `{hi}`},
		{"/greet", "application/json;q=0.5, text/*;q=0.9", 200, "text/plain", `{hi}`},
		{"/greet", "text/plain;q=0.1, application/*", 200, "application/json", `{"message":"hi"}`},
		{"/greet", "application/xml", 406, "application/problem+json", "answers with application/json, text/plain"},
		{"/greet", "application/json;q=0", 406, "application/problem+json", "Not Acceptable"},
		{"/vendor", "", 200, "application/vnd.example+json", `{"message":"hi"}`},
	}
	for _, c := range cases {
		t.Run(c.path+" "+c.accept, func(t *testing.T) {
			var h []string
			if c.accept != "" {
				h = []string{"Accept", c.accept}
			}
			w := serve(r, "GET", c.path, "", h...)
			if w.Code != c.status || w.Header().Get("Content-Type") != c.ct || !strings.Contains(w.Body.String(), c.body) {
				t.Errorf("%d %s %s, want %d %s %s", w.Code, w.Header().Get("Content-Type"), w.Body, c.status, c.ct, c.body)
			}
		})
	}
	var types []string
	for _, resp := range r.Operations()[0].Responses {
		if resp.Status == 200 {
			for _, c := range resp.Content {
				types = append(types, c.MediaType)
			}
		}
		if resp.Status == 406 {
			types = append(types, "406")
		}
	}
	if got := strings.Join(types, " "); got != "application/json text/plain 406" {
		t.Errorf("documented %s", got)
	}
}
