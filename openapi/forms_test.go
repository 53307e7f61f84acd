package openapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/openapi"
	"github.com/vane-http/vane/schema"
	"go.yaml.in/yaml/v3"
)

// parsed reads a JSON or YAML document into plain Go values, numbers as
// float64, so that two texts of one value compare equal.
func parsed(t *testing.T, name string, b []byte, isYAML bool) any {
	t.Helper()
	var v any
	if isYAML {
		if err := yaml.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: YAML does not parse: %v", name, err)
		}
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b = j
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: JSON does not parse: %v", name, err)
	}
	return v
}

// firstDifference returns where a and b first differ, or "".
func firstDifference(a, b any, at string) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %T against %T", at, a, b)
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if d := firstDifference(x[k], y[k], at+"/"+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %v against %v", at, a, b)
		}
		for i := range x {
			if d := firstDifference(x[i], y[i], fmt.Sprintf("%s/%d", at, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %#v against %#v", at, a, b)
	}
	return ""
}

func sameValue(t *testing.T, what string, got, want any) {
	t.Helper()
	if d := firstDifference(got, want, ""); d != "" {
		t.Errorf("%s differ at %s", what, d)
	}
}

// forms returns a document's four forms as the writer makes them.
func forms(t *testing.T, doc *openapi.Document) (j, y, j30, y30 []byte) {
	t.Helper()
	var err error
	if j, err = doc.JSON(); err != nil {
		t.Fatal(err)
	}
	if y, err = doc.YAML(); err != nil {
		t.Fatal(err)
	}
	if j30, err = doc.JSON30(); err != nil {
		t.Fatal(err)
	}
	if y30, err = doc.YAML30(); err != nil {
		t.Fatal(err)
	}
	return
}

// The writer's YAML and 3.0 forms of documents using what the golden ones
// do not (extensions everywhere, every schema keyword the translation
// rewrites, mutualTLS, webhooks, links, references with descriptions,
// strings YAML misreads, $defs) say what its JSON says: the YAML read back
// by go-yaml, and the 3.0 form translated while writing as Translate30
// translates the 3.1 JSON text.
func TestFormsAgree(t *testing.T) {
	docs := map[string]*openapi.Document{}
	for _, g := range goldens {
		r := vane.New()
		doc, err := vane.OpenAPI(r, g.build(r))
		if err != nil {
			t.Fatal(err)
		}
		docs[g.name] = doc
	}
	docs["edge"] = edgeDocument(t)
	docs["defs"] = defsDocument(t)
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			j, y, j30, y30 := forms(t, doc)
			tr, err := openapi.Translate30(j)
			if err != nil {
				t.Fatal(err)
			}
			sameValue(t, "YAML and JSON", parsed(t, "yaml", y, true), parsed(t, "json", j, false))
			sameValue(t, "JSON30 and Translate30 of the JSON", parsed(t, "3.0 json", j30, false), parsed(t, "translate30", tr, false))
			sameValue(t, "3.0 YAML and 3.0 JSON", parsed(t, "3.0 yaml", y30, true), parsed(t, "3.0 json", j30, false))
		})
	}
}

// Every schema the writer writes says what its MarshalJSON says: the
// schemas of the documents, marshalled alone, against the writer's
// components.
func TestWriterSchemasAreMarshalJSONs(t *testing.T) {
	for name, doc := range map[string]*openapi.Document{"edge": edgeDocument(t), "defs": defsDocument(t)} {
		j, err := doc.JSON()
		if err != nil {
			t.Fatal(err)
		}
		var written struct {
			Components struct {
				Schemas map[string]json.RawMessage
			}
		}
		if err := json.Unmarshal(j, &written); err != nil {
			t.Fatal(err)
		}
		for key, s := range doc.Components.Schemas {
			m, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			sameValue(t, name+" "+key, parsed(t, key, written.Components.Schemas[key], false), parsed(t, key, m, false))
		}
	}
}

// tricky are strings YAML reads as something else, or that need escapes.
var tricky = []string{
	"", " ", "true", "True", "false", "yes", "No", "on", "OFF", "y", "n", "null", "Null", "~", "1", "1.0", "-1e3", "0x1F", "0o17", ".inf", "-.Inf", ".NaN",
	"2026-01-01", "2001-12-14t21:59:43.10-05:00", "12:30", "1:20:30", "a: b", "a:b", "- x", "#comment", "a #b", "&anchor", "*alias", "!tag", "%", "@", "`",
	"{a}", "[a]", "'q'", "\"q\"", "multi\nline", "trailing\n", "two trailing\n\n", "\nleading newline", "  leading spaces\nx", "tab\tx", "\tleading tab\nx",
	"line with trailing space \nnext", "\n", "\n\n", "unicode é ☃ 𝄞", "x-ext", "#/components/schemas/Pet", "^[a-z]+$", "\\d+",
	"ends with colon:", "?", "? x", "|", ">", "=", "<<", "\r\n", "cr\rlf", "nul\x00", "bell\a", "del\x7f", "nel\u0085", "ls\u2028ps\u2029",
	"bom\ufeff", "bad utf-8 \xff\xfe", "ok\n  indented\n\tlines", "blank\n \nline", "a\n\n\nb", "3.1.0", "1.2", "1..2", "0.0.0.", "1_000",
	"<script>&amp;</script>", "a, b", "a - b", "a{b}", "a[b]", "a|b", "a > b", "a ? b", "a!b", "a\"b", "a'b", "a\\b", "a%b", "a@b", "a`b", "a*b", "a&b",
	"very " + string(bytes.Repeat([]byte("long "), 300)),
}

// edgeDocument is a document whose every part the translation or the YAML
// writer treats specially.
func edgeDocument(t *testing.T) *openapi.Document {
	t.Helper()
	r := vane.New()
	vane.Put(r, "/items/{id}", handler[KeywordsInput, KeywordsOutput], vane.ID("getItem"),
		vane.Description("Line one.\nLine two: with a colon.\n"), vane.Summary("A \"quoted\" # summary"),
		vane.Extension("x-list", []any{1, 2.5, "three", nil, true, map[string]any{"k": tricky}}))
	vane.Post(r, "/trees", handler[struct{ Body Tree }, Tree])
	f := 1.5
	lo, hi := 0.0, 10.0
	cfg := openapi.Config{
		Info: openapi.Info{Title: "Edge: \"cases\"", Version: "1.0", Summary: "Summary only",
			License: &openapi.License{Name: "Apache", Identifier: "Apache-2.0"}, Extensions: openapi.Extensions{"x-logo": map[string]any{"url": "/logo.png"}}},
		Servers: []*openapi.Server{{URL: "https://{region}.example.com", Variables: map[string]*openapi.ServerVariable{
			"region": {Enum: []string{"eu", "us"}, Default: "eu", Description: "Where."}}}},
		SecuritySchemes: map[string]*openapi.SecurityScheme{
			"mtls":   {Type: "mutualTLS", Description: "Client certificates."},
			"bearer": openapi.BearerAuth("JWT"),
			"key":    openapi.APIKeyAuth("header", "X-Key"),
		},
		Security: []openapi.SecurityRequirement{{"mtls": {}}, {"bearer": {}, "mtls": {}}, {"key": nil}, {}},
		Tags:     []*openapi.Tag{{Name: "items", Description: "Items.\nMany.", ExternalDocs: &openapi.ExternalDocs{URL: "https://example.com/items"}}},
		Edit: []func(*openapi.Document) error{func(d *openapi.Document) error {
			d.Webhooks = map[string]*openapi.PathItem{"created": {Post: &openapi.Operation{OperationID: "created",
				Responses: map[string]*openapi.Response{"200": {Description: "ok"}}}}}
			d.JSONSchemaDialect = openapi.Dialect
			item := d.Paths["/items/{id}"]
			item.Summary = "Items by id"
			item.Parameters = []*openapi.Parameter{{Name: "X-Trace", In: "header", Schema: &schema.Schema{Type: "string", Nullable: true}}}
			op := item.Put
			op.Security = []openapi.SecurityRequirement{{"mtls": {}}, {"key": {"read", "write"}}}
			op.ExternalDocs = &openapi.ExternalDocs{Description: "More", URL: "https://example.com"}
			for _, res := range op.Responses {
				if res.Ref == "" && res.Content != nil {
					res.Links = map[string]*openapi.Link{"self": {OperationID: "getItem", Parameters: map[string]any{"id": "$response.body#/id"},
						RequestBody: map[string]any{"schema": "not a schema", "enum": []any{1}}, Description: "Itself."}}
					res.Headers = map[string]*openapi.Header{"X-Rate": {Description: "Rate.", Required: true, Schema: &schema.Schema{Type: "integer", ExclusiveMinimum: &lo}}}
					for _, mt := range res.Content {
						mt.Example = map[string]any{"id": 1, "note": tricky}
					}
				}
			}
			d.Components.Responses["Described"] = &openapi.Response{Ref: "#/components/responses/Error", Description: "A reference with a description."}
			d.Components.Parameters = map[string]*openapi.Parameter{"limit": {Name: "limit", In: "query", Example: 5,
				Schema: &schema.Schema{Type: "integer", Minimum: &lo, ExclusiveMinimum: &f, Maximum: &hi, ExclusiveMaximum: &hi}}}
			d.Components.Headers = map[string]*openapi.Header{"X-Deprecated": {Deprecated: true, Schema: &schema.Schema{Type: "string", Const: "x"}}}
			d.Components.RequestBodies = map[string]*openapi.RequestBody{"upload": {Required: true, Content: map[string]*openapi.MediaType{
				"multipart/form-data": {Schema: &schema.Schema{Type: "object", Properties: map[string]*schema.Schema{
					"file":  {ContentMediaType: "image/png"},
					"data":  {Type: "string", ContentEncoding: "base64"},
					"other": {Type: "string", ContentEncoding: "quoted-printable", ContentMediaType: "text/plain"},
				}}, Encoding: map[string]*openapi.Encoding{"file": {ContentType: "image/png", Headers: map[string]*openapi.Header{
					"X-Part": {Schema: &schema.Schema{Type: "null"}}}}}}}}}
			d.Components.Schemas["Edge"] = &schema.Schema{
				Type: "object", Title: "Edge", Description: tricky[len(tricky)-1],
				Properties: map[string]*schema.Schema{
					"never":   {False: true},
					"union":   {Type: "string", Nullable: true, Enum: []any{"a", nil}},
					"ref":     {Ref: "#/components/schemas/Tree", Nullable: true, Description: "nullable ref", ReadOnly: true},
					"sibling": {Ref: "#/components/schemas/Tree", Description: "ref with siblings"},
					"const":   {Const: 0, Examples: []any{0, 1}},
					"strings": {Type: "array", Items: &schema.Schema{Type: "string", Enum: func() []any {
						a := make([]any, len(tricky))
						for i, s := range tricky {
							a[i] = s
						}
						return a
					}()}},
					"anyNull":  {AnyOf: []*schema.Schema{{Type: "string"}, {Type: "integer"}, {Type: "null"}}},
					"oneNull":  {OneOf: []*schema.Schema{{Ref: "#/components/schemas/Tree"}, {Type: "null"}}, AllOf: []*schema.Schema{{Description: "all"}}},
					"enumNull": {Enum: []any{nil}},
					"arr":      {Type: "array"},
					"dep":      {Type: "object", DependentRequired: map[string][]string{"a": {"b"}, "c": nil}},
					"disc":     {OneOf: []*schema.Schema{{Ref: "#/components/schemas/Tree"}}, Discriminator: &schema.Discriminator{PropertyName: "kind", Mapping: map[string]string{"tree": "#/components/schemas/Tree"}}},
					"ext": {Type: "object", Extensions: map[string]any{"x-kept": map[string]any{"type": "null"}, "prefixItems": []any{map[string]any{"type": "null"}},
						"$comment": "dropped", "nullable": true, "patternProperties": map[string]any{"^a": map[string]any{"type": []any{"string", "null"}}}}},
					"addl":  {Type: "object", AdditionalProperties: &schema.Schema{Type: "integer", Nullable: true}},
					"not":   {Not: &schema.Schema{Type: "null"}},
					"multi": {Type: "number", MultipleOf: &f, Minimum: &f, Default: 1e21, Examples: []any{1e-7, -0.0, 123456789.0}},
				},
				PropertyOrder: []string{"never"}, // not every property: key order
				Required:      []string{"union"},
			}
			d.Extensions = openapi.Extensions{"x-tricky": tricky}
			return nil
		}},
	}
	doc, err := vane.OpenAPI(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// defsDocument has schemas with $defs, which 3.0 moves to
// components/schemas.
func defsDocument(t *testing.T) *openapi.Document {
	t.Helper()
	r := vane.New()
	vane.Post(r, "/trees", handler[struct{ Body Tree }, Tree])
	doc, err := vane.OpenAPI(r, openapi.Config{Edit: []func(*openapi.Document) error{func(d *openapi.Document) error {
		d.Components.Schemas["Forest"] = &schema.Schema{
			Type:       "array",
			Items:      &schema.Schema{Ref: "#/components/schemas/Forest/$defs/Node"},
			Extensions: map[string]any{"$defs": map[string]any{"Node": map[string]any{"type": []any{"object", "null"}, "const": 1}}},
		}
		return nil
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
