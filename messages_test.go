package vane

import (
	"context"
	"strings"
	"testing"
)

type messagedIn struct {
	Limit int `query:"limit" minimum:"1" maximum:"100" message:"la limite va de 1 à 100"`
	Body  struct {
		Lines []struct {
			Name string `json:"name" minLength:"1" message:"chaque ligne a un nom"`
		} `json:"lines"`
	}
}

// A message tag replaces the message of every failure of its field,
// whatever failed: a rule, or a value that did not parse.
func TestMessageTags(t *testing.T) {
	r := New()
	Post(r, "/m", func(ctx context.Context, in *messagedIn) (*struct{}, error) { return &struct{}{}, nil })
	cases := []struct{ query, body, want string }{
		{"?limit=500", `{"lines":[]}`, `"location":"query.limit","message":"la limite va de 1 à 100"`},
		{"?limit=x", `{"lines":[]}`, `"location":"query.limit","message":"la limite va de 1 à 100"`},
		{"?limit=5", `{"lines":[{"name":"a"},{"name":""}]}`, `"location":"body.lines[1].name","message":"chaque ligne a un nom"`},
	}
	for _, c := range cases {
		w := serve(r, "POST", "/m"+c.query, c.body, "Content-Type", "application/json")
		if w.Code != 422 || !strings.Contains(w.Body.String(), c.want) {
			t.Errorf("%s %s: %d %s, want %s", c.query, c.body, w.Code, w.Body, c.want)
		}
	}
}
