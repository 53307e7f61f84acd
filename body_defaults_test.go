package vane

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

type pageOpts struct {
	Size  int    `json:"size,omitempty" default:"20" maximum:"100"`
	Order string `json:"order,omitempty" default:"asc" enum:"asc,desc"`
}

type searchIn struct {
	Body struct {
		Query  string     `json:"query"`
		Limit  int        `json:"limit,omitempty" default:"20"`
		Exact  bool       `json:"exact,omitempty" default:"true"`
		Ratio  *float64   `json:"ratio,omitempty" default:"0.5" nullable:"true"`
		Page   pageOpts   `json:"page,omitempty"`
		Next   *pageOpts  `json:"next,omitempty"`
		Groups []pageOpts `json:"groups,omitempty"`
	}
}

// Defaults documented on JSON body properties are what the handler gets
// for properties the body did not send, nested ones included; a property
// sent keeps its value, even a zero or a null.
func TestBodyDefaultsApplied(t *testing.T) {
	r := New()
	var got searchIn
	Post(r, "/search", func(ctx context.Context, in *searchIn) (*struct{}, error) {
		got = *in
		return &struct{}{}, nil
	})
	half, p20 := 0.5, pageOpts{Size: 20, Order: "asc"}
	cases := []struct {
		body string
		want func(b *searchIn)
	}{
		{`{"query":"a"}`, func(b *searchIn) {
			b.Body.Limit, b.Body.Exact, b.Body.Ratio, b.Body.Page = 20, true, &half, p20
		}},
		{`{"query":"a","limit":0,"exact":false,"ratio":null,"page":{"size":5}}`, func(b *searchIn) {
			b.Body.Page = pageOpts{Size: 5, Order: "asc"}
		}},
		{`{"query":"a","next":{"order":"desc"},"groups":[{},{"size":1}]}`, func(b *searchIn) {
			b.Body.Limit, b.Body.Exact, b.Body.Ratio, b.Body.Page = 20, true, &half, p20
			b.Body.Next = &pageOpts{Size: 20, Order: "desc"}
			b.Body.Groups = []pageOpts{p20, {Size: 1, Order: "asc"}}
		}},
	}
	for _, c := range cases {
		t.Run(c.body, func(t *testing.T) {
			w := serve(r, "POST", "/search", c.body, "Content-Type", "application/json")
			if w.Code != 204 {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			want := searchIn{}
			want.Body.Query = "a"
			c.want(&want)
			g, _ := json.Marshal(got.Body)
			wj, _ := json.Marshal(want.Body)
			if string(g) != string(wj) {
				t.Errorf("handler got\n%s\nwant\n%s", g, wj)
			}
		})
	}
}

// A body default that breaks its own rules is refused at registration.
func TestBodyDefaultBreakingItsRules(t *testing.T) {
	type in struct {
		Body struct {
			Size int `json:"size,omitempty" default:"200" maximum:"100"`
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "default 200 breaks its own rules") {
			t.Errorf("panic %v, want a refusal of the default", r)
		}
	}()
	Post(New(), "/p", func(ctx context.Context, _ *in) (*struct{}, error) { return nil, nil })
}

// A body property with a default is optional though it has no omitempty:
// the default is what not sending it means, and the document does not
// list it as required. required:"true" keeps it required.
func TestBodyDefaultMakesOptional(t *testing.T) {
	type kindIn struct {
		Body struct {
			Name  string `json:"name"`
			Kind  string `json:"kind" default:"meeting" enum:"meeting,workshop"`
			Rooms int    `json:"rooms" default:"1" required:"true"`
		}
	}
	r := New()
	var got kindIn
	Post(r, "/book", func(ctx context.Context, in *kindIn) (*struct{}, error) {
		got = *in
		return nil, nil
	})
	if w := serve(r, "POST", "/book", `{"name":"a","rooms":2}`, "Content-Type", "application/json"); w.Code != 204 || got.Body.Kind != "meeting" {
		t.Errorf("kind not sent: %d %s, kind %q; want 204 and the default", w.Code, w.Body, got.Body.Kind)
	}
	if w := serve(r, "POST", "/book", `{"name":"a"}`, "Content-Type", "application/json"); w.Code != 422 || !strings.Contains(w.Body.String(), "body.rooms") {
		t.Errorf("rooms, required:\"true\", not sent: %d %s; want a 422 naming body.rooms", w.Code, w.Body)
	}
}
