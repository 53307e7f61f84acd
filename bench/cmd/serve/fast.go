package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humafiber"
	fiberv2 "github.com/gofiber/fiber/v2"
	"github.com/vane-http/vane"
	"github.com/vane-http/vane/bench/e2e"
	"github.com/vane-http/vane/fast"
)

func init() {
	ownServers["vane-fast"] = serveVaneFast
	ownServers["humafiber"] = serveHumaFiber
}

// serveVaneFast serves the same typed service as "vane" (vaneTyped) on
// vane's fast engine, with vane.Server's defaults, as a user opts in:
// fast.ListenAndServe instead of srv.ListenAndServe. Strict: the
// operation is served natively, or the server does not start.
func serveVaneFast(ctx context.Context, addr string) error {
	srv := &vane.Server{
		Addr:      addr,
		Handler:   vaneTyped(),
		NoSignals: true, // main's context carries SIGINT and SIGTERM
		Logger:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	return fast.ListenAndServe(ctx, srv, fast.Strict())
}

// serveHumaFiber is Huma on its fiber adapter (humafiber, which Huma
// v2 builds on fiber v2), on fiber's own (fasthttp) server: the same
// operation as "huma".
func serveHumaFiber(ctx context.Context, addr string) error {
	app := fiberv2.New(fiberv2.Config{DisableStartupMessage: true})
	config := huma.DefaultConfig("bench", "1.0.0")
	config.CreateHooks = nil
	api := humafiber.New(app, config)
	huma.Get(api, "/items/{id}", func(ctx context.Context, in *humaItemIn) (*humaItemOut, error) {
		return &humaItemOut{Body: e2e.NewItem(in.ID, in.Verbose)}, nil
	})
	go func() {
		<-ctx.Done()
		app.ShutdownWithTimeout(5 * time.Second)
	}()
	err := app.Listen(addr)
	if err == http.ErrServerClosed {
		return nil
	}
	return err
}
