// Command serve runs one implementation of the end-to-end service on a
// loopback address until it receives SIGINT or SIGTERM:
//
//	serve -impl gin -addr 127.0.0.1:18080
//	serve -impl vane -cpuprofile vane.prof   # a CPU profile of the whole run, written at exit
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
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"
)

// impls build each implementation's handler; ownServers run their own
// server: fiber, and the vane-fasthttp prototype (docs/design/e2e-profile.md).
var (
	impls      = map[string]func() http.Handler{}
	ownServers = map[string]func(context.Context, string) error{"fiber": serveFiber, "vane-fasthttp": serveVaneFastHTTP}
)

func main() {
	impl := flag.String("impl", "", "implementation: "+strings.Join(names(), ", "))
	addr := flag.String("addr", "127.0.0.1:18080", "loopback address to listen on")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file at exit (docs/design/e2e-profile.md)")
	flag.Parse()
	if !strings.HasPrefix(*addr, "127.0.0.1:") && !strings.HasPrefix(*addr, "localhost:") {
		log.Fatal("serve listens on loopback only")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	if serve, ok := ownServers[*impl]; ok {
		if err := serve(ctx, *addr); err != nil {
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
	var ns []string
	for n := range ownServers {
		ns = append(ns, n)
	}
	for n := range impls {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}
