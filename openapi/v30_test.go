package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// translate30 translates a 3.1 document given as the JSON of its fields
// after "openapi" and returns the 3.0 document, decoded.
func translate30(t *testing.T, fields string) map[string]any {
	t.Helper()
	in := `{"openapi":"3.1.0","info":{"title":"T","version":"1"}` + fields + `}`
	out, err := Translate30([]byte(in))
	if err != nil {
		t.Fatalf("Translate30: %v\n%s", err, in)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if doc["openapi"] != Version30 {
		t.Errorf("openapi = %v, want %s", doc["openapi"], Version30)
	}
	return doc
}

// schemaOf translates one component schema and returns the result.
func schemaOf(t *testing.T, s string) any {
	t.Helper()
	doc := translate30(t, `,"paths":{},"components":{"schemas":{"S":`+s+`}}`)
	return doc["components"].(map[string]any)["schemas"].(map[string]any)["S"]
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON in the test: %v: %s", err, s)
	}
	return v
}

func TestTranslate30Schemas(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"nullable type", `{"type":["string","null"],"maxLength":3}`,
			`{"type":"string","nullable":true,"maxLength":3}`},
		{"type array of one", `{"type":["integer"]}`, `{"type":"integer"}`},
		{"null alone", `{"type":"null"}`, `{"nullable":true,"enum":[null]}`},
		{"several types", `{"type":["string","integer"],"minimum":1}`,
			`{"anyOf":[{"type":"string"},{"type":"integer"}],"minimum":1}`},
		{"several types and null", `{"type":["array","number","null"],"items":{"type":"string"}}`,
			`{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"number"}],"nullable":true}`},
		{"nullable reference", `{"description":"d","anyOf":[{"$ref":"#/components/schemas/P"},{"type":"null"}]}`,
			`{"description":"d","allOf":[{"$ref":"#/components/schemas/P"}],"nullable":true}`},
		{"nullable oneOf of two", `{"oneOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]}`,
			`{"oneOf":[{"type":"string"},{"type":"integer"}],"nullable":true}`},
		{"anyOf without null is kept", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`,
			`{"anyOf":[{"type":"string"},{"type":"integer"}]}`},
		{"const", `{"type":"string","const":"circle"}`, `{"type":"string","enum":["circle"]}`},
		{"const null", `{"const":null}`, `{"enum":[null],"nullable":true}`},
		{"enum with null", `{"type":["string","null"],"enum":["a",null]}`,
			`{"type":"string","nullable":true,"enum":["a",null]}`},
		{"examples", `{"type":"integer","examples":[3,4]}`, `{"type":"integer","example":3}`},
		{"exclusive minimum", `{"type":"number","exclusiveMinimum":0}`,
			`{"type":"number","minimum":0,"exclusiveMinimum":true}`},
		{"exclusive maximum", `{"type":"number","exclusiveMaximum":1.5}`,
			`{"type":"number","maximum":1.5,"exclusiveMaximum":true}`},
		{"exclusive bound stricter than inclusive", `{"minimum":1,"exclusiveMinimum":2,"maximum":9,"exclusiveMaximum":8}`,
			`{"minimum":2,"exclusiveMinimum":true,"maximum":8,"exclusiveMaximum":true}`},
		{"inclusive bound stricter than exclusive", `{"minimum":3,"exclusiveMinimum":2,"maximum":7,"exclusiveMaximum":8}`,
			`{"minimum":3,"maximum":7}`},
		{"equal bounds: exclusive wins", `{"minimum":2,"exclusiveMinimum":2}`,
			`{"minimum":2,"exclusiveMinimum":true}`},
		{"base64", `{"type":"string","contentEncoding":"base64"}`,
			`{"type":"string","format":"byte"}`},
		{"binary", `{"type":"string","contentMediaType":"image/*"}`,
			`{"type":"string","format":"binary","x-jsonschema-contentMediaType":"image/*"}`},
		{"file part without a type", `{"contentMediaType":"application/octet-stream","description":"a file"}`,
			`{"type":"string","format":"binary","description":"a file","x-jsonschema-contentMediaType":"application/octet-stream"}`},
		{"format kept", `{"type":"string","format":"uuid","contentMediaType":"text/plain"}`,
			`{"type":"string","format":"uuid","x-jsonschema-contentMediaType":"text/plain"}`},
		{"reference with siblings", `{"$ref":"#/components/schemas/P","description":"the parent","readOnly":true}`,
			`{"description":"the parent","readOnly":true,"allOf":[{"$ref":"#/components/schemas/P"}]}`},
		{"reference alone", `{"$ref":"#/components/schemas/P"}`, `{"$ref":"#/components/schemas/P"}`},
		{"array without items", `{"type":"array","maxItems":2}`, `{"type":"array","items":{},"maxItems":2}`},
		{"boolean schemas", `{"type":"object","properties":{"any":true,"none":false},"additionalProperties":false}`,
			`{"type":"object","properties":{"any":{},"none":{"not":{}}},"additionalProperties":false}`},
		{"keywords 3.0 lacks", `{"type":"object","dependentRequired":{"a":["b"]},"patternProperties":{"^x":{"type":"string"}},"propertyNames":{"maxLength":3},"$comment":"c","$schema":"s"}`,
			`{"type":"object","x-jsonschema-dependentRequired":{"a":["b"]},"x-jsonschema-patternProperties":{"^x":{"type":"string"}},"x-jsonschema-propertyNames":{"maxLength":3}}`},
		{"kept as they are", `{"type":"object","not":{"required":["a"]},"discriminator":{"propertyName":"kind"},"deprecated":true,"x-go-type":"T","default":{"const":1}}`,
			`{"type":"object","not":{"required":["a"]},"discriminator":{"propertyName":"kind"},"deprecated":true,"x-go-type":"T","default":{"const":1}}`},
		{"properties named like keywords", `{"type":"object","properties":{"const":{"type":["string","null"]},"examples":{"const":1}}}`,
			`{"type":"object","properties":{"const":{"type":"string","nullable":true},"examples":{"enum":[1]}}}`},
		{"nested", `{"type":"array","items":{"type":"object","properties":{"n":{"type":["integer","null"],"exclusiveMinimum":0}},"additionalProperties":{"const":"x"}}}`,
			`{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer","nullable":true,"minimum":0,"exclusiveMinimum":true}},"additionalProperties":{"enum":["x"]}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := schemaOf(t, tc.in)
			if want := decode(t, tc.want); !reflect.DeepEqual(got, want) {
				g, _ := json.Marshal(got)
				t.Errorf("translated\n  %s\nto\n  %s\nwant\n  %s", tc.in, g, tc.want)
			}
		})
	}
}

func TestTranslate30Defs(t *testing.T) {
	doc := translate30(t, `,"paths":{"/a":{"get":{"responses":{"200":{"description":"OK","content":{"application/json":{"schema":
		{"$defs":{"Leaf":{"type":"string"}},"type":"array","items":{"$ref":"#/paths/~1a/get/responses/200/content/application~1json/schema/$defs/Leaf"}}}}}}}}},
		"components":{"schemas":{"Tree":{"$defs":{"Node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/components/schemas/Tree/$defs/Node"}}}}},
		"$ref":"#/components/schemas/Tree/$defs/Node"},"Leaf":{"type":"integer"}}}`)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	want := decode(t, `{
		"Tree": {"$ref": "#/components/schemas/TreeNode"},
		"Leaf": {"type": "integer"},
		"TreeNode": {"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/components/schemas/TreeNode"}}}},
		"Leaf2": {"type": "string"}
	}`)
	if !reflect.DeepEqual(schemas, want) {
		g, _ := json.MarshalIndent(schemas, "", " ")
		t.Errorf("components/schemas:\n%s", g)
	}
	items := doc["paths"].(map[string]any)["/a"].(map[string]any)["get"].(map[string]any)["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
	if want := decode(t, `{"type":"array","items":{"$ref":"#/components/schemas/Leaf2"}}`); !reflect.DeepEqual(items, want) {
		t.Errorf("the operation's schema: %v", items)
	}
}

func TestTranslate30Document(t *testing.T) {
	doc := translate30(t, `,"jsonSchemaDialect":"https://spec.openapis.org/oas/3.1/dialect/base",
		"webhooks":{"ping":{"post":{"responses":{"200":{"description":"OK"}}}}},
		"security":[{"mtls":[]},{"mtls":[],"bearer":[]}],
		"components":{"securitySchemes":{"mtls":{"type":"mutualTLS"},"bearer":{"type":"http","scheme":"bearer"}},
			"pathItems":{"p":{}},
			"parameters":{"schema":{"name":"schema","in":"header","schema":{"type":["string","null"]}}},
			"responses":{"E":{"description":"e","headers":{"schema":{"schema":{"type":"string","const":"x"}}}}}}`)
	for _, gone := range []string{"jsonSchemaDialect", "webhooks"} {
		if _, ok := doc[gone]; ok {
			t.Errorf("%s kept", gone)
		}
	}
	if _, ok := doc["paths"]; !ok {
		t.Error("no paths (required in 3.0)")
	}
	c := doc["components"].(map[string]any)
	if _, ok := c["pathItems"]; ok {
		t.Error("components/pathItems kept")
	}
	if want := decode(t, `{"bearer":{"type":"http","scheme":"bearer"}}`); !reflect.DeepEqual(c["securitySchemes"], want) {
		t.Errorf("securitySchemes: %v", c["securitySchemes"])
	}
	if want := decode(t, `[{"bearer":[]}]`); !reflect.DeepEqual(doc["security"], want) {
		t.Errorf("security: %v (the mutualTLS requirement must go, and the scheme from the other)", doc["security"])
	}
	param := c["parameters"].(map[string]any)["schema"].(map[string]any)["schema"]
	if want := decode(t, `{"type":"string","nullable":true}`); !reflect.DeepEqual(param, want) {
		t.Errorf("parameter component named schema: %v", param)
	}
	header := c["responses"].(map[string]any)["E"].(map[string]any)["headers"].(map[string]any)["schema"]
	if want := decode(t, `{"schema":{"type":"string","enum":["x"]}}`); !reflect.DeepEqual(header, want) {
		t.Errorf("header named schema: %v", header)
	}

	info := translate30(t, `,"paths":{}`)["info"]
	if want := decode(t, `{"title":"T","version":"1"}`); !reflect.DeepEqual(info, want) {
		t.Errorf("info: %v", info)
	}
}

func TestTranslate30Info(t *testing.T) {
	out, err := Translate30([]byte(`{"openapi":"3.1.1","info":{"title":"T","summary":"Short.","version":"1",
		"license":{"name":"Apache 2.0","identifier":"Apache-2.0"}},"paths":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Info map[string]any }
	json.Unmarshal(out, &doc)
	want := decode(t, `{"title":"T","description":"Short.","version":"1",
		"license":{"name":"Apache 2.0","url":"https://spdx.org/licenses/Apache-2.0.html"}}`)
	if !reflect.DeepEqual(doc.Info, want) {
		t.Errorf("info: %v", doc.Info)
	}
}

// Link Objects are the same in 3.0, and a Link's requestBody is a value,
// never a schema to translate; an operation's requestBody is translated.
func TestTranslate30Links(t *testing.T) {
	doc := translate30(t, `,"paths":{"/a":{"post":{"requestBody":{"content":{"application/json":{"schema":{"type":["string","null"]}}}},
		"responses":{"201":{"description":"Created","links":{"next":{"operationId":"b","parameters":{"id":"$response.body#/id"},
		"requestBody":{"schema":{"type":["string","null"]},"examples":[1]}}}}}}}}`)
	post := doc["paths"].(map[string]any)["/a"].(map[string]any)["post"].(map[string]any)
	body := post["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
	if want := decode(t, `{"type":"string","nullable":true}`); !reflect.DeepEqual(body, want) {
		t.Errorf("the operation's request body schema: %v", body)
	}
	links := post["responses"].(map[string]any)["201"].(map[string]any)["links"]
	want := decode(t, `{"next":{"operationId":"b","parameters":{"id":"$response.body#/id"},
		"requestBody":{"schema":{"type":["string","null"]},"examples":[1]}}}`)
	if !reflect.DeepEqual(links, want) {
		t.Errorf("links: %v", links)
	}
}

func TestTranslate30ReferenceObjects(t *testing.T) {
	doc := translate30(t, `,"paths":{"/a":{"get":{"parameters":[{"$ref":"#/components/parameters/P","description":"d","summary":"s"}],
		"responses":{"404":{"$ref":"#/components/responses/E","description":"other"}}}}},
		"components":{"parameters":{"P":{"name":"p","in":"query","schema":{"type":"string"}}},"responses":{"E":{"description":"e"}}}`)
	get := doc["paths"].(map[string]any)["/a"].(map[string]any)["get"].(map[string]any)
	if want := decode(t, `[{"$ref":"#/components/parameters/P"}]`); !reflect.DeepEqual(get["parameters"], want) {
		t.Errorf("parameters: %v", get["parameters"])
	}
	if want := decode(t, `{"404":{"$ref":"#/components/responses/E"}}`); !reflect.DeepEqual(get["responses"], want) {
		t.Errorf("responses: %v", get["responses"])
	}
}

// The translation keeps the order of every object's keys, and the exact
// text of numbers.
func TestTranslate30KeepsOrder(t *testing.T) {
	out, err := Translate30([]byte(`{"openapi":"3.1.0","info":{"title":"T","version":"1"},"paths":{},
		"components":{"schemas":{"Z":{"type":"object","properties":{"zeta":{"type":"integer","maximum":1e3},"alpha":{"type":["string","null"]},"mid":{"type":"number","exclusiveMinimum":0.10}}},"A":{}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	compact := strings.Join(strings.Fields(string(out)), "")
	want := `"components":{"schemas":{"Z":{"type":"object","properties":{"zeta":{"type":"integer","maximum":1e3},` +
		`"alpha":{"type":"string","nullable":true},"mid":{"type":"number","minimum":0.10,"exclusiveMinimum":true}}},"A":{}}}`
	if !strings.Contains(compact, want) {
		t.Errorf("got\n%s\nwant it to contain\n%s", compact, want)
	}
	if !strings.HasPrefix(compact, `{"openapi":"3.0.3","info":`) {
		t.Errorf("document starts %.40s", compact)
	}
}

func TestTranslate30RefusesOtherVersions(t *testing.T) {
	for _, in := range []string{`{"openapi":"3.0.3","info":{}}`, `{"swagger":"2.0"}`, `[]`, `{"openapi":"3.1.0"} {}`, `{`} {
		if _, err := Translate30([]byte(in)); err == nil {
			t.Errorf("Translate30(%s) succeeded", in)
		}
	}
}
