// Command petstore is vane's example service: a small pet store API with
// typed, validated operations, an OpenAPI 3.1 document and an API reference
// page, served with graceful shutdown.
//
//	go run ./examples/petstore                  # serves on :8080, prints where the docs are
//	go run ./examples/petstore -addr :9000
//	go run ./examples/petstore openapi > openapi.yaml
//	go run ./examples/petstore openapi json > openapi.json
//
// Reading is open; writing needs the bearer token printed at start-up (set
// PETSTORE_TOKEN to choose it):
//
//	curl localhost:8080/pets?species=cat
//	curl -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
//		-d '{"name":"Nemo","species":"fish"}' localhost:8080/pets
//
// The pets start as those of pets.json, embedded in the binary; changes live
// in memory until the process ends.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/vane-http/vane"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "petstore:", err)
		os.Exit(1)
	}
}

// run is the whole command, apart from the process's exit: args are the
// command-line arguments, and out receives what it prints.
func run(ctx context.Context, args []string, out io.Writer) error {
	flags := flag.NewFlagSet("petstore", flag.ContinueOnError)
	addr := flags.String("addr", ":8080", "address to listen on")
	flags.Usage = func() {
		fmt.Fprintf(flags.Output(), "usage: petstore [-addr host:port]\n"+
			"       petstore openapi [yaml|json]   write the OpenAPI document to standard output\n")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}

	token := os.Getenv("PETSTORE_TOKEN")
	if token == "" {
		token = randomToken()
	}
	r := newRouter(NewStore(), map[string]string{token: "demo"})

	switch flags.Arg(0) {
	case "":
	case "openapi":
		return writeOpenAPI(out, r, flags.Arg(1))
	default:
		flags.Usage()
		return fmt.Errorf("unknown command %q", flags.Arg(0))
	}

	srv := &vane.Server{
		Addr:    *addr,
		Handler: r,
		OnListen: func(a net.Addr) {
			base := "http://" + browsable(a)
			fmt.Fprintf(out, "pet store: %s/pets\ndocs page: %s/docs\nOpenAPI:   %s/openapi.yaml\ntoken:     %s (for POST, PUT, DELETE and /me)\n",
				base, base, base, token)
		},
	}
	// ListenAndServe stops when ctx ends or on Ctrl-C or SIGTERM, after the
	// requests in flight.
	return srv.ListenAndServe(ctx)
}

// writeOpenAPI writes the service's OpenAPI document, as YAML or JSON.
func writeOpenAPI(w io.Writer, r *vane.Router, format string) error {
	doc, err := vane.OpenAPI(r, docsConfig().Config)
	if err != nil {
		return err
	}
	var out []byte
	switch format {
	case "", "yaml":
		out, err = doc.YAML()
	case "json":
		out, err = doc.JSON()
	default:
		return fmt.Errorf("unknown format %q (want yaml or json)", format)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// browsable turns a listener's address into one a browser can open:
// "[::]:8080" becomes "localhost:8080".
func browsable(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

func randomToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
