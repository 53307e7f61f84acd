package vane

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/internal/oasvalidate"
	"github.com/vane-http/vane/schema"
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
		{`{"name":"a","lines":[{"sku":"x"}],"meta":{"anything":"y"}}`, "204", ""},
		{`{"name":"a","nmae":"b"}`, "422", "body.nmae"},
		{`{"name":"a","lines":[{"sku":"x"},{"SKU":"y"}]}`, "422", "body.lines[1].SKU"},
	}
	for _, c := range cases {
		t.Run(c.body, func(t *testing.T) {
			w := serve(lenient, "POST", "/orders", c.body, "Content-Type", "application/json")
			if w.Code != 204 {
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

// An operation may take the other policy than its router's: it refers to
// variant components, and only it refuses (or accepts) unknown members.
func TestUnknownPropertiesPerOperation(t *testing.T) {
	for _, c := range []struct {
		router, op UnknownPolicy
		variant    string
	}{{IgnoreUnknown, RefuseUnknown, "unknownOrderClosed"}, {RefuseUnknown, IgnoreUnknown, "unknownOrderOpen"}} {
		t.Run(c.variant, func(t *testing.T) {
			r := New(UnknownProperties(c.router))
			h := func(ctx context.Context, in *unknownIn) (*struct{}, error) { return &struct{}{}, nil }
			Post(r, "/router", h)
			Post(r, "/op", h, UnknownProperties(c.op))
			Docs(r, DocsConfig{})
			body := `{"name":"a","lines":[{"sku":"x","qty":1}]}`
			status := map[UnknownPolicy]int{IgnoreUnknown: 204, RefuseUnknown: 422}
			for path, p := range map[string]UnknownPolicy{"/router": c.router, "/op": c.op} {
				if w := serve(r, "POST", path, body, "Content-Type", "application/json"); w.Code != status[p] {
					t.Errorf("%s: %d %s, want %d", path, w.Code, w.Body, status[p])
				}
			}
			schemas := r.Schemas().Schemas()
			v, orig := schemas[c.variant], schemas["unknownOrder"]
			if v == nil || orig == nil {
				t.Fatalf("components %v", r.Schemas().Names())
			}
			closed := func(s *schema.Schema) bool { return s.AdditionalProperties != nil && s.AdditionalProperties.False }
			if closed(v) != (c.op == RefuseUnknown) || closed(orig) != (c.router == RefuseUnknown) {
				t.Errorf("variant closed %v, original closed %v", closed(v), closed(orig))
			}
			b, _ := json.Marshal(v) // its items refer to the line's variant
			if !strings.Contains(string(b), "unknownLine"+strings.TrimPrefix(c.variant, "unknownOrder")) {
				t.Errorf("%s does not refer to the line's variant: %s", c.variant, b)
			}
			ops := r.Operations()
			rb, _ := json.Marshal(ops[1].RequestBody.Content[0].Schema)
			if !strings.Contains(string(rb), c.variant) {
				t.Errorf("the operation's body schema %s does not refer to %s", rb, c.variant)
			}
			docs := map[string][]byte{}
			for _, p := range []string{"/openapi.json", "/openapi-3.0.json"} {
				w := serve(r, "GET", p, "")
				if w.Code != 200 || !strings.Contains(w.Body.String(), `"`+c.variant+`":`) {
					t.Errorf("%s: %d, no %s component", p, w.Code, c.variant)
				}
				docs[c.variant+strings.TrimPrefix(p, "/openapi")] = w.Body.Bytes()
			}
			oasvalidate.Validate(t, docs)
		})
	}
}
