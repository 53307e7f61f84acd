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
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/vane-http/vane"
)

func main() {
	addr := flag.String("addr", ":8080", "address to listen on")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: petstore [-addr host:port]\n       petstore openapi [yaml|json]  (write the OpenAPI document to standard output)\n")
		flag.PrintDefaults()
	}
	flag.Parse()

	token := os.Getenv("PETSTORE_TOKEN")
	if token == "" {
		token = randomToken()
	}
	r := newRouter(NewStore(), map[string]string{token: "demo"})

	if flag.Arg(0) == "openapi" {
		if err := writeOpenAPI(os.Stdout, r, flag.Arg(1)); err != nil {
			fmt.Fprintln(os.Stderr, "petstore:", err)
			os.Exit(1)
		}
		return
	}

	srv := &vane.Server{
		Addr:    *addr,
		Handler: r,
		OnListen: func(a net.Addr) {
			base := "http://" + browsable(a)
			fmt.Printf("pet store: %s/pets\ndocs page: %s/docs\nOpenAPI:   %s/openapi.yaml\ntoken:     %s (for POST, PUT, DELETE and /me)\n",
				base, base, base, token)
		},
	}
	// Serve stops on Ctrl-C or SIGTERM, after the requests in flight.
	if err := srv.ListenAndServe(context.Background()); err != nil {
		slog.Error("petstore", "error", err)
		os.Exit(1)
	}
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
