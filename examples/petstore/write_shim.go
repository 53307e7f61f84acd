package main

// Stand-ins for vane.Conditional.Write and vane.Unavailable until they
// land in package vane; removed then.

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/problem"
)

func conditionalWrite(ctx context.Context, c *vane.Conditional,
	current func(context.Context) (vane.Version, error),
	write func(ctx context.Context, expected vane.Version) (bool, error)) error {
	for range 8 {
		v, err := current(ctx)
		if err != nil {
			return err
		}
		if err := c.Check(v); err != nil {
			return err
		}
		ok, err := write(ctx, v)
		if err != nil || ok {
			return err
		}
	}
	return vane.Error(http.StatusConflict, "the resource kept changing; try again")
}

func unavailableProblem(retryAfter time.Duration, msg string) *problem.Details {
	secs := max(1, int((retryAfter+time.Second-1)/time.Second))
	return vane.Error(http.StatusServiceUnavailable, msg).WithHeader("Retry-After", strconv.Itoa(secs))
}
