package vane

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane/middleware"
)

// Answers of middleware in front of typed operations are documented by
// their status: those vane's middleware declares (Timeout's 503) and those
// a group declares for its own (a token check's 401 with its header), on
// the operations registered behind them, and on no others.
func TestGroupProblems(t *testing.T) {
	r := New()
	Get(r, "/open", func(ctx context.Context, _ *struct{}) (*groupItem, error) { return &groupItem{}, nil })
	api := r.Group("/api", Middleware(middleware.Timeout(time.Second)))
	auth := api.Group("", Problems(ProblemType{Status: 401, Description: "No valid token.", Headers: map[string]string{"WWW-Authenticate": "How to log in."}}))
	Get(auth, "/me", func(ctx context.Context, _ *struct{}) (*groupItem, error) { return &groupItem{}, nil })
	Get(api, "/items", func(ctx context.Context, _ *struct{}) (*groupItem, error) { return &groupItem{}, nil })
	busy := r.Group("/busy")
	busy.Use(middleware.Throttle(1, 0, 0))
	Get(busy, "/x", func(ctx context.Context, _ *struct{}) (*groupItem, error) { return &groupItem{}, nil })

	want := map[string]string{
		"/open":      "200 406 500",
		"/api/me":    "200 401:WWW-Authenticate 406 500 503:Retry-After",
		"/api/items": "200 406 500 503:Retry-After",
		"/busy/x":    "200 406 500 503:Retry-After",
	}
	for _, d := range r.Operations() {
		var got []string
		for _, resp := range d.Responses {
			s := strconv.Itoa(resp.Status)
			for _, h := range resp.Headers {
				s += ":" + h.Name
			}
			got = append(got, s)
		}
		if g := strings.Join(got, " "); g != want[d.Pattern] {
			t.Errorf("%s documents %s, want %s", d.Pattern, g, want[d.Pattern])
		}
	}
}

type groupItem struct {
	Name string `json:"name"`
}
