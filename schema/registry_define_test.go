package schema

import (
	"reflect"
	"testing"
)

// Define adds a component no Go type derives; a name that is taken is
// refused, and the component survives later registrations.
func TestDefine(t *testing.T) {
	r := NewRegistry("#/components/schemas/")
	type Pet struct {
		Name string `json:"name"`
	}
	if _, err := r.Schema(reflect.TypeOf(Pet{})); err != nil {
		t.Fatal(err)
	}
	ref, err := r.Define("stream.created", &Schema{Type: TypeObject})
	if err != nil || ref.Ref != "#/components/schemas/stream.created" {
		t.Fatalf("%v %v", ref, err)
	}
	if _, err := r.Define("Pet", &Schema{}); err == nil {
		t.Error("Define took the name of a registered type")
	}
	if _, err := r.Define("stream.created", &Schema{}); err == nil {
		t.Error("Define took a name twice")
	}
	type Other struct{ A int }
	if _, err := r.Schema(reflect.TypeOf(Other{})); err != nil {
		t.Fatal(err)
	}
	if r.Schemas()["stream.created"] == nil || r.Names()[len(r.Names())-1] != "stream.created" {
		t.Errorf("defined component lost: %v", r.Names())
	}
}
