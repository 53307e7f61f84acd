package vane

import (
	"context"
	"net/http"
	"testing"
)

// TestRegistryOnFirstUse: a router that only routes keeps no schema
// registry; the first typed operation makes it, with the router's
// unknown-member policy.
func TestRegistryOnFirstUse(t *testing.T) {
	r := New()
	r.HandleFunc(http.MethodGet, "/plain", func(w http.ResponseWriter, req *http.Request) {})
	if r.api.schemas != nil {
		t.Fatal("a router without typed operations made a schema registry")
	}
	type out struct{ Body struct{ N int } }
	Get(r, "/typed", func(ctx context.Context, _ *struct{}) (*out, error) { return &out{}, nil })
	if r.api.schemas == nil || r.Schemas() != r.api.schemas || r.Schemas().Closed() {
		t.Fatalf("after a typed operation: %p, closed %v", r.api.schemas, r.api.schemas != nil && r.api.schemas.Closed())
	}
	strict := New(UnknownProperties(RefuseUnknown))
	if !strict.Schemas().Closed() {
		t.Error("UnknownProperties(RefuseUnknown) given to New does not reach the registry made later")
	}
}
