// Command serve runs one implementation of the end-to-end service on a
// loopback address until it receives SIGINT or SIGTERM:
//
//	serve -impl gin -addr 127.0.0.1:18080
//
// Every implementation answers GET /items/{id}?verbose=true, with an
// Authorization header required, by the same JSON (e2e.NewItem), in its
// framework's idiom.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"
)

// impls build each implementation's handler; fiber runs its own server.
var impls = map[string]func() http.Handler{}

func main() {
	impl := flag.String("impl", "", "implementation: "+strings.Join(names(), ", "))
	addr := flag.String("addr", "127.0.0.1:18080", "loopback address to listen on")
	flag.Parse()
	if !strings.HasPrefix(*addr, "127.0.0.1:") && !strings.HasPrefix(*addr, "localhost:") {
		log.Fatal("serve listens on loopback only")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if *impl == "fiber" {
		if err := serveFiber(ctx, *addr); err != nil {
			log.Fatal(err)
		}
		return
	}
	mk, ok := impls[*impl]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown -impl %q; one of: %s\n", *impl, strings.Join(names(), ", "))
		os.Exit(2)
	}
	srv := &http.Server{Addr: *addr, Handler: mk(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}

func names() []string {
	ns := []string{"fiber"}
	for n := range impls {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}
