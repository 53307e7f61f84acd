package fast_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/fast"
	"github.com/vane-http/vane/middleware"
)

type greetIn struct {
	Name string `path:"name" maxLength:"20"`
}

type greetOut struct {
	Message string `json:"message"`
}

// A service opts in to the fast engine by serving its vane.Server with
// fast.ListenAndServe (here ServeListener, on a listener of its own)
// instead of srv.ListenAndServe: the same registration, the same limits,
// drain and shutdown. Routes says how each route is served: a typed
// operation behind vane's own middleware natively, anything behind plain
// net/http middleware through the adapter.
func Example() {
	r := vane.New()
	r.Use(middleware.RequestID)
	vane.Get(r, "/greet/{name}", func(ctx context.Context, in *greetIn) (*greetOut, error) {
		return &greetOut{Message: "Hello, " + in.Name + "!"}, nil
	})
	legacy := r.Group("/legacy", vane.Middleware(func(next http.Handler) http.Handler { return next }))
	vane.Get(legacy, "/greet/{name}", func(ctx context.Context, in *greetIn) (*greetOut, error) {
		return &greetOut{Message: "Hello, " + in.Name + "!"}, nil
	})
	for _, rt := range fast.Routes(r) {
		fmt.Println(rt.Method, rt.Pattern, "native:", rt.Native)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	srv := &vane.Server{Handler: r, NoSignals: true, Logger: slog.New(slog.DiscardHandler)}
	done := make(chan error, 1)
	go func() { done <- fast.ServeListener(ctx, srv, ln) }()

	res, err := http.Get("http://" + ln.Addr().String() + "/greet/gopher")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Println(res.StatusCode, string(body))

	stop()
	fmt.Println("stopped:", <-done)
	// Output:
	// GET /greet/{name} native: true
	// GET /legacy/greet/{name} native: false
	// 200 {"message":"Hello, gopher!"}
	// stopped: <nil>
}
