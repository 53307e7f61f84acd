package vane_test

import (
	"context"
	"log"
	"net/http"
	"time"

	"github.com/vane-http/vane"
)

// Serve runs until Ctrl-C or SIGTERM, then lets the requests in flight
// finish.
func ExampleServe() {
	r := vane.New()
	r.Get("/hello", func(w http.ResponseWriter, req *http.Request) { w.Write([]byte("hello\n")) })
	if err := vane.Serve(context.Background(), ":8080", r); err != nil {
		log.Fatal(err)
	}
}

// A Server sets limits other than the defaults; a negative value removes
// one.
func ExampleServer() {
	srv := &vane.Server{
		Addr:         ":8080",
		Handler:      http.NotFoundHandler(),
		WriteTimeout: 5 * time.Minute, // long downloads
		MaxBodyBytes: 100 << 20,       // uploads of up to 100 MiB
	}
	if err := srv.ListenAndServe(context.Background()); err != nil {
		log.Fatal(err)
	}
}
