// Package openapi builds the OpenAPI 3.1 document of a vane service from the
// compiled descriptions of its operations, renders it as JSON and YAML, and
// serves it together with an offline API reference page (Swagger UI, whose
// assets are embedded in the binary).
//
// The document is derived, never hand-written: every operation registered
// with vane.Register (or vane.Get, vane.Post, …) carries an
// [operation.Description] built from its input and output types, and [Build]
// turns a list of them into a [Document]. Named Go struct types become
// components/schemas referenced by $ref, through the same [schema.Registry]
// that request validation reads, so the document describes exactly what the
// server accepts.
//
// Before it is served the document can be edited by hooks ([Config.Edit]):
// add servers, security schemes, tags or x- extensions.
//
// This package never imports package vane; vane.Docs wires it to a router.
package openapi

import (
	"strings"

	"github.com/vane-http/vane/schema"

	"github.com/vane-http/vane/operation"
)

// Version is the OpenAPI version of the documents this package writes.
const Version = "3.1.0"

// Dialect is the JSON Schema dialect of the schemas in the document: plain
// JSON Schema 2020-12, OpenAPI 3.1's default.
const Dialect = "https://spec.openapis.org/oas/3.1/dialect/base"

// SchemaPrefix is where $ref points for a named schema.
const SchemaPrefix = "#/components/schemas/"

// Extensions holds specification extensions: fields whose names start with
// "x-", marshalled alongside an object's own fields. A key that does not
// start with "x-" is an error at marshalling time.
type Extensions map[string]any

// Document is an OpenAPI 3.1 document (the "OpenAPI Object").
type Document struct {
	OpenAPI           string                `json:"openapi"`
	Info              Info                  `json:"info"`
	JSONSchemaDialect string                `json:"jsonSchemaDialect,omitempty"`
	Servers           []*Server             `json:"servers,omitempty"`
	Paths             map[string]*PathItem  `json:"paths,omitempty"`
	Webhooks          map[string]*PathItem  `json:"webhooks,omitempty"`
	Components        *Components           `json:"components,omitempty"`
	Security          []SecurityRequirement `json:"security,omitempty"`
	Tags              []*Tag                `json:"tags,omitempty"`
	ExternalDocs      *ExternalDocs         `json:"externalDocs,omitempty"`
	Extensions        Extensions            `json:"-"`
}

// Info is the document's metadata. Title and Version are required.
type Info struct {
	Title          string     `json:"title"`
	Summary        string     `json:"summary,omitempty"`
	Description    string     `json:"description,omitempty"`
	TermsOfService string     `json:"termsOfService,omitempty"`
	Contact        *Contact   `json:"contact,omitempty"`
	License        *License   `json:"license,omitempty"`
	Version        string     `json:"version"`
	Extensions     Extensions `json:"-"`
}

// Contact is the contact information for the API.
type Contact struct {
	Name  string `json:"name,omitempty"`
	URL   string `json:"url,omitempty"`
	Email string `json:"email,omitempty"`
}

// License is the API's licence: a name and either an SPDX identifier or a URL.
type License struct {
	Name       string `json:"name"`
	Identifier string `json:"identifier,omitempty"`
	URL        string `json:"url,omitempty"`
}

// Server is a base URL the API is served from. The URL may be relative
// ("/v1") and may hold {variables}.
type Server struct {
	URL         string                     `json:"url"`
	Description string                     `json:"description,omitempty"`
	Variables   map[string]*ServerVariable `json:"variables,omitempty"`
	Extensions  Extensions                 `json:"-"`
}

// ServerVariable is a substitution for a {variable} in a server URL.
type ServerVariable struct {
	Enum        []string `json:"enum,omitempty"`
	Default     string   `json:"default"`
	Description string   `json:"description,omitempty"`
}

// PathItem holds the operations on one path.
type PathItem struct {
	Summary     string       `json:"summary,omitempty"`
	Description string       `json:"description,omitempty"`
	Get         *Operation   `json:"get,omitempty"`
	Put         *Operation   `json:"put,omitempty"`
	Post        *Operation   `json:"post,omitempty"`
	Delete      *Operation   `json:"delete,omitempty"`
	Options     *Operation   `json:"options,omitempty"`
	Head        *Operation   `json:"head,omitempty"`
	Patch       *Operation   `json:"patch,omitempty"`
	Trace       *Operation   `json:"trace,omitempty"`
	Servers     []*Server    `json:"servers,omitempty"`
	Parameters  []*Parameter `json:"parameters,omitempty"`
	Extensions  Extensions   `json:"-"`
}

// Operation returns the operation for method (upper or lower case), or nil.
func (p *PathItem) Operation(method string) *Operation {
	if slot := p.slot(method); slot != nil {
		return *slot
	}
	return nil
}

// SetOperation sets the operation for method. It reports false for a method
// OpenAPI cannot describe (such as CONNECT).
func (p *PathItem) SetOperation(method string, op *Operation) bool {
	slot := p.slot(method)
	if slot == nil {
		return false
	}
	*slot = op
	return true
}

func (p *PathItem) slot(method string) **Operation {
	switch strings.ToUpper(method) {
	case "GET":
		return &p.Get
	case "PUT":
		return &p.Put
	case "POST":
		return &p.Post
	case "DELETE":
		return &p.Delete
	case "OPTIONS":
		return &p.Options
	case "HEAD":
		return &p.Head
	case "PATCH":
		return &p.Patch
	case "TRACE":
		return &p.Trace
	}
	return nil
}

// Methods lists the HTTP methods a PathItem can hold, in document order.
var Methods = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"}

// Operation describes one operation on a path.
type Operation struct {
	Tags         []string             `json:"tags,omitempty"`
	Summary      string               `json:"summary,omitempty"`
	Description  string               `json:"description,omitempty"`
	ExternalDocs *ExternalDocs        `json:"externalDocs,omitempty"`
	OperationID  string               `json:"operationId,omitempty"`
	Parameters   []*Parameter         `json:"parameters,omitempty"`
	RequestBody  *RequestBody         `json:"requestBody,omitempty"`
	Responses    map[string]*Response `json:"responses,omitempty"`
	Deprecated   bool                 `json:"deprecated,omitempty"`
	// Security overrides the document's security for this operation. Nil
	// inherits it; an empty, non-nil slice makes the operation public.
	Security   []SecurityRequirement `json:"security,omitzero"`
	Servers    []*Server             `json:"servers,omitempty"`
	Extensions Extensions            `json:"-"`
}

// Parameter locations: those of the operation descriptions.
const (
	InPath   = operation.InPath
	InQuery  = operation.InQuery
	InHeader = operation.InHeader
	InCookie = operation.InCookie
)

// Parameter describes one path, query, header or cookie parameter.
type Parameter struct {
	Name            string         `json:"name"`
	In              string         `json:"in"`
	Description     string         `json:"description,omitempty"`
	Required        bool           `json:"required,omitempty"`
	Deprecated      bool           `json:"deprecated,omitempty"`
	AllowEmptyValue bool           `json:"allowEmptyValue,omitempty"`
	Style           string         `json:"style,omitempty"`
	Explode         *bool          `json:"explode,omitempty"`
	Schema          *schema.Schema `json:"schema,omitempty"`
	Example         any            `json:"example,omitempty"`
	Extensions      Extensions     `json:"-"`
}

// RequestBody describes a request body by media type.
type RequestBody struct {
	Description string                `json:"description,omitempty"`
	Content     map[string]*MediaType `json:"content"`
	Required    bool                  `json:"required,omitempty"`
}

// MediaType is the schema (and encoding, for forms) of one media type.
type MediaType struct {
	Schema   *schema.Schema       `json:"schema,omitempty"`
	Example  any                  `json:"example,omitempty"`
	Encoding map[string]*Encoding `json:"encoding,omitempty"`
}

// Encoding describes how one property of a form body is encoded.
type Encoding struct {
	ContentType string             `json:"contentType,omitempty"`
	Headers     map[string]*Header `json:"headers,omitempty"`
	Style       string             `json:"style,omitempty"`
	Explode     *bool              `json:"explode,omitempty"`
}

// Response describes one response: its headers and its body by media type.
// Description is required by OpenAPI.
type Response struct {
	Ref         string                `json:"$ref,omitempty"`
	Description string                `json:"description,omitempty"`
	Headers     map[string]*Header    `json:"headers,omitempty"`
	Content     map[string]*MediaType `json:"content,omitempty"`
	// Links say how values of this response feed other operations, such as
	// the ID of a created resource for the operations on it. Tools that
	// chain requests (schemathesis's stateful tests) follow them.
	Links      map[string]*Link `json:"links,omitempty"`
	Extensions Extensions       `json:"-"`
}

// Link is a design-time link from a response to an operation: which
// operation (by OperationID), and the values its parameters take, as
// runtime expressions such as "$response.body#/id" or
// "$request.path.id".
type Link struct {
	OperationID  string         `json:"operationId,omitempty"`
	OperationRef string         `json:"operationRef,omitempty"`
	Parameters   map[string]any `json:"parameters,omitempty"`
	RequestBody  any            `json:"requestBody,omitempty"`
	Description  string         `json:"description,omitempty"`
	Server       *Server        `json:"server,omitempty"`
}

// Header describes a response header.
type Header struct {
	Description string         `json:"description,omitempty"`
	Required    bool           `json:"required,omitempty"`
	Deprecated  bool           `json:"deprecated,omitempty"`
	Schema      *schema.Schema `json:"schema,omitempty"`
}

// Components holds the reusable parts of the document.
type Components struct {
	Schemas         map[string]*schema.Schema  `json:"schemas,omitempty"`
	Responses       map[string]*Response       `json:"responses,omitempty"`
	Parameters      map[string]*Parameter      `json:"parameters,omitempty"`
	RequestBodies   map[string]*RequestBody    `json:"requestBodies,omitempty"`
	Headers         map[string]*Header         `json:"headers,omitempty"`
	SecuritySchemes map[string]*SecurityScheme `json:"securitySchemes,omitempty"`
	Extensions      Extensions                 `json:"-"`
}

// SecurityRequirement names security schemes (keys of
// Components.SecuritySchemes) with the scopes each needs; all the schemes
// of one requirement apply together.
type SecurityRequirement map[string][]string

// SecurityScheme describes one way to authenticate. Type is "apiKey",
// "http", "mutualTLS", "oauth2" or "openIdConnect".
type SecurityScheme struct {
	Type             string      `json:"type"`
	Description      string      `json:"description,omitempty"`
	Name             string      `json:"name,omitempty"`             // apiKey
	In               string      `json:"in,omitempty"`               // apiKey: query, header or cookie
	Scheme           string      `json:"scheme,omitempty"`           // http: "bearer", "basic", …
	BearerFormat     string      `json:"bearerFormat,omitempty"`     // http bearer
	Flows            *OAuthFlows `json:"flows,omitempty"`            // oauth2
	OpenIDConnectURL string      `json:"openIdConnectUrl,omitempty"` // openIdConnect
	Extensions       Extensions  `json:"-"`
}

// BearerAuth returns an HTTP bearer-token scheme; format is a hint such as
// "JWT" and may be empty.
func BearerAuth(format string) *SecurityScheme {
	return &SecurityScheme{Type: "http", Scheme: "bearer", BearerFormat: format}
}

// BasicAuth returns an HTTP basic authentication scheme.
func BasicAuth() *SecurityScheme { return &SecurityScheme{Type: "http", Scheme: "basic"} }

// APIKeyAuth returns an API-key scheme reading the key named name in
// location in ("header", "query" or "cookie").
func APIKeyAuth(in, name string) *SecurityScheme {
	return &SecurityScheme{Type: "apiKey", In: in, Name: name}
}

// OAuthFlows lists the OAuth 2 flows a scheme supports.
type OAuthFlows struct {
	Implicit          *OAuthFlow `json:"implicit,omitempty"`
	Password          *OAuthFlow `json:"password,omitempty"`
	ClientCredentials *OAuthFlow `json:"clientCredentials,omitempty"`
	AuthorizationCode *OAuthFlow `json:"authorizationCode,omitempty"`
}

// OAuthFlow is one OAuth 2 flow. Scopes must be present, even if empty.
type OAuthFlow struct {
	AuthorizationURL string            `json:"authorizationUrl,omitempty"`
	TokenURL         string            `json:"tokenUrl,omitempty"`
	RefreshURL       string            `json:"refreshUrl,omitempty"`
	Scopes           map[string]string `json:"scopes"`
}

// Tag groups operations in the docs page.
type Tag struct {
	Name         string        `json:"name"`
	Description  string        `json:"description,omitempty"`
	ExternalDocs *ExternalDocs `json:"externalDocs,omitempty"`
	Extensions   Extensions    `json:"-"`
}

// ExternalDocs points to documentation outside the document.
type ExternalDocs struct {
	Description string `json:"description,omitempty"`
	URL         string `json:"url"`
}

// The MarshalJSON methods below write each object as the document writer
// does (write.go), Extensions included: json.Marshal of a Document says
// what its JSON form says.

func (d Document) MarshalJSON() ([]byte, error) { return marshal(func(w *writer) { w.document(&d) }) }
func (i Info) MarshalJSON() ([]byte, error)     { return marshal(func(w *writer) { w.info(&i) }) }
func (s Server) MarshalJSON() ([]byte, error)   { return marshal(func(w *writer) { w.server(&s) }) }
func (p PathItem) MarshalJSON() ([]byte, error) { return marshal(func(w *writer) { w.pathItem(&p) }) }
func (o Operation) MarshalJSON() ([]byte, error) {
	return marshal(func(w *writer) { w.operation(&o) })
}
func (p Parameter) MarshalJSON() ([]byte, error) {
	return marshal(func(w *writer) { w.parameter(&p) })
}
func (r Response) MarshalJSON() ([]byte, error) { return marshal(func(w *writer) { w.response(&r) }) }
func (c Components) MarshalJSON() ([]byte, error) {
	return marshal(func(w *writer) { w.components(&c) })
}
func (s SecurityScheme) MarshalJSON() ([]byte, error) {
	return marshal(func(w *writer) { w.securityScheme(&s) })
}
func (t Tag) MarshalJSON() ([]byte, error) { return marshal(func(w *writer) { w.tag(&t) }) }

// marshal returns the compact JSON that write writes.
func marshal(write func(*writer)) ([]byte, error) {
	j := &jsonWriter{}
	w := &writer{s: j}
	write(w)
	if w.err != nil {
		return nil, w.err
	}
	return j.bytes(), nil
}

// JSON returns the document as indented JSON.
func (d *Document) JSON() ([]byte, error) { return d.encode(formJSON, "  ") }

// YAML returns the document as YAML, with the fields in the order of the
// JSON form.
func (d *Document) YAML() ([]byte, error) { return d.encode(formYAML, "") }

// The forms of a document.
const (
	formJSON = iota
	formYAML
	formJSON30
	formYAML30
	numForms
)

// encode writes the document in form (JSON indented by indent per level,
// compact for ""), with a final line feed.
func (d *Document) encode(form int, indent string) ([]byte, error) {
	parts, err := d.encodeParts(form, indent, hasDefs(d))
	if err != nil {
		return nil, err
	}
	return joinParts(parts), nil
}

// encodeParts is encode, the text in chunks; defs says whether a schema
// of d holds $defs (hasDefs).
func (d *Document) encodeParts(form int, indent string, defs bool) ([][]byte, error) {
	v30 := form == formJSON30 || form == formYAML30
	if form == formYAML || form == formYAML30 {
		w := yamlWriter{output: output{chunked: true}}
		if err := writeDocument(&w, d, v30, defs); err != nil {
			return nil, err
		}
		return w.parts(), nil
	}
	w := jsonWriter{output: output{chunked: true}, indent: indent}
	if err := writeDocument(&w, d, v30, defs); err != nil {
		return nil, err
	}
	w.buf = append(w.buf, '\n')
	return w.parts(), nil
}
