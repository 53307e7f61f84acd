package main

import (
	"context"
	"net/http"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/bench/e2e"
)

func init() { impls["vane"] = vaneTyped }

type vaneItemIn struct {
	ID            string `path:"id"`
	Verbose       bool   `query:"verbose"`
	Authorization string `header:"Authorization" required:"true"`
}

// vaneTyped is the service as a vane typed operation: the id, the query
// parameter and the required header bound and validated from tags, the
// output encoded by vane's codec.
func vaneTyped() http.Handler {
	r := vane.New()
	vane.Get(r, "/items/{id}", func(ctx context.Context, in *vaneItemIn) (*e2e.Item, error) {
		item := e2e.NewItem(in.ID, in.Verbose)
		return &item, nil
	})
	return r
}
