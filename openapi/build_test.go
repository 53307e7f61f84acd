package openapi

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vane-http/vane/internal/oasvalidate"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/schema"
)

type buildPet struct {
	ID   int64  `json:"id" readOnly:"true"`
	Name string `json:"name" minLength:"1"`
}

// handDescriptions builds descriptions as vane.Register would, without the
// root package, for the builder's own unit tests.
func handDescriptions(t *testing.T) []*operation.Description {
	t.Helper()
	reg := schema.NewRegistry(SchemaPrefix)
	pet, err := reg.Schema(reflect.TypeFor[buildPet]())
	if err != nil {
		t.Fatal(err)
	}
	return []*operation.Description{
		{
			Method: "GET", Pattern: "/pets/{id}", ID: "getPet", Tags: []string{"pets"}, Status: 200,
			Parameters: []operation.Parameter{{Name: "id", In: operation.InPath, Schema: &schema.Schema{Type: "integer"}, Field: "ID"}},
			Responses:  []operation.Response{{Status: 200, Content: []operation.Content{{MediaType: "application/json", Schema: pet}}}, {Status: 404, Description: "No such pet"}},
			Schemas:    reg,
		},
		{
			Method: "POST", Pattern: "/pets", Tags: []string{"pets"}, Status: 201,
			Security:    []map[string][]string{{"bearer": {}}},
			RequestBody: &operation.RequestBody{Required: true, Content: []operation.Content{{MediaType: "application/json", Schema: pet}}},
			Responses:   []operation.Response{{Status: 201, Content: []operation.Content{{MediaType: "application/json", Schema: pet}}}},
			Schemas:     reg,
		},
		{Method: "GET", Pattern: "/files/{path...}", ID: "getFile", Schemas: reg,
			Parameters: []operation.Parameter{{Name: "path", In: operation.InPath, Schema: &schema.Schema{Type: "string"}}}},
		{Method: "GET", Pattern: "/internal", Hidden: true, Schemas: reg},
	}
}

func TestBuild(t *testing.T) {
	doc, err := Build(Config{
		Info:            Info{Title: "Pets", Version: "1.0.0"},
		SecuritySchemes: map[string]*SecurityScheme{"bearer": BearerAuth("JWT")},
		Tags:            []*Tag{{Name: "admin", Description: "listed first"}},
	}, handDescriptions(t))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Paths["/internal"] != nil {
		t.Error("a hidden operation is documented")
	}
	get := doc.Paths["/pets/{id}"].Get
	if get == nil || get.OperationID != "getPet" || !get.Parameters[0].Required {
		t.Fatalf("GET /pets/{id}: %+v", get)
	}
	if r := get.Responses["404"]; r.Description != "No such pet" || r.Content["application/problem+json"].Schema.Ref != SchemaPrefix+"Problem" {
		t.Errorf("documented 404 lacks the problem schema: %+v", r)
	}
	// GET documents an error, so Build adds only the default.
	if get.Responses["default"].Ref != "#/components/responses/Error" || get.Responses["422"] != nil {
		t.Errorf("error responses of GET: %v", keys(get.Responses))
	}
	post := doc.Paths["/pets"].Post
	// POST documents none: Build adds those vane may return.
	if post.OperationID != "post-pets" || post.Responses["415"].Ref != "#/components/responses/UnsupportedMediaType" ||
		post.Responses["422"].Ref != "#/components/responses/ValidationFailed" || len(post.Security) != 1 {
		t.Errorf("POST /pets: id %q, responses %v, security %v", post.OperationID, keys(post.Responses), post.Security)
	}
	file := doc.Paths["/files/{path}"]
	if file == nil || file.Get.Parameters[0].Extensions["x-vane-catch-all"] != true {
		t.Errorf("catch-all: %+v", file)
	}
	if got := [2]string{doc.Tags[0].Name, doc.Tags[1].Name}; got != [2]string{"admin", "pets"} {
		t.Errorf("tags %v", got)
	}
	for _, name := range []string{"buildPet", "Problem", "ProblemFieldError"} {
		if doc.Components.Schemas[name] == nil {
			t.Errorf("components/schemas lacks %s: %v", name, keys(doc.Components.Schemas))
		}
	}
	if _, err := doc.YAML(); err != nil {
		t.Fatal(err)
	}
}

func TestBuildErrors(t *testing.T) {
	ops := handDescriptions(t)
	for name, c := range map[string]struct {
		cfg  Config
		ops  []*operation.Description
		want string
	}{
		"undefined scheme": {Config{}, ops, `security scheme "bearer" is not defined`},
		"duplicate id": {Config{SecuritySchemes: map[string]*SecurityScheme{"bearer": BasicAuth()}},
			append(ops, &operation.Description{Method: "DELETE", Pattern: "/pets/{id}", ID: "getPet"}), `"getPet" is used by both GET /pets/{id} and DELETE /pets/{id}`},
		"param not in path": {Config{}, []*operation.Description{{Method: "GET", Pattern: "/a",
			Parameters: []operation.Parameter{{Name: "id", In: "path", Field: "ID"}}}}, `path parameter "id" (field ID) is not in the pattern`},
		"names differ": {Config{}, []*operation.Description{{Method: "GET", Pattern: "/a/{x}"}, {Method: "POST", Pattern: "/a/{y}"}},
			"GET /a/{x} and POST /a/{y} are the same OpenAPI path (/a/{})"},
		"catch-all": {Config{}, []*operation.Description{{Method: "GET", Pattern: "/f/{p}", ID: "one"}, {Method: "GET", Pattern: "/f/{p...}", ID: "two"}},
			"GET /f/{p} and GET /f/{p...} are the same OpenAPI operation"},
		"hook": {Config{Edit: []func(*Document) error{func(d *Document) error { return errTest }}}, nil, "edit hook: test"},
	} {
		if _, err := Build(c.cfg, c.ops); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}

type testError string

func (e testError) Error() string { return string(e) }

const errTest = testError("test")

func TestBuildHooksEditTheDocument(t *testing.T) {
	doc, err := Build(Config{Edit: []func(*Document) error{
		func(d *Document) error {
			d.Servers = append(d.Servers, &Server{URL: "https://api.example.com"})
			d.Extensions = Extensions{"x-logo": map[string]any{"url": "logo.png"}}
			return nil
		},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := doc.JSON()
	for _, want := range []string{`"url": "https://api.example.com"`, `"x-logo": {`, `"title": "API"`, `"version": "0.0.0"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("document lacks %s:\n%s", want, b)
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestBuildPassesIndependentValidator(t *testing.T) {
	doc, err := Build(Config{
		Info:            Info{Title: "Pets", Version: "1.0.0"},
		SecuritySchemes: map[string]*SecurityScheme{"bearer": BearerAuth("JWT")},
	}, handDescriptions(t))
	if err != nil {
		t.Fatal(err)
	}
	j, _ := doc.JSON()
	y, _ := doc.YAML()
	oasvalidate.Validate(t, map[string][]byte{"hand.json": j, "hand.yaml": y})
}

type secretConfig struct {
	Key string `json:"key"`
}

func TestBuildLeavesOutTypesOfHiddenOperations(t *testing.T) {
	ops := handDescriptions(t)
	reg := ops[0].Schemas
	secret, err := reg.Schema(reflect.TypeFor[secretConfig]())
	if err != nil {
		t.Fatal(err)
	}
	ops = append(ops, &operation.Description{Method: "GET", Pattern: "/admin/config", Hidden: true, Schemas: reg,
		Responses: []operation.Response{{Status: 200, Content: []operation.Content{{MediaType: "application/json", Schema: secret}}}}})
	doc, err := Build(Config{SecuritySchemes: map[string]*SecurityScheme{"bearer": BearerAuth("")}}, ops)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Components.Schemas["secretConfig"]; ok {
		t.Error("the schema of a hidden operation's output is in components/schemas")
	}
	if _, ok := doc.Components.Schemas["buildPet"]; !ok {
		t.Error("a used schema is missing")
	}
}

// A component is in the document when anything refers to it: a schema, or
// a "$ref" member inside a value (an extension, an example), and what it
// refers to in turn; a $ref to a component no registry has is an error.
func TestBuildFindsReferencesEverywhere(t *testing.T) {
	type leaf struct {
		N int `json:"n"`
	}
	type viaExtension struct {
		Leaf leaf `json:"leaf"`
	}
	type unused struct{}
	reg := schema.NewRegistry(SchemaPrefix)
	for _, typ := range []reflect.Type{reflect.TypeFor[viaExtension](), reflect.TypeFor[unused]()} {
		if _, err := reg.Schema(typ); err != nil {
			t.Fatal(err)
		}
	}
	desc := func(ext map[string]any) []*operation.Description {
		return []*operation.Description{{Method: "GET", Pattern: "/a", ID: "a", Schemas: reg, Extensions: ext,
			Responses: []operation.Response{{Status: 200, Description: "OK"}}}}
	}
	doc, err := Build(Config{NoErrorResponses: true}, desc(map[string]any{
		"x-see": map[string]any{"schema": map[string]any{"$ref": SchemaPrefix + "viaExtension"}}}))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sortedKeys(doc.Components.Schemas), " "); got != "leaf viaExtension" {
		t.Errorf("components %q, want the extension's schema and the one it refers to", got)
	}
	if _, err := Build(Config{NoErrorResponses: true}, desc(map[string]any{"x-see": []any{map[string]any{"$ref": SchemaPrefix + "nowhere"}}})); err == nil ||
		!strings.Contains(err.Error(), `unknown schema "nowhere"`) {
		t.Errorf("a $ref to no component: %v", err)
	}
}
