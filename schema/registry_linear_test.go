package schema

import (
	"maps"
	"net/http"
	"reflect"
	"testing"
)

// triple is a generic struct: its instantiations are distinct named types
// with distinct names ("tripleIntStringBool"), enough of them to measure
// how the registry's naming grows.
type triple[A, B, C any] struct {
	A A `json:"a"`
	B B `json:"b"`
	C C `json:"c"`
}

func addTriples[A, B any](r *Registry, t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[triple[A, B, int]](), reflect.TypeFor[triple[A, B, string]](),
		reflect.TypeFor[triple[A, B, bool]](), reflect.TypeFor[triple[A, B, float64]](),
		reflect.TypeFor[triple[A, B, int8]](), reflect.TypeFor[triple[A, B, int16]](),
		reflect.TypeFor[triple[A, B, int32]](), reflect.TypeFor[triple[A, B, uint]](),
		reflect.TypeFor[triple[A, B, uint8]](), reflect.TypeFor[triple[A, B, uint16]](),
	} {
		if _, err := r.Schema(typ); err != nil {
			t.Fatal(err)
		}
	}
}

func addTriplesOf[A any](r *Registry, t *testing.T) {
	addTriples[A, int](r, t)
	addTriples[A, string](r, t)
	addTriples[A, bool](r, t)
	addTriples[A, float64](r, t)
	addTriples[A, int8](r, t)
	addTriples[A, int16](r, t)
	addTriples[A, int32](r, t)
	addTriples[A, uint](r, t)
	addTriples[A, uint8](r, t)
	addTriples[A, uint16](r, t)
}

// registerTriples registers 1,000 distinct named struct types.
func registerTriples(r *Registry, t *testing.T) {
	addTriplesOf[int](r, t)
	addTriplesOf[string](r, t)
	addTriplesOf[bool](r, t)
	addTriplesOf[float64](r, t)
	addTriplesOf[int8](r, t)
	addTriplesOf[int16](r, t)
	addTriplesOf[int32](r, t)
	addTriplesOf[uint](r, t)
	addTriplesOf[uint8](r, t)
	addTriplesOf[uint16](r, t)
}

// Registering a type whose name clashes with no other renames nothing:
// 1,000 distinct types cost no renaming of the types before them, where
// naming every type on every registration made the registry quadratic in
// its types.
func TestDistinctTypesRenameNothing(t *testing.T) {
	r := NewRegistry("#/components/schemas/")
	registerTriples(r, t)
	if n := len(r.Names()); n != 1000 {
		t.Fatalf("%d names, want 1000", n)
	}
	if r.renamings != 0 {
		t.Errorf("registering 1,000 distinct types named every type %d times, want 0", r.renamings)
	}
}

// The names the registry gives without renaming are those that naming
// every type from the set of types gives: register types that clash and
// types that do not, in an order that mixes them, and compare with a
// renaming of everything at the end.
func TestNamesWithoutRenamingAreTheSetsNames(t *testing.T) {
	type holder struct {
		C Cookie `json:"c"`
	}
	type PageCookie2 struct{} // the name a clash's numbering would take
	r := NewRegistry("#/components/schemas/")
	for _, typ := range []reflect.Type{
		reflect.TypeFor[Page[Item]](), reflect.TypeFor[holder](), reflect.TypeFor[http.Cookie](),
		reflect.TypeFor[Page[Cookie]](), reflect.TypeFor[Page[http.Cookie]](), reflect.TypeFor[PageCookie2](),
		reflect.TypeFor[triple[int, int, int]](),
	} {
		if _, err := r.Schema(typ); err != nil {
			t.Fatal(err)
		}
	}
	registerTriples(r, t)
	before := maps.Clone(r.names)
	r.assign()
	if !maps.Equal(before, r.names) {
		for typ, name := range r.names {
			if before[typ] != name {
				t.Errorf("%v: named %q, renaming everything names it %q", typ, before[typ], name)
			}
		}
	}
	if r.Type("PageCookie2") != reflect.TypeFor[PageCookie2]() || r.Type("PageCookie3") != reflect.TypeFor[Page[http.Cookie]]() {
		t.Errorf("names: PageCookie2 is %v, PageCookie3 %v", r.Type("PageCookie2"), r.Type("PageCookie3"))
	}
}
