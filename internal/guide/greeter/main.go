// Command greeter is the guide's first service (docs/guide/first-service.md):
// one typed operation, its OpenAPI document and docs page, served until
// SIGINT or SIGTERM.
package main

import (
	"context"
	"log"
	"strings"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/openapi"
)

// Greet is the input of GET /greetings/{name}: its fields say where each
// value comes from (path, query, header, cookie, Body) and the rules it
// must meet.
type Greet struct {
	Name  string `path:"name" maxLength:"40" doc:"Who to greet."`
	Shout bool   `query:"shout" doc:"Greet in capitals."`
}

// Greeting is its output: a struct without a Body field is the JSON body.
type Greeting struct {
	Message string `json:"message" doc:"The greeting." example:"Hello, Ada!"`
}

func greet(ctx context.Context, in *Greet) (*Greeting, error) {
	msg := "Hello, " + in.Name + "!"
	if in.Shout {
		msg = strings.ToUpper(msg)
	}
	return &Greeting{Message: msg}, nil
}

// newGreeter registers the operation and the document on a new router.
func newGreeter() *vane.Router {
	r := vane.New()
	vane.Get(r, "/greetings/{name}", greet, vane.ID("greet"), vane.Summary("Greet someone"))
	vane.Docs(r, vane.DocsConfig{Config: openapi.Config{
		Info: openapi.Info{Title: "Greeter", Version: "1.0.0"},
	}})
	return r
}

// serveGreeter is the whole of main: check the API, then serve it until
// SIGINT or SIGTERM, draining requests in flight.
func serveGreeter(ctx context.Context) error {
	r := newGreeter()
	if err := r.Check(); err != nil {
		return err // a document that cannot be built, before any request
	}
	return vane.Serve(ctx, ":8080", r)
}

func main() {
	if err := serveGreeter(context.Background()); err != nil {
		log.Fatal(err)
	}
}
