package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/openapi"
)

type GetGreeting struct {
	Name string `path:"name" maxLength:"20" doc:"Who to greet."`
}

type Greeting struct {
	Message string `json:"message" example:"Hello, Ada!"`
}

func greet(ctx context.Context, in *GetGreeting) (*Greeting, error) {
	return &Greeting{Message: "Hello, " + in.Name + "!"}, nil
}

// The document of a router's typed operations, with a hook that adds a
// server and an x- extension, written as YAML.
func ExampleBuild() {
	r := vane.New()
	vane.Get(r, "/greetings/{name}", greet, vane.ID("getGreeting"), vane.Summary("Greet someone"))

	doc, err := openapi.Build(openapi.Config{
		Info:             openapi.Info{Title: "Greeter", Version: "1.0.0"},
		NoErrorResponses: true,
		Edit: []func(*openapi.Document) error{func(d *openapi.Document) error {
			d.Servers = []*openapi.Server{{URL: "https://greeter.example.com"}}
			d.Paths["/greetings/{name}"].Get.Extensions = openapi.Extensions{"x-cache-seconds": 60}
			return nil
		}},
	}, r.Operations())
	if err != nil {
		fmt.Println(err)
		return
	}
	op := doc.Paths["/greetings/{name}"].Get
	fmt.Println(op.OperationID, op.Parameters[0].In, op.Parameters[0].Name)
	fmt.Println(slices.Sorted(maps.Keys(op.Responses)))
	fmt.Println(slices.Sorted(maps.Keys(doc.Components.Schemas)))
	fmt.Println(doc.Servers[0].URL, op.Extensions)

	// The YAML of one schema, as the document holds it.
	y, _ := openapi.JSONToYAML(must(json.Marshal(doc.Components.Schemas["Greeting"])))
	os.Stdout.Write(y)
	// Output:
	// getGreeting path name
	// [200 406 422 500]
	// [Greeting Problem ProblemFieldError]
	// https://greeter.example.com map[x-cache-seconds:60]
	// type: object
	// properties:
	//   message:
	//     type: string
	//     examples:
	//       - Hello, Ada!
	// required:
	//   - message
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
