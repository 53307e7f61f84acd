package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// Config is what [Build] needs besides the operations: the parts of the
// document that no Go type says.
type Config struct {
	// Info is the document's title, version and so on. An empty Title is
	// "API", an empty Version "0.0.0" (OpenAPI requires both).
	Info Info

	// Servers lists base URLs. Empty means the document's own origin.
	Servers []*Server

	// SecuritySchemes are the ways to authenticate, by the names that
	// operations' Security requirements use (vane.Security).
	SecuritySchemes map[string]*SecurityScheme

	// Security applies to every operation that does not set its own.
	Security []SecurityRequirement

	// Tags describe the tags operations use, in the order the docs page
	// shows them. Tags used but not listed are appended in order of first
	// use.
	Tags []*Tag

	ExternalDocs *ExternalDocs
	Extensions   Extensions

	// NoErrorResponses leaves out the "default" problem+json response that
	// Build adds to every operation (and, to operations that document no
	// error, the 400, 413, 415 and 422 that vane itself may return).
	NoErrorResponses bool

	// Edit hooks run in order on the finished document, before it is
	// checked and served: add servers, security schemes, x- extensions,
	// rewrite descriptions. An error stops the build.
	Edit []func(*Document) error
}

// Names of the responses Build adds under components/responses.
const (
	ResponseBadRequest           = "BadRequest"
	ResponseValidationFailed     = "ValidationFailed"
	ResponseRequestTimeout       = "RequestTimeout"
	ResponseContentTooLarge      = "ContentTooLarge"
	ResponseUnsupportedMediaType = "UnsupportedMediaType"
	ResponseInternalError        = "InternalError"
	ResponseError                = "Error"
)

var problemType = reflect.TypeFor[problem.Details]()

// Build returns the OpenAPI 3.1 document describing ops (typically
// vane.Router.Operations()). Operations marked Hidden are left out.
//
// Every named struct type the operations use is one components/schemas
// entry, referenced by $ref; the names are those of the operations' shared
// [schema.Registry], so they are unique and stable. Errors are described by
// the problem+json schema "Problem" (package problem).
//
// Build fails on what would make an invalid or misleading document: two
// operations with the same operationId or the same method and path, a path
// parameter without its {name} in the pattern, a security requirement that
// names an undefined scheme, a hook's error.
func Build(cfg Config, ops []*operation.Description) (*Document, error) {
	b := &builder{
		doc: &Document{
			OpenAPI:      Version,
			Info:         cfg.Info,
			Servers:      cfg.Servers,
			Paths:        map[string]*PathItem{},
			Security:     cfg.Security,
			ExternalDocs: cfg.ExternalDocs,
			Extensions:   cfg.Extensions,
			Components:   &Components{},
		},
		ids:       map[string]string{},
		shapes:    map[string]pathOrigin{},
		noErrors:  cfg.NoErrorResponses,
		tagSeen:   map[string]bool{},
		responses: map[string]*Response{},
	}
	if b.doc.Info.Title == "" {
		b.doc.Info.Title = "API"
	}
	if b.doc.Info.Version == "" {
		b.doc.Info.Version = "0.0.0"
	}
	for _, t := range cfg.Tags {
		b.doc.Tags = append(b.doc.Tags, t)
		b.tagSeen[t.Name] = true
	}
	if len(cfg.SecuritySchemes) > 0 {
		b.doc.Components.SecuritySchemes = cfg.SecuritySchemes
	}

	// The schemas: every registry the operations use (one per router).
	var regs []*schema.Registry
	for _, op := range ops {
		if op.Schemas != nil && !slices.Contains(regs, op.Schemas) {
			regs = append(regs, op.Schemas)
		}
	}
	if len(regs) == 0 {
		regs = append(regs, schema.NewRegistry(SchemaPrefix))
	}
	for _, r := range regs {
		if r.Prefix != SchemaPrefix {
			return nil, fmt.Errorf("openapi: schema registry prefix %q, want %q", r.Prefix, SchemaPrefix)
		}
	}
	if !cfg.NoErrorResponses {
		s, err := regs[0].Schema(problemType)
		if err != nil {
			return nil, fmt.Errorf("openapi: problem schema: %w", err)
		}
		b.problem = s
	}

	for _, op := range ops {
		if op.Hidden {
			continue
		}
		if err := b.add(op); err != nil {
			return nil, err
		}
	}

	if err := b.schemas(regs); err != nil {
		return nil, err
	}
	if len(b.responses) > 0 {
		b.doc.Components.Responses = b.responses
	}

	for _, edit := range cfg.Edit {
		if err := edit(b.doc); err != nil {
			return nil, fmt.Errorf("openapi: edit hook: %w", err)
		}
	}
	if err := check(b.doc); err != nil {
		return nil, err
	}
	return b.doc, nil
}

type builder struct {
	doc       *Document
	shapes    map[string]pathOrigin // pathShape → first path with it
	ids       map[string]string     // operationId → "METHOD pattern"
	noErrors  bool
	problem   *schema.Schema // $ref to the problem schema
	tagSeen   map[string]bool
	responses map[string]*Response // components/responses in use
}

// add describes one operation.
func (b *builder) add(d *operation.Description) error {
	where := d.Method + " " + d.Pattern
	path, catchAll := openAPIPath(d.Pattern)
	// OpenAPI takes /a/{x} and /a/{y} for the same path, and has no
	// catch-all: routes the router tells apart may collide here.
	shape := pathShape(path)
	if prev, ok := b.shapes[shape]; ok && prev.path != path {
		return fmt.Errorf("openapi: %s and %s are the same OpenAPI path (%s): OpenAPI cannot describe both; "+
			"give the parameters the same names, or leave one out of the document (vane.Hidden)", prev.where, where, shape)
	}
	if prev, ok := b.shapes[shape+" "+d.Method]; ok {
		return fmt.Errorf("openapi: %s and %s are the same OpenAPI operation (%s %s): OpenAPI has no catch-all; "+
			"leave one out of the document (vane.Hidden)", prev.where, where, d.Method, path)
	}
	b.shapes[shape] = pathOrigin{path, where}
	b.shapes[shape+" "+d.Method] = pathOrigin{path, where}
	item := b.doc.Paths[path]
	if item == nil {
		item = &PathItem{}
		b.doc.Paths[path] = item
	}
	op := &Operation{
		Tags:        d.Tags,
		Summary:     d.Summary,
		Description: d.Description,
		OperationID: d.ID,
		Deprecated:  d.Deprecated,
		Extensions:  d.Extensions,
	}
	if op.OperationID == "" {
		op.OperationID = operation.DefaultID(d.Method, d.Pattern)
	}
	if prev, dup := b.ids[op.OperationID]; dup {
		return fmt.Errorf("openapi: operationId %q is used by both %s and %s", op.OperationID, prev, where)
	}
	b.ids[op.OperationID] = where
	if d.Security != nil {
		op.Security = make([]SecurityRequirement, len(d.Security))
		for i, req := range d.Security {
			op.Security[i] = SecurityRequirement(req)
		}
	}
	for _, t := range d.Tags {
		if !b.tagSeen[t] {
			b.tagSeen[t] = true
			b.doc.Tags = append(b.doc.Tags, &Tag{Name: t})
		}
	}

	for i := range d.Parameters {
		p := &d.Parameters[i]
		if p.In == operation.InHeader && ignoredHeader(p.Name) {
			continue // still bound; OpenAPI says them elsewhere
		}
		param := &Parameter{
			Name:        p.Name,
			In:          p.In,
			Description: p.Description,
			Required:    p.Required || p.In == operation.InPath,
			Deprecated:  p.Deprecated,
			Style:       p.Style,
			Explode:     p.Explode,
			Schema:      withoutDuplicates(p.Schema, p.Description, p.Example),
			Example:     p.Example,
		}
		if p.In == operation.InPath {
			if !strings.Contains(path, "{"+p.Name+"}") {
				return fmt.Errorf("openapi: %s: path parameter %q (field %s) is not in the pattern", where, p.Name, p.Field)
			}
			if p.Name == catchAll {
				param.Description = joinText(param.Description, "The rest of the path: it may contain \"/\".")
				param.Extensions = Extensions{"x-vane-catch-all": true}
			}
		}
		op.Parameters = append(op.Parameters, param)
	}
	// A {name} without a field still has to be declared.
	for _, name := range pathNames(path) {
		if d.Param(operation.InPath, name) == nil {
			op.Parameters = append(op.Parameters, &Parameter{Name: name, In: InPath, Required: true,
				Schema: &schema.Schema{Type: schema.TypeString}})
		}
	}

	if rb := d.RequestBody; rb != nil && len(rb.Content) > 0 {
		body := &RequestBody{Description: rb.Description, Required: rb.Required, Content: map[string]*MediaType{}}
		for _, c := range rb.Content {
			mt := &MediaType{Schema: c.Schema}
			for name, types := range c.Encoding {
				if mt.Encoding == nil {
					mt.Encoding = map[string]*Encoding{}
				}
				mt.Encoding[name] = &Encoding{ContentType: types}
			}
			body.Content[c.MediaType] = mt
		}
		op.RequestBody = body
	}

	op.Responses = map[string]*Response{}
	documentsErrors := false
	for i := range d.Responses {
		r := &d.Responses[i]
		key := "default"
		if r.Status != 0 {
			key = strconv.Itoa(r.Status)
		}
		if r.Status >= 400 || r.Status == 0 {
			documentsErrors = true
			if b.problem != nil && b.isPlainProblem(r) {
				// The same response on every operation: say it once,
				// under components/responses.
				op.Responses[key] = b.sharedError(key)
				continue
			}
		}
		res := &Response{Description: r.Description}
		if res.Description == "" {
			res.Description = statusDescription(r.Status)
		}
		for _, h := range r.Headers {
			if strings.EqualFold(h.Name, "Content-Type") {
				continue // OpenAPI ignores it: the content map says it
			}
			if res.Headers == nil {
				res.Headers = map[string]*Header{}
			}
			res.Headers[h.Name] = &Header{Description: h.Description, Required: h.Required,
				Schema: withoutDuplicates(h.Schema, h.Description, nil)}
		}
		for _, c := range r.Content {
			if operation.NoBody(r.Status) {
				break // 204, 205 and 304 have no body, whatever the output type
			}
			if res.Content == nil {
				res.Content = map[string]*MediaType{}
			}
			res.Content[c.MediaType] = &MediaType{Schema: c.Schema}
		}
		if res.Content == nil && (r.Status >= 400 || r.Status == 0) && b.problem != nil {
			res.Content = b.problemContent()
		}
		op.Responses[key] = res
	}
	if len(op.Responses) == 0 {
		status := d.Status
		if status == 0 {
			status = http.StatusOK
		}
		op.Responses[strconv.Itoa(status)] = &Response{Description: statusDescription(status)}
	}
	if !b.noErrors {
		// Descriptions made by vane.Register list the errors vane returns;
		// for others (built by hand), add them.
		if !documentsErrors {
			for _, status := range operation.ErrorStatuses(d) {
				if status != http.StatusInternalServerError { // "default" says it
					b.addError(op, strconv.Itoa(status))
				}
			}
		}
		b.addError(op, "default")
	}

	item.SetOperation(d.Method, op)
	return nil
}

// ignoredHeader reports the header parameters that OpenAPI 3.1 ignores:
// Accept and Content-Type (the content maps' media types say them) and
// Authorization (a security scheme says it). An input may still bind them;
// the document leaves them out.
func ignoredHeader(name string) bool {
	return strings.EqualFold(name, "Accept") || strings.EqualFold(name, "Content-Type") || strings.EqualFold(name, "Authorization")
}

// sharedErrors are the error responses vane itself returns, described once
// under components/responses by these names.
var sharedErrors = map[string]struct{ name, description string }{
	"400":     {ResponseBadRequest, "The request could not be read: a parameter, header or body is malformed."},
	"408":     {ResponseRequestTimeout, "The request body did not arrive within the time the server allows."},
	"413":     {ResponseContentTooLarge, "The request body is larger than the operation accepts."},
	"415":     {ResponseUnsupportedMediaType, "The request body's Content-Type is not one the operation accepts."},
	"422":     {ResponseValidationFailed, "The request was read but is not valid: errors lists every failed value and where it came from."},
	"500":     {ResponseInternalError, "An unexpected error. The response says nothing of its cause, which the server logs."},
	"default": {ResponseError, "An error, described as an RFC 9457 problem."},
}

// isPlainProblem reports whether r is one of the shared errors as vane
// documents it by default: the status text, and the problem schema alone.
func (b *builder) isPlainProblem(r *operation.Response) bool {
	key := "default"
	if r.Status != 0 {
		key = strconv.Itoa(r.Status)
	}
	if _, ok := sharedErrors[key]; !ok || len(r.Headers) > 0 || len(r.Content) != 1 {
		return false
	}
	if r.Description != "" && r.Description != http.StatusText(r.Status) {
		return false
	}
	c := r.Content[0]
	return c.MediaType == problem.ContentType && c.Schema != nil && c.Schema.Ref == b.problem.Ref
}

// sharedError returns a reference to the shared error response for key,
// adding it to components/responses on first use.
func (b *builder) sharedError(key string) *Response {
	e := sharedErrors[key]
	if b.responses[e.name] == nil {
		b.responses[e.name] = &Response{Description: e.description, Content: b.problemContent()}
	}
	return &Response{Ref: "#/components/responses/" + e.name}
}

// addError adds the shared error response for key unless the operation
// documents key itself.
func (b *builder) addError(op *Operation, key string) {
	if _, ok := op.Responses[key]; !ok {
		op.Responses[key] = b.sharedError(key)
	}
}

// withoutDuplicates returns s, or a copy of s without the description or
// example that its parameter or header already gives, so that the docs do
// not say the same thing twice. s itself is never modified: validation
// shares it.
func withoutDuplicates(s *schema.Schema, description string, example any) *schema.Schema {
	if s == nil {
		return nil
	}
	dupDesc := description != "" && s.Description == description
	dupExample := example != nil && len(s.Examples) == 1 && reflect.DeepEqual(s.Examples[0], example)
	if !dupDesc && !dupExample {
		return s
	}
	c := *s
	if dupDesc {
		c.Description = ""
	}
	if dupExample {
		c.Examples = nil
	}
	return &c
}

func (b *builder) problemContent() map[string]*MediaType {
	return map[string]*MediaType{problem.ContentType: {Schema: &schema.Schema{Ref: b.problem.Ref}}}
}

// schemas fills components/schemas with the registries' schemas that the
// document uses, directly or through other schemas. A type registered only
// by a hidden operation, or only for validation, stays out of it.
func (b *builder) schemas(regs []*schema.Registry) error {
	all := map[string]*schema.Schema{}
	from := map[string]reflect.Type{}
	for _, r := range regs {
		for _, name := range r.Names() {
			s := r.Schemas()[name]
			if s == nil { // still being derived (cannot happen after registration)
				continue
			}
			t := r.Type(name)
			if prev, ok := from[name]; ok && prev != t {
				return fmt.Errorf("openapi: two routers name different types %v and %v %q", prev, t, name)
			}
			from[name] = t
			all[name] = s
		}
	}
	u := &usage{all: all, used: map[string]*schema.Schema{}}
	for _, path := range sortedKeys(b.doc.Paths) { // in order: the first unknown $ref is the one reported
		item := b.doc.Paths[path]
		for _, p := range item.Parameters {
			u.parameter(p)
		}
		for _, m := range Methods {
			if op := item.Operation(m); op != nil {
				u.operation(op)
			}
		}
		u.value(item.Extensions)
	}
	for _, name := range sortedKeys(b.responses) {
		u.response(b.responses[name])
	}
	// The schemas those refer to, and so on.
	for i := 0; i < len(u.pending); i++ {
		u.schema(u.used[u.pending[i]], 0)
	}
	if u.err != nil {
		return u.err
	}
	if len(u.used) > 0 {
		b.doc.Components.Schemas = u.used
	}
	return nil
}

// usage collects the component schemas a document refers to: every $ref
// of a schema, and every "$ref" member of a value (an example, an
// extension) that names one.
type usage struct {
	all     map[string]*schema.Schema
	used    map[string]*schema.Schema
	pending []string // names used, whose schemas are still to visit
	err     error
}

func (u *usage) ref(ref string) {
	name, ok := strings.CutPrefix(ref, SchemaPrefix)
	if !ok || !isComponentName(name) {
		return
	}
	if _, seen := u.used[name]; seen {
		return
	}
	s, ok := u.all[name]
	if !ok {
		if u.err == nil {
			u.err = fmt.Errorf("openapi: $ref to unknown schema %q", name)
		}
		return
	}
	u.used[name] = s
	u.pending = append(u.pending, name)
}

func (u *usage) schema(s *schema.Schema, depth int) {
	if s == nil || depth > maxSchemaDepth {
		return
	}
	if s.Ref != "" {
		u.ref(s.Ref)
	}
	for _, name := range sortedKeys(s.Properties) {
		u.schema(s.Properties[name], depth+1)
	}
	u.schema(s.Items, depth+1)
	u.schema(s.AdditionalProperties, depth+1)
	u.schema(s.Not, depth+1)
	for _, l := range [][]*schema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, x := range l {
			u.schema(x, depth+1)
		}
	}
	for _, v := range s.Enum {
		u.value(v)
	}
	u.value(s.Const)
	u.value(s.Default)
	for _, v := range s.Examples {
		u.value(v)
	}
	for _, k := range sortedKeys(s.Extensions) {
		u.value(s.Extensions[k])
	}
}

// value finds the $refs to component schemas in a value of any type, as
// it marshals: a scalar holds none.
func (u *usage) value(v any) {
	switch v.(type) {
	case nil, string, bool, int, int64, int32, uint64, float64:
		return
	case Extensions:
		if len(v.(Extensions)) == 0 {
			return
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		if u.err == nil {
			u.err = err
		}
		return
	}
	for _, m := range schemaRef.FindAllSubmatch(data, -1) {
		u.ref(SchemaPrefix + string(m[1]))
	}
}

func (u *usage) parameter(p *Parameter) {
	if p == nil {
		return
	}
	u.schema(p.Schema, 0)
	u.value(p.Example)
	u.value(p.Extensions)
}

func (u *usage) header(h *Header) {
	if h != nil {
		u.schema(h.Schema, 0)
	}
}

func (u *usage) content(c map[string]*MediaType) {
	for _, mt := range sortedKeys(c) {
		m := c[mt]
		if m == nil {
			continue
		}
		u.schema(m.Schema, 0)
		u.value(m.Example)
		for _, name := range sortedKeys(m.Encoding) {
			if e := m.Encoding[name]; e != nil {
				for _, h := range sortedKeys(e.Headers) {
					u.header(e.Headers[h])
				}
			}
		}
	}
}

func (u *usage) response(r *Response) {
	if r == nil {
		return
	}
	for _, h := range sortedKeys(r.Headers) {
		u.header(r.Headers[h])
	}
	u.content(r.Content)
	for _, name := range sortedKeys(r.Links) {
		if l := r.Links[name]; l != nil {
			u.value(l.Parameters)
			u.value(l.RequestBody)
		}
	}
	u.value(r.Extensions)
}

func (u *usage) operation(op *Operation) {
	for _, p := range op.Parameters {
		u.parameter(p)
	}
	if op.RequestBody != nil {
		u.content(op.RequestBody.Content)
	}
	for _, status := range sortedKeys(op.Responses) {
		u.response(op.Responses[status])
	}
	u.value(op.Extensions)
}

// schemaRef finds the names in "$ref":"#/components/schemas/Name" of
// marshalled JSON.
var schemaRef = regexp.MustCompile(`"\$ref":"` + regexp.QuoteMeta(SchemaPrefix) + `([a-zA-Z0-9._-]+)"`)

// isComponentName reports whether name matches ^[a-zA-Z0-9._-]+$, as
// OpenAPI's component names do.
func isComponentName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return name != ""
}

// openAPIPath turns a vane pattern into an OpenAPI path: {rest...} becomes
// {rest}, whose name it returns.
func openAPIPath(pattern string) (path, catchAll string) {
	if i := strings.Index(pattern, "...}"); i >= 0 {
		open := strings.LastIndexByte(pattern[:i], '{')
		if open >= 0 {
			catchAll = pattern[open+1 : i]
			pattern = pattern[:i] + pattern[i+3:]
		}
	}
	return pattern, catchAll
}

type pathOrigin struct{ path, where string }

// pathShape is path with its parameter names removed: /a/{x} is /a/{}.
func pathShape(path string) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(path, '{')
		end := strings.IndexByte(path, '}')
		if open < 0 || end < open {
			b.WriteString(path)
			return b.String()
		}
		b.WriteString(path[:open+1])
		path = path[end:]
	}
}

// pathNames lists the {names} of an OpenAPI path.
func pathNames(path string) []string {
	var names []string
	for {
		open := strings.IndexByte(path, '{')
		if open < 0 {
			return names
		}
		end := strings.IndexByte(path[open:], '}')
		if end < 0 {
			return names
		}
		names = append(names, path[open+1:open+end])
		path = path[open+end+1:]
	}
}

func statusDescription(status int) string {
	if status == 0 {
		return "Error"
	}
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "Status " + strconv.Itoa(status)
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// check rejects a document that no hook may leave behind: references to
// undefined security schemes, and missing required fields.
func check(d *Document) error {
	if d.Info.Title == "" || d.Info.Version == "" {
		return fmt.Errorf("openapi: info.title and info.version are required")
	}
	var schemes map[string]*SecurityScheme
	if d.Components != nil {
		schemes = d.Components.SecuritySchemes
	}
	checkReqs := func(where string, reqs []SecurityRequirement) error {
		for _, req := range reqs {
			for name := range req {
				if schemes[name] == nil {
					return fmt.Errorf("openapi: %s: security scheme %q is not defined (add it to Config.SecuritySchemes)", where, name)
				}
			}
		}
		return nil
	}
	if err := checkReqs("document", d.Security); err != nil {
		return err
	}
	paths := make([]string, 0, len(d.Paths))
	for p := range d.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		item := d.Paths[p]
		for _, m := range Methods {
			if op := item.Operation(m); op != nil {
				if err := checkReqs(m+" "+p, op.Security); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
