package vane

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vane-http/vane/schema"
)

// shape describes itself as a circle or a square: a oneOf whose branches
// are told apart by a const.
type shape map[string]any

func (shape) JSONSchema(*schema.Registry) *schema.Schema {
	num := &schema.Schema{Type: schema.TypeNumber, ExclusiveMinimum: new(float64)}
	closed := &schema.Schema{Not: &schema.Schema{}} // the schema false
	return &schema.Schema{
		Type: schema.TypeObject,
		OneOf: []*schema.Schema{
			{Type: schema.TypeObject, Required: []string{"kind", "radius"}, AdditionalProperties: closed,
				Properties: map[string]*schema.Schema{"kind": {Const: "circle"}, "radius": num}},
			{Type: schema.TypeObject, Required: []string{"kind", "side"}, AdditionalProperties: closed,
				Properties: map[string]*schema.Schema{"kind": {Const: "square"}, "side": num}},
		},
	}
}

// tagged uses the other combinators.
type tagged map[string]any

func (tagged) JSONSchema(*schema.Registry) *schema.Schema {
	return &schema.Schema{
		Type: schema.TypeObject,
		AllOf: []*schema.Schema{
			{Properties: map[string]*schema.Schema{"name": {Type: schema.TypeString, MinLength: ptrTo(1)}}},
		},
		AnyOf: []*schema.Schema{
			{Required: []string{"name"}},
			{Required: []string{"id"}},
		},
		Not:               &schema.Schema{Required: []string{"deleted"}},
		DependentRequired: map[string][]string{"card": {"billing"}},
	}
}

func ptrTo[T any](v T) *T { return &v }

type drawIn struct {
	Body struct {
		Shape shape   `json:"shape"`
		Tag   *tagged `json:"tag,omitempty"`
	}
}

// The keywords a Go value cannot show are enforced as the document states
// them: what an independent JSON Schema validator would refuse gets a 422
// at the right location.
func TestCombinatorsEnforced(t *testing.T) {
	r := New()
	Post(r, "/draw", func(ctx context.Context, in *drawIn) (*struct{}, error) { return &struct{}{}, nil })
	cases := []struct {
		body string
		want string // "" for 200, else the location and a word of the message
	}{
		{`{"shape":{"kind":"circle","radius":2}}`, ""},
		{`{"shape":{"kind":"square","side":1.5}}`, ""},
		{`{"shape":{"kind":"triangle"}}`, "body.shape: matched none"},
		{`{"shape":{}}`, "body.shape: matched none"},
		{`{"shape":{"kind":"circle","radius":"2"}}`, "body.shape: matched none"},
		{`{"shape":{"kind":"circle","radius":0}}`, "body.shape: matched none"},
		{`{"shape":{"kind":"circle","radius":1,"side":1}}`, "body.shape: matched none"},
		{`{"shape":{"kind":"circle","radius":1},"tag":{"name":"a"}}`, ""},
		{`{"shape":{"kind":"circle","radius":1},"tag":{"id":1}}`, ""},
		{`{"shape":{"kind":"circle","radius":1},"tag":{}}`, "body.tag: anyOf"},
		{`{"shape":{"kind":"circle","radius":1},"tag":{"name":""}}`, "body.tag.name: length >= 1"},
		{`{"shape":{"kind":"circle","radius":1},"tag":{"id":1,"deleted":true}}`, "body.tag: not"},
		{`{"shape":{"kind":"circle","radius":1},"tag":{"id":1,"card":"x"}}`, "body.tag.billing: card is present"},
		{`{"shape":{"kind":"circle","radius":1},"tag":{"id":1,"card":"x","billing":"y"}}`, ""},
	}
	for _, c := range cases {
		t.Run(c.body, func(t *testing.T) {
			w := serve(r, "POST", "/draw", c.body, "Content-Type", "application/json")
			if c.want == "" {
				if w.Code != 204 {
					t.Fatalf("%d %s, want 204", w.Code, w.Body)
				}
				return
			}
			if w.Code != 422 {
				t.Fatalf("%d %s, want 422 (%s)", w.Code, w.Body, c.want)
			}
			loc, word, _ := strings.Cut(c.want, ": ")
			for _, e := range decodeProblem(t, w).Errors {
				if e.Location == loc && strings.Contains(e.Message, word) {
					return
				}
			}
			t.Errorf("no failure at %s saying %q: %s", loc, word, w.Body)
		})
	}
	if n := len(r.Operations()[0].Responses); n == 0 {
		t.Fatal("no responses documented")
	}
}

// A combinator on a parameter cannot be enforced: registration says so.
func TestCombinatorOnParameterRefused(t *testing.T) {
	type in struct {
		Shape shapeParam `query:"shape"`
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "JSON bodies only") {
			t.Errorf("panic %v, want a refusal naming JSON bodies", r)
		}
	}()
	Get(New(), "/p", func(ctx context.Context, _ *in) (*struct{}, error) { return nil, nil })
}

type shapeParam string

func (shapeParam) JSONSchema(*schema.Registry) *schema.Schema {
	return &schema.Schema{Type: schema.TypeString, AnyOf: []*schema.Schema{{Const: "a"}, {Const: "b"}}}
}
