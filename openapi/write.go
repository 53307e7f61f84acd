package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vane-http/vane/schema"
)

// The document writer: it walks a Document's Go values once and calls a
// sink (sink.go) with the JSON value they make, as encoding/json would
// marshal them (the same fields, omissions and key order; maps in key
// order), in OpenAPI 3.1 or, translated as it goes, in 3.0.3. Each form is
// made from the Document, never from another form's text: JSON by
// jsonWriter, YAML by yamlWriter.
//
// The 3.0 translation of everything but schemas is done here, field by
// field; each schema is written to a small tree and translated there
// (translate30.go), since what its 3.0 form holds depends on what its
// branches became. A document whose schemas hold $defs, which move to
// components/schemas with every $ref to them, is translated whole as a
// tree.

// maxSchemaDepth bounds how deep schemas nest (a Go value that refers to
// itself has no end), as encoding/json bounds it.
const maxSchemaDepth = 1000

var errSchemaCycle = errors.New("openapi: schemas nest deeper than 1000 levels (a schema that contains itself?)")

// writeDocument writes d to s, in OpenAPI 3.0.3 when v30 is set; defs
// says whether a schema of d holds $defs (hasDefs), which only 3.0 minds.
func writeDocument(s sink, d *Document, v30, defs bool) error {
	if v30 && defs {
		var t treeSink
		if err := writeDocument(&t, d, false, false); err != nil {
			return err
		}
		if err := translateTree(t.root); err != nil {
			return err
		}
		emitNode(s, t.root)
		return nil
	}
	w := &writer{s: s, v30: v30}
	if v30 {
		w.tr = &translator{}
		w.dropped = mutualTLS(d)
	}
	w.document(d)
	return w.err
}

type writer struct {
	s     sink
	v30   bool
	err   error
	depth int // schemas open
	// tr translates schemas to 3.0; dropped are the mutualTLS schemes,
	// which 3.0 lacks, left out with the requirements that name them.
	tr      *translator
	dropped map[string]bool
}

func (w *writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

func (w *writer) key(k string) { w.s.key(k) }

// field writes key: value when value is not empty (omitempty).
func (w *writer) field(key, value string) {
	if value != "" {
		w.s.key(key)
		w.s.str(value)
	}
}

func (w *writer) flag(key string, value bool) {
	if value {
		w.s.key(key)
		w.s.boolean(true)
	}
}

func (w *writer) strings(list []string) {
	if list == nil {
		w.s.null()
		return
	}
	w.s.beginArray()
	for _, v := range list {
		w.s.str(v)
	}
	w.s.endArray()
}

func (w *writer) int(v int) { w.s.number(strconv.Itoa(v)) }

func (w *writer) float(v float64) {
	var buf [32]byte
	b, err := appendFloat(buf[:0], v)
	if err != nil {
		w.fail(err)
		w.s.number("0")
		return
	}
	w.s.number(string(b))
}

// value writes a Go value as encoding/json marshals it: the common kinds
// directly, others through json.Marshal.
func (w *writer) value(v any) {
	s := w.s
	switch x := v.(type) {
	case nil:
		s.null()
	case string:
		s.str(x)
	case bool:
		s.boolean(x)
	case int:
		s.number(strconv.Itoa(x))
	case int64:
		s.number(strconv.FormatInt(x, 10))
	case int32:
		s.number(strconv.FormatInt(int64(x), 10))
	case uint64:
		s.number(strconv.FormatUint(x, 10))
	case float64:
		w.float(x)
	case []any:
		if x == nil {
			s.null()
			return
		}
		s.beginArray()
		for _, e := range x {
			w.value(e)
		}
		s.endArray()
	case []string:
		w.strings(x)
	case map[string]any:
		if x == nil {
			s.null()
			return
		}
		s.beginObject()
		for _, k := range sortedKeys(x) {
			s.key(k)
			w.value(x[k])
		}
		s.endObject()
	default:
		b, err := json.Marshal(v)
		if err != nil {
			w.fail(err)
			s.null()
			return
		}
		s.rawJSON(b)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// extensions writes an object's x- fields, in key order.
func (w *writer) extensions(ext Extensions) {
	if len(ext) == 0 {
		return
	}
	keys := sortedKeys(ext)
	for _, k := range keys {
		if !strings.HasPrefix(k, "x-") {
			w.fail(fmt.Errorf("openapi: extension %q does not start with \"x-\"", k))
			return
		}
	}
	for _, k := range keys {
		w.s.key(k)
		w.value(ext[k])
	}
}

// writeMap writes a map of OpenAPI objects in key order, each by write (nil
// ones as null).
func writeMap[V any](w *writer, m map[string]*V, write func(*V)) {
	if m == nil {
		w.s.null()
		return
	}
	w.s.beginObject()
	for _, k := range sortedKeys(m) {
		w.s.key(k)
		if v := m[k]; v != nil {
			write(v)
		} else {
			w.s.null()
		}
	}
	w.s.endObject()
}

// writeList writes a slice of OpenAPI objects.
func writeList[V any](w *writer, l []*V, write func(*V)) {
	w.s.beginArray()
	for _, v := range l {
		if v != nil {
			write(v)
		} else {
			w.s.null()
		}
	}
	w.s.endArray()
}

func (w *writer) document(d *Document) {
	s := w.s
	s.beginObject()
	s.key("openapi")
	if w.v30 {
		s.str(Version30)
	} else {
		s.str(d.OpenAPI)
	}
	s.key("info")
	w.info(&d.Info)
	if !w.v30 {
		w.field("jsonSchemaDialect", d.JSONSchemaDialect)
	}
	if len(d.Servers) > 0 {
		s.key("servers")
		writeList(w, d.Servers, w.server)
	}
	if len(d.Paths) > 0 || w.v30 { // required in 3.0
		s.key("paths")
		if d.Paths == nil {
			s.beginObject()
			s.endObject()
		} else {
			writeMap(w, d.Paths, w.pathItem)
		}
	}
	if len(d.Webhooks) > 0 && !w.v30 {
		s.key("webhooks")
		writeMap(w, d.Webhooks, w.pathItem)
	}
	if d.Components != nil {
		s.key("components")
		w.components(d.Components)
	}
	if len(d.Security) > 0 {
		s.key("security")
		w.security(d.Security)
	}
	if len(d.Tags) > 0 {
		s.key("tags")
		writeList(w, d.Tags, w.tag)
	}
	if d.ExternalDocs != nil {
		s.key("externalDocs")
		w.externalDocs(d.ExternalDocs)
	}
	w.extensions(d.Extensions)
	s.endObject()
}

func (w *writer) info(i *Info) {
	s := w.s
	s.beginObject()
	s.key("title")
	s.str(i.Title)
	description := i.Description
	if w.v30 {
		if description == "" {
			description = i.Summary // 3.0 has no summary
		}
	} else {
		w.field("summary", i.Summary)
	}
	w.field("description", description)
	w.field("termsOfService", i.TermsOfService)
	if c := i.Contact; c != nil {
		s.key("contact")
		s.beginObject()
		w.field("name", c.Name)
		w.field("url", c.URL)
		w.field("email", c.Email)
		s.endObject()
	}
	if l := i.License; l != nil {
		s.key("license")
		s.beginObject()
		s.key("name")
		s.str(l.Name)
		url := l.URL
		if w.v30 {
			if url == "" && l.Identifier != "" {
				url = "https://spdx.org/licenses/" + l.Identifier + ".html"
			}
		} else {
			w.field("identifier", l.Identifier)
		}
		w.field("url", url)
		s.endObject()
	}
	s.key("version")
	s.str(i.Version)
	w.extensions(i.Extensions)
	s.endObject()
}

func (w *writer) server(v *Server) {
	s := w.s
	s.beginObject()
	s.key("url")
	s.str(v.URL)
	w.field("description", v.Description)
	if len(v.Variables) > 0 {
		s.key("variables")
		writeMap(w, v.Variables, func(sv *ServerVariable) {
			s.beginObject()
			if len(sv.Enum) > 0 {
				s.key("enum")
				w.strings(sv.Enum)
			}
			s.key("default")
			s.str(sv.Default)
			w.field("description", sv.Description)
			s.endObject()
		})
	}
	w.extensions(v.Extensions)
	s.endObject()
}

func (w *writer) pathItem(p *PathItem) {
	s := w.s
	s.beginObject()
	w.field("summary", p.Summary)
	w.field("description", p.Description)
	for _, op := range []struct {
		key string
		op  *Operation
	}{{"get", p.Get}, {"put", p.Put}, {"post", p.Post}, {"delete", p.Delete}, {"options", p.Options},
		{"head", p.Head}, {"patch", p.Patch}, {"trace", p.Trace}} {
		if op.op != nil {
			s.key(op.key)
			w.operation(op.op)
		}
	}
	if len(p.Servers) > 0 {
		s.key("servers")
		writeList(w, p.Servers, w.server)
	}
	if len(p.Parameters) > 0 {
		s.key("parameters")
		writeList(w, p.Parameters, w.parameter)
	}
	w.extensions(p.Extensions)
	s.endObject()
}

func (w *writer) operation(o *Operation) {
	s := w.s
	s.beginObject()
	if len(o.Tags) > 0 {
		s.key("tags")
		w.strings(o.Tags)
	}
	w.field("summary", o.Summary)
	w.field("description", o.Description)
	if o.ExternalDocs != nil {
		s.key("externalDocs")
		w.externalDocs(o.ExternalDocs)
	}
	w.field("operationId", o.OperationID)
	if len(o.Parameters) > 0 {
		s.key("parameters")
		writeList(w, o.Parameters, w.parameter)
	}
	if o.RequestBody != nil {
		s.key("requestBody")
		w.requestBody(o.RequestBody)
	}
	if len(o.Responses) > 0 {
		s.key("responses")
		writeMap(w, o.Responses, w.response)
	}
	w.flag("deprecated", o.Deprecated)
	if o.Security != nil { // an empty list says "public": omitzero, not omitempty
		s.key("security")
		w.security(o.Security)
	}
	if len(o.Servers) > 0 {
		s.key("servers")
		writeList(w, o.Servers, w.server)
	}
	w.extensions(o.Extensions)
	s.endObject()
}

// security writes a list of security requirements; in 3.0, without the
// schemes it lacks, and without a requirement that named only those.
func (w *writer) security(reqs []SecurityRequirement) {
	s := w.s
	s.beginArray()
	for _, req := range reqs {
		if req == nil {
			s.null()
			continue
		}
		names := sortedKeys(req)
		if len(w.dropped) > 0 {
			kept := names[:0]
			for _, n := range names {
				if !w.dropped[n] {
					kept = append(kept, n)
				}
			}
			if len(kept) == 0 && len(names) > 0 {
				continue
			}
			names = kept
		}
		s.beginObject()
		for _, n := range names {
			s.key(n)
			scopes := req[n]
			if scopes == nil {
				scopes = []string{} // OpenAPI: an array, empty when no scope is needed
			}
			w.strings(scopes)
		}
		s.endObject()
	}
	s.endArray()
}

func (w *writer) parameter(p *Parameter) {
	s := w.s
	s.beginObject()
	s.key("name")
	s.str(p.Name)
	s.key("in")
	s.str(p.In)
	w.field("description", p.Description)
	w.flag("required", p.Required)
	w.flag("deprecated", p.Deprecated)
	w.flag("allowEmptyValue", p.AllowEmptyValue)
	w.field("style", p.Style)
	if p.Explode != nil {
		s.key("explode")
		s.boolean(*p.Explode)
	}
	if p.Schema != nil {
		s.key("schema")
		w.schemaOf(p.Schema)
	}
	if p.Example != nil {
		s.key("example")
		w.value(p.Example)
	}
	w.extensions(p.Extensions)
	s.endObject()
}

func (w *writer) requestBody(b *RequestBody) {
	s := w.s
	s.beginObject()
	w.field("description", b.Description)
	s.key("content")
	writeMap(w, b.Content, w.mediaType)
	w.flag("required", b.Required)
	s.endObject()
}

func (w *writer) mediaType(m *MediaType) {
	s := w.s
	s.beginObject()
	if m.Schema != nil {
		s.key("schema")
		w.schemaOf(m.Schema)
	}
	if m.Example != nil {
		s.key("example")
		w.value(m.Example)
	}
	if len(m.Encoding) > 0 {
		s.key("encoding")
		writeMap(w, m.Encoding, func(e *Encoding) {
			s.beginObject()
			w.field("contentType", e.ContentType)
			if len(e.Headers) > 0 {
				s.key("headers")
				writeMap(w, e.Headers, w.header)
			}
			w.field("style", e.Style)
			if e.Explode != nil {
				s.key("explode")
				s.boolean(*e.Explode)
			}
			s.endObject()
		})
	}
	s.endObject()
}

func (w *writer) response(r *Response) {
	s := w.s
	s.beginObject()
	if w.v30 && r.Ref != "" && len(r.Headers) == 0 && len(r.Content) == 0 && len(r.Links) == 0 && len(r.Extensions) == 0 {
		// A Reference Object: 3.0 allows nothing beside $ref.
		s.key("$ref")
		s.str(r.Ref)
		s.endObject()
		return
	}
	w.field("$ref", r.Ref)
	w.field("description", r.Description)
	if len(r.Headers) > 0 {
		s.key("headers")
		writeMap(w, r.Headers, w.header)
	}
	if len(r.Content) > 0 {
		s.key("content")
		writeMap(w, r.Content, w.mediaType)
	}
	if len(r.Links) > 0 {
		s.key("links")
		writeMap(w, r.Links, w.link)
	}
	w.extensions(r.Extensions)
	s.endObject()
}

func (w *writer) link(l *Link) {
	s := w.s
	s.beginObject()
	w.field("operationId", l.OperationID)
	w.field("operationRef", l.OperationRef)
	if len(l.Parameters) > 0 {
		s.key("parameters")
		w.value(l.Parameters)
	}
	if l.RequestBody != nil {
		s.key("requestBody")
		w.value(l.RequestBody)
	}
	w.field("description", l.Description)
	if l.Server != nil {
		s.key("server")
		w.server(l.Server)
	}
	s.endObject()
}

func (w *writer) header(h *Header) {
	s := w.s
	s.beginObject()
	w.field("description", h.Description)
	w.flag("required", h.Required)
	w.flag("deprecated", h.Deprecated)
	if h.Schema != nil {
		s.key("schema")
		w.schemaOf(h.Schema)
	}
	s.endObject()
}

func (w *writer) components(c *Components) {
	s := w.s
	s.beginObject()
	if len(c.Schemas) > 0 {
		s.key("schemas")
		writeMap(w, c.Schemas, w.schemaOf)
	}
	if len(c.Responses) > 0 {
		s.key("responses")
		writeMap(w, c.Responses, w.response)
	}
	if len(c.Parameters) > 0 {
		s.key("parameters")
		writeMap(w, c.Parameters, w.parameter)
	}
	if len(c.RequestBodies) > 0 {
		s.key("requestBodies")
		writeMap(w, c.RequestBodies, w.requestBody)
	}
	if len(c.Headers) > 0 {
		s.key("headers")
		writeMap(w, c.Headers, w.header)
	}
	if schemes := c.SecuritySchemes; len(schemes) > 0 {
		if len(w.dropped) > 0 {
			kept := make(map[string]*SecurityScheme, len(schemes))
			for name, ss := range schemes {
				if !w.dropped[name] {
					kept[name] = ss
				}
			}
			schemes = kept
		}
		s.key("securitySchemes")
		writeMap(w, schemes, w.securityScheme)
	}
	w.extensions(c.Extensions)
	s.endObject()
}

func (w *writer) securityScheme(ss *SecurityScheme) {
	s := w.s
	s.beginObject()
	s.key("type")
	s.str(ss.Type)
	w.field("description", ss.Description)
	w.field("name", ss.Name)
	w.field("in", ss.In)
	w.field("scheme", ss.Scheme)
	w.field("bearerFormat", ss.BearerFormat)
	if f := ss.Flows; f != nil {
		s.key("flows")
		s.beginObject()
		for _, flow := range []struct {
			key  string
			flow *OAuthFlow
		}{{"implicit", f.Implicit}, {"password", f.Password}, {"clientCredentials", f.ClientCredentials}, {"authorizationCode", f.AuthorizationCode}} {
			if flow.flow == nil {
				continue
			}
			s.key(flow.key)
			s.beginObject()
			w.field("authorizationUrl", flow.flow.AuthorizationURL)
			w.field("tokenUrl", flow.flow.TokenURL)
			w.field("refreshUrl", flow.flow.RefreshURL)
			s.key("scopes")
			if flow.flow.Scopes == nil {
				s.null()
			} else {
				s.beginObject()
				for _, k := range sortedKeys(flow.flow.Scopes) {
					s.key(k)
					s.str(flow.flow.Scopes[k])
				}
				s.endObject()
			}
			s.endObject()
		}
		s.endObject()
	}
	w.field("openIdConnectUrl", ss.OpenIDConnectURL)
	w.extensions(ss.Extensions)
	s.endObject()
}

func (w *writer) tag(t *Tag) {
	s := w.s
	s.beginObject()
	s.key("name")
	s.str(t.Name)
	w.field("description", t.Description)
	if t.ExternalDocs != nil {
		s.key("externalDocs")
		w.externalDocs(t.ExternalDocs)
	}
	w.extensions(t.Extensions)
	s.endObject()
}

func (w *writer) externalDocs(e *ExternalDocs) {
	s := w.s
	s.beginObject()
	w.field("description", e.Description)
	s.key("url")
	s.str(e.URL)
	s.endObject()
}

// schemaOf writes a schema, translated in 3.0.
func (w *writer) schemaOf(sc *schema.Schema) {
	if !w.v30 {
		w.schema(sc)
		return
	}
	var t treeSink
	plain := writer{s: &t}
	plain.schema(sc)
	if plain.err != nil {
		w.fail(plain.err)
		return
	}
	emitNode(w.s, w.tr.schema(t.root))
}

// schema writes a JSON Schema as schema.Schema's MarshalJSON does.
func (w *writer) schema(sc *schema.Schema) {
	s := w.s
	if sc == nil {
		s.null()
		return
	}
	if sc.False {
		s.boolean(false)
		return
	}
	if w.depth++; w.depth > maxSchemaDepth {
		w.fail(errSchemaCycle)
		w.depth--
		s.null()
		return
	}
	defer func() { w.depth-- }()
	s.beginObject()
	if sc.Nullable && sc.Ref != "" {
		// A $ref cannot carry a type union: anyOf the reference and null.
		w.field("description", sc.Description)
		w.flag("readOnly", sc.ReadOnly)
		w.flag("writeOnly", sc.WriteOnly)
		w.flag("deprecated", sc.Deprecated)
		s.key("anyOf")
		s.beginArray()
		s.beginObject()
		s.key("$ref")
		s.str(sc.Ref)
		s.endObject()
		s.beginObject()
		s.key("type")
		s.str(schema.TypeNull)
		s.endObject()
		s.endArray()
		s.endObject()
		return
	}
	if sc.Type != "" {
		s.key("type")
		if sc.Nullable {
			w.strings([]string{sc.Type, schema.TypeNull})
		} else {
			s.str(sc.Type)
		}
	}
	if sc.Properties != nil {
		s.key("properties")
		w.properties(sc.Properties, sc.PropertyOrder)
	}
	w.field("$ref", sc.Ref)
	w.field("title", sc.Title)
	w.field("description", sc.Description)
	w.field("format", sc.Format)
	w.field("contentEncoding", sc.ContentEncoding)
	w.field("contentMediaType", sc.ContentMediaType)
	if len(sc.Enum) > 0 {
		s.key("enum")
		w.value(sc.Enum)
	}
	if sc.Const != nil {
		s.key("const")
		w.value(sc.Const)
	}
	if sc.Default != nil {
		s.key("default")
		w.value(sc.Default)
	}
	if len(sc.Examples) > 0 {
		s.key("examples")
		w.value(sc.Examples)
	}
	w.flag("readOnly", sc.ReadOnly)
	w.flag("writeOnly", sc.WriteOnly)
	w.flag("deprecated", sc.Deprecated)
	for _, n := range []struct {
		key string
		v   *float64
	}{{"minimum", sc.Minimum}, {"maximum", sc.Maximum}, {"exclusiveMinimum", sc.ExclusiveMinimum},
		{"exclusiveMaximum", sc.ExclusiveMaximum}, {"multipleOf", sc.MultipleOf}} {
		if n.v != nil {
			s.key(n.key)
			w.float(*n.v)
		}
	}
	w.count("minLength", sc.MinLength)
	w.count("maxLength", sc.MaxLength)
	w.field("pattern", sc.Pattern)
	if sc.Items != nil {
		s.key("items")
		w.schema(sc.Items)
	}
	w.count("minItems", sc.MinItems)
	w.count("maxItems", sc.MaxItems)
	w.flag("uniqueItems", sc.UniqueItems)
	if len(sc.Required) > 0 {
		s.key("required")
		w.strings(sc.Required)
	}
	if sc.AdditionalProperties != nil {
		s.key("additionalProperties")
		w.schema(sc.AdditionalProperties)
	}
	w.count("minProperties", sc.MinProperties)
	w.count("maxProperties", sc.MaxProperties)
	if len(sc.DependentRequired) > 0 {
		s.key("dependentRequired")
		s.beginObject()
		for _, k := range sortedKeys(sc.DependentRequired) {
			s.key(k)
			w.strings(sc.DependentRequired[k])
		}
		s.endObject()
	}
	w.schemas("allOf", sc.AllOf)
	w.schemas("anyOf", sc.AnyOf)
	w.schemas("oneOf", sc.OneOf)
	if sc.Not != nil {
		s.key("not")
		w.schema(sc.Not)
	}
	if d := sc.Discriminator; d != nil {
		s.key("discriminator")
		s.beginObject()
		s.key("propertyName")
		s.str(d.PropertyName)
		if len(d.Mapping) > 0 {
			s.key("mapping")
			s.beginObject()
			for _, k := range sortedKeys(d.Mapping) {
				s.key(k)
				s.str(d.Mapping[k])
			}
			s.endObject()
		}
		s.endObject()
	}
	if len(sc.Extensions) > 0 {
		for _, k := range sortedKeys(sc.Extensions) {
			s.key(k)
			w.value(sc.Extensions[k])
		}
	}
	s.endObject()
}

func (w *writer) count(key string, v *int) {
	if v != nil {
		w.s.key(key)
		w.int(*v)
	}
}

func (w *writer) schemas(key string, l []*schema.Schema) {
	if len(l) == 0 {
		return
	}
	w.s.key(key)
	w.s.beginArray()
	for _, sc := range l {
		w.schema(sc)
	}
	w.s.endArray()
}

// properties writes in the order of order when it names every property
// (a derived schema's field order), otherwise in key order.
func (w *writer) properties(props map[string]*schema.Schema, order []string) {
	s := w.s
	if len(order) == len(props) {
		all := true
		for _, name := range order {
			if _, ok := props[name]; !ok {
				all = false
				break
			}
		}
		if all {
			s.beginObject()
			for _, name := range order {
				s.key(name)
				w.schema(props[name])
			}
			s.endObject()
			return
		}
	}
	s.beginObject()
	for _, name := range sortedKeys(props) {
		s.key(name)
		w.schema(props[name])
	}
	s.endObject()
}

// mutualTLS returns the names of d's mutualTLS security schemes.
func mutualTLS(d *Document) map[string]bool {
	var names map[string]bool
	if d.Components != nil {
		for name, ss := range d.Components.SecuritySchemes {
			if ss != nil && ss.Type == "mutualTLS" {
				if names == nil {
					names = map[string]bool{}
				}
				names[name] = true
			}
		}
	}
	return names
}

// hasDefs reports whether a schema of d holds $defs (among its
// Extensions).
func hasDefs(d *Document) bool {
	found := false
	var visit func(s *schema.Schema, depth int)
	visit = func(s *schema.Schema, depth int) {
		if s == nil || found || depth > maxSchemaDepth {
			return
		}
		if _, ok := s.Extensions["$defs"]; ok {
			found = true
			return
		}
		for _, p := range s.Properties {
			visit(p, depth+1)
		}
		visit(s.Items, depth+1)
		visit(s.AdditionalProperties, depth+1)
		visit(s.Not, depth+1)
		for _, l := range [][]*schema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
			for _, x := range l {
				visit(x, depth+1)
			}
		}
	}
	header := func(h *Header) {
		if h != nil {
			visit(h.Schema, 0)
		}
	}
	content := func(c map[string]*MediaType) {
		for _, m := range c {
			if m != nil {
				visit(m.Schema, 0)
				for _, e := range m.Encoding {
					if e != nil {
						for _, h := range e.Headers {
							header(h)
						}
					}
				}
			}
		}
	}
	param := func(p *Parameter) {
		if p != nil {
			visit(p.Schema, 0)
		}
	}
	response := func(r *Response) {
		if r != nil {
			for _, h := range r.Headers {
				header(h)
			}
			content(r.Content)
		}
	}
	for _, item := range d.Paths {
		if item == nil {
			continue
		}
		for _, p := range item.Parameters {
			param(p)
		}
		for _, m := range Methods {
			op := item.Operation(m)
			if op == nil {
				continue
			}
			for _, p := range op.Parameters {
				param(p)
			}
			if op.RequestBody != nil {
				content(op.RequestBody.Content)
			}
			for _, r := range op.Responses {
				response(r)
			}
		}
	}
	if c := d.Components; c != nil {
		for _, s := range c.Schemas {
			visit(s, 0)
		}
		for _, r := range c.Responses {
			response(r)
		}
		for _, p := range c.Parameters {
			param(p)
		}
		for _, b := range c.RequestBodies {
			if b != nil {
				content(b.Content)
			}
		}
		for _, h := range c.Headers {
			header(h)
		}
	}
	return found
}
