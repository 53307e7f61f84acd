package vane_test

import (
	"context"
	"database/sql"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/vane-http/vane"
)

// Serve runs until Ctrl-C or SIGTERM, then lets the requests in flight
// finish.
func ExampleServe() {
	r := vane.New()
	r.HandleFunc(http.MethodGet, "/hello", func(w http.ResponseWriter, req *http.Request) { w.Write([]byte("hello\n")) })
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

// Behind a load balancer (a Kubernetes Service), a server fails readiness
// as soon as it is told to stop, goes on serving for DrainDelay while the
// balancer takes it out, then closes its listener and finishes the
// requests in flight.
func ExampleServer_ReadinessHandler() {
	db, _ := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	srv := &vane.Server{
		Addr:            ":8080",
		DrainDelay:      10 * time.Second,
		ShutdownTimeout: 20 * time.Second, // terminationGracePeriodSeconds: 40
	}
	r := vane.New()
	r.HandleFunc(http.MethodGet, "/healthz", func(w http.ResponseWriter, req *http.Request) { io.WriteString(w, "ok\n") })
	r.Handle("GET", "/readyz", srv.ReadinessHandler(vane.ReadinessCheck{Name: "database", Check: db.PingContext}))
	srv.Handler = r
	if err := srv.ListenAndServe(context.Background()); err != nil {
		log.Fatal(err)
	}
}
