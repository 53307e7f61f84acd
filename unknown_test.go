package vane

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vane-http/vane/codec"
)

type unknownLine struct {
	SKU string `json:"sku,omitempty"`
}

type unknownOrder struct {
	Name  string            `json:"name"`
	Lines []unknownLine     `json:"lines,omitempty"`
	Meta  map[string]string `json:"meta,omitempty"`
}

type unknownIn struct {
	Body unknownOrder
}

func unknownRouter(opts ...Option) *Router {
	r := New(opts...)
	Post(r, "/orders", func(ctx context.Context, in *unknownIn) (*struct{}, error) { return &struct{}{}, nil })
	return r
}

// With RefuseUnknown, a member no struct field names is a 422 naming it,
// at any depth, and the document's struct schemas say so; maps stay open.
// By default such members are ignored and the document says nothing.
func TestUnknownProperties(t *testing.T) {
	strict, lenient := unknownRouter(UnknownProperties(RefuseUnknown)), unknownRouter()
	cases := []struct {
		body        string
		strict, loc string // strict: the status; loc: where the 422 points
	}{
		{`{"name":"a","lines":[{"sku":"x"}],"meta":{"anything":"y"}}`, "200", ""},
		{`{"name":"a","nmae":"b"}`, "422", "body.nmae"},
		{`{"name":"a","lines":[{"sku":"x"},{"SKU":"y"}]}`, "422", "body.lines[1].SKU"},
	}
	for _, c := range cases {
		t.Run(c.body, func(t *testing.T) {
			w := serve(lenient, "POST", "/orders", c.body, "Content-Type", "application/json")
			if w.Code != 200 {
				t.Errorf("lenient: %d %s", w.Code, w.Body)
			}
			w = serve(strict, "POST", "/orders", c.body, "Content-Type", "application/json")
			if got := strings.TrimSpace(w.Result().Status[:3]); got != c.strict {
				t.Fatalf("strict: %d %s, want %s", w.Code, w.Body, c.strict)
			}
			if c.loc != "" {
				errs := decodeProblem(t, w).Errors
				if len(errs) != 1 || errs[0].Location != c.loc || errs[0].Message != "unknown property" {
					t.Errorf("strict: %s, want unknown property at %s", w.Body, c.loc)
				}
			}
		})
	}
	doc := func(r *Router) string {
		b, _ := json.Marshal(r.Schemas().Schemas())
		return string(b)
	}
	if got := doc(strict); !strings.Contains(got, `"unknownLine":{"type":"object","properties":{"sku":{"type":"string"}},"additionalProperties":false}`) ||
		!strings.Contains(got, `"meta":{"type":"object","additionalProperties":{"type":"string"}}},"required":["name"],"additionalProperties":false}`) {
		t.Errorf("strict document: %s", got)
	}
	if got := doc(lenient); strings.Contains(got, "additionalProperties\":false") {
		t.Errorf("lenient document: %s", got)
	}
}

// A codec that cannot refuse unknown members is refused at registration.
func TestRefuseUnknownNeedsClosedDecoder(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmtPanic(r), "ClosedDecoder") {
			t.Errorf("panic %v", r)
		}
	}()
	unknownRouter(UnknownProperties(RefuseUnknown), Codec(codec.Std))
}

func fmtPanic(r any) string {
	if e, ok := r.(error); ok {
		return e.Error()
	}
	s, _ := r.(string)
	return s
}
