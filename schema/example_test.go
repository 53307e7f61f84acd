package schema_test

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/vane-http/vane/schema"
)

type Pet struct {
	Name  string   `json:"name" minLength:"1" doc:"what it answers to"`
	Kind  string   `json:"kind" enum:"cat,dog" default:"cat"`
	Owner *Person  `json:"owner,omitempty" nullable:"true"`
	Tags  []string `json:"tags,omitempty" maxItems:"3"`
}

type Person struct {
	Name string `json:"name"`
	Pets []Pet  `json:"pets,omitempty"`
}

func ExampleRegistry() {
	r := schema.NewRegistry("#/components/schemas/")
	s, _ := r.Schema(reflect.TypeFor[[]Pet]())
	out, _ := json.Marshal(s)
	fmt.Println(string(out))
	for _, name := range r.Names() {
		out, _ := json.Marshal(r.Schemas()[name])
		fmt.Println(name, string(out))
	}
	// Output:
	// {"type":"array","items":{"$ref":"#/components/schemas/Pet"}}
	// Pet {"type":"object","properties":{"name":{"type":"string","description":"what it answers to","minLength":1},"kind":{"type":"string","enum":["cat","dog"],"default":"cat"},"owner":{"anyOf":[{"$ref":"#/components/schemas/Person"},{"type":"null"}]},"tags":{"type":"array","items":{"type":"string"},"maxItems":3}},"required":["name"]}
	// Person {"type":"object","properties":{"name":{"type":"string"},"pets":{"type":"array","items":{"$ref":"#/components/schemas/Pet"}}},"required":["name"]}
}
