package cli_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/cli"
	"github.com/vane-http/vane/openapi"
)

// HelloOptions are the hello service's options: -addr and $HELLO_ADDR,
// -greeting and $HELLO_GREETING.
type HelloOptions struct {
	Addr     string `default:":8080" doc:"address to listen on"`
	Greeting string `default:"Hello" doc:"the first word of every greeting"`
}

type Greet struct {
	Name string `path:"name" maxLength:"20"`
}

type Greeting struct {
	Message string `json:"message"`
}

// helloAPI builds the service's router from its options.
func helloAPI(o *HelloOptions) (*vane.Router, openapi.Config) {
	r := vane.New()
	vane.Get(r, "/greetings/{name}", func(ctx context.Context, in *Greet) (*Greeting, error) {
		return &Greeting{Message: o.Greeting + ", " + in.Name}, nil
	}, vane.ID("greet"))
	cfg := openapi.Config{Info: openapi.Info{Title: "Hello", Version: "1.0.0"}}
	vane.Docs(r, vane.DocsConfig{Config: cfg})
	return r, cfg
}

var hello = &cli.App[HelloOptions]{
	Name:      "hello",
	Doc:       "hello greets whoever asks.",
	EnvPrefix: "HELLO_",
	API: func(o *HelloOptions) (*vane.Router, openapi.Config, error) {
		r, cfg := helloAPI(o)
		return r, cfg, nil
	},
	Serve: func(ctx context.Context, o *HelloOptions, env *cli.Env) error {
		r, _ := helloAPI(o)
		return vane.Serve(ctx, o.Addr, r)
	},
}

// A service's main is hello.Main(). Here the command line
// "hello openapi json 3.0" runs in process: it writes the OpenAPI 3.0
// document, for a client generator, and serves nothing.
func ExampleApp() {
	var out strings.Builder
	err := hello.Run(context.Background(), []string{"openapi", "json", "3.0"}, os.Getenv, &out, os.Stderr)
	fmt.Println(err)
	fmt.Println(strings.Contains(out.String(), `"openapi": "3.0.3"`), strings.Contains(out.String(), `"/greetings/{name}"`))
	// Output:
	// <nil>
	// true true
}

// "hello -h" lists the commands and the options.
func ExampleApp_help() {
	hello.Run(context.Background(), []string{"-h"}, os.Getenv, os.Stdout, os.Stderr)
	// Output:
	// hello greets whoever asks.
	//
	// Usage:
	//   hello [options] [command]
	//
	// Commands:
	//   serve                          serve the API (the default)
	//   openapi [json|yaml] [3.1|3.0]  write the OpenAPI document to standard output (default: yaml 3.1)
	//   help                           show this help
	//
	// Options (a flag overrides its environment variable, which overrides the default):
	//   -addr string
	//     	address to listen on ($HELLO_ADDR, default ":8080")
	//   -greeting string
	//     	the first word of every greeting ($HELLO_GREETING, default "Hello")
}
