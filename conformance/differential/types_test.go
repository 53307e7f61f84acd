package differential

import (
	"context"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/schema"
)

// The types below use every keyword vane's tags and schema model have, on
// bodies, so that each meets generated values at its edges.

type numbers struct {
	Count    int      `json:"count" minimum:"1" maximum:"10"`
	Ratio    float64  `json:"ratio,omitempty" exclusiveMinimum:"0" exclusiveMaximum:"1"`
	Step     float64  `json:"step,omitempty" multipleOf:"0.5"`
	Level    int      `json:"level,omitempty" enum:"1,2,3"`
	Scores   []int    `json:"scores,omitempty" minItems:"1" maxItems:"4" uniqueItems:"true" minimum:"0"`
	Weight   *float64 `json:"weight,omitempty" nullable:"true" maximum:"100"`
	Priority int      `json:"priority,omitempty" default:"2" minimum:"1" maximum:"3"`
}

type texts struct {
	Name     string            `json:"name" minLength:"2" maxLength:"5"`
	Code     string            `json:"code,omitempty" pattern:"^[A-Z]{3}-[0-9]+$" example:"ABC-12"`
	Kind     string            `json:"kind,omitempty" enum:"a,b,c"`
	Email    string            `json:"email,omitempty" format:"email"`
	Host     string            `json:"host,omitempty" format:"hostname"`
	Day      string            `json:"day,omitempty" format:"date"`
	At       string            `json:"at,omitempty" format:"date-time"`
	Clock    string            `json:"clock,omitempty" format:"time"`
	Span     string            `json:"span,omitempty" format:"duration"`
	IP4      string            `json:"ip4,omitempty" format:"ipv4"`
	IP6      string            `json:"ip6,omitempty" format:"ipv6"`
	Link     string            `json:"link,omitempty" format:"uri"`
	ID       string            `json:"id,omitempty" format:"uuid"`
	Tags     []string          `json:"tags,omitempty" uniqueItems:"true" maxLength:"3"`
	Labels   map[string]string `json:"labels,omitempty" minProperties:"1" maxProperties:"2"`
	Note     *string           `json:"note,omitempty" nullable:"true" maxLength:"4"`
	Made     time.Time         `json:"made,omitzero"`
	Archived bool              `json:"archived,omitempty"`
}

type line struct {
	SKU string `json:"sku" minLength:"1"`
	Qty int    `json:"qty" minimum:"1"`
}

type nested struct {
	Lines   []line          `json:"lines" minItems:"1"`
	Primary *line           `json:"primary,omitempty"`
	ByName  map[string]line `json:"byName,omitempty"`
	Fixed   [2]line         `json:"fixed"`
	Extra   *nested         `json:"extra,omitempty"`
}

// shape is a oneOf told apart by const, with closed branches.
type shape map[string]any

func (shape) JSONSchema(*schema.Registry) *schema.Schema {
	pos := &schema.Schema{Type: schema.TypeNumber, ExclusiveMinimum: new(float64)}
	closed := &schema.Schema{False: true}
	return &schema.Schema{
		Type: schema.TypeObject,
		OneOf: []*schema.Schema{
			{Type: schema.TypeObject, Required: []string{"kind", "radius"}, AdditionalProperties: closed,
				Properties: map[string]*schema.Schema{"kind": {Const: "circle"}, "radius": pos}},
			{Type: schema.TypeObject, Required: []string{"kind", "side"}, AdditionalProperties: closed,
				Properties: map[string]*schema.Schema{"kind": {Const: "square"}, "side": pos}},
		},
	}
}

// tagged uses allOf, anyOf, not and dependentRequired.
type tagged map[string]any

func (tagged) JSONSchema(*schema.Registry) *schema.Schema {
	one := 1
	return &schema.Schema{
		Type: schema.TypeObject,
		AllOf: []*schema.Schema{
			{Properties: map[string]*schema.Schema{"name": {Type: schema.TypeString, MinLength: &one}}},
		},
		AnyOf:             []*schema.Schema{{Required: []string{"name"}}, {Required: []string{"id"}}},
		Not:               &schema.Schema{Required: []string{"deleted"}},
		DependentRequired: map[string][]string{"card": {"billing"}},
		Properties: map[string]*schema.Schema{
			"id": {Type: schema.TypeInteger}, "card": {Type: schema.TypeString}, "billing": {Type: schema.TypeString},
			"deleted": {Type: schema.TypeBoolean},
		},
	}
}

type drawing struct {
	Shape shape   `json:"shape"`
	Tag   *tagged `json:"tag,omitempty"`
	Many  []shape `json:"many,omitempty" maxItems:"3"`
}

type out struct{}

func ok[I any](ctx context.Context, in *I) (*out, error) { return &out{}, nil }

// register adds the operations to r; other is the policy opposite to r's,
// which one operation takes for itself.
func register(r *vane.Router, other vane.UnknownPolicy) {
	vane.Post(r, "/nested-other", ok[struct{ Body nested }], vane.UnknownProperties(other))
	vane.Post(r, "/numbers", ok[struct{ Body numbers }])
	vane.Post(r, "/texts", ok[struct{ Body texts }])
	vane.Post(r, "/nested", ok[struct{ Body nested }])
	vane.Post(r, "/drawing", ok[struct{ Body drawing }])
	vane.Post(r, "/list", ok[struct {
		Body []line `minItems:"1" maxItems:"3"`
	}])
	vane.Put(r, "/optional", ok[struct{ Body *texts }])
}
