package openapi_test

import (
	"bytes"
	"context"
	"flag"
	"mime/multipart"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/internal/oasvalidate"
	"github.com/vane-http/vane/openapi"
	"github.com/vane-http/vane/openapi/internal/goldentypes/billing"
	"github.com/vane-http/vane/openapi/internal/goldentypes/shop"
)

// Golden files are reviewed, not regenerated blindly: run
//
//	go test ./openapi -run Golden -update
//
// then read `git diff openapi/testdata` before committing.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with the documents generated now")

// ---- Representative types ----

// Keywords uses every schema keyword the tags offer.
type Keywords struct {
	Count      int        `json:"count" minimum:"0" maximum:"10" doc:"Inclusive bounds."`
	Ratio      float64    `json:"ratio" exclusiveMinimum:"0" exclusiveMaximum:"1" doc:"Exclusive bounds."`
	Step       float32    `json:"step" multipleOf:"0.5"`
	Code       string     `json:"code" minLength:"2" maxLength:"8" pattern:"^[a-z]+$" example:"abc"`
	Email      string     `json:"email" format:"email"`
	Site       string     `json:"site,omitempty" format:"uri"`
	ID         string     `json:"id" format:"uuid" readOnly:"true"`
	Password   string     `json:"password,omitempty" writeOnly:"true" minLength:"12"`
	Day        string     `json:"day,omitempty" format:"date"`
	Clock      string     `json:"clock,omitempty" format:"time"`
	Host       string     `json:"host,omitempty" format:"hostname"`
	V4         string     `json:"v4,omitempty" format:"ipv4"`
	V6         string     `json:"v6,omitempty" format:"ipv6"`
	Color      string     `json:"color" enum:"red,green,blue" default:"red"`
	Levels     []int      `json:"levels" minItems:"1" maxItems:"3" uniqueItems:"true" enum:"1,2,3"`
	Labels     Labels     `json:"labels,omitempty" minProperties:"1" maxProperties:"5"`
	Nickname   *string    `json:"nickname" nullable:"true" doc:"Present, but may be null."`
	Parent     *Keywords  `json:"parent,omitempty" nullable:"true" doc:"A nullable reference: anyOf with null."`
	Old        string     `json:"old,omitempty" deprecated:"true"`
	When       time.Time  `json:"when"`
	Maybe      *time.Time `json:"maybe,omitempty"`
	Timeout    time.Duration
	Raw        []byte         `json:"raw,omitempty"`
	Anything   any            `json:"anything,omitempty"`
	Skipped    string         `json:"-"`
	unexported string         //nolint:unused // not in the schema
	Forced     string         `json:"forced,omitempty" required:"true"`
	Optional   string         `json:"optional" required:"false"`
	Counts     map[string]int `json:"counts,omitempty"`
}

// Labels is a named map type.
type Labels map[string]string

// Base is embedded by Embedding: its fields are flattened.
type Base struct {
	Created time.Time `json:"created" readOnly:"true"`
	Owner   string    `json:"owner"`
}

// Embedding embeds Base, as encoding/json flattens it.
type Embedding struct {
	Base
	Name string `json:"name"`
	*Extra
}

// Extra is embedded by pointer.
type Extra struct {
	Note string `json:"note,omitempty"`
}

// Tree is recursive.
type Tree struct {
	Value    int    `json:"value"`
	Children []Tree `json:"children,omitempty"`
	Parent   *Tree  `json:"parent,omitempty"`
}

// Page and Pair are generic: their components get readable names.
type Page[T any] struct {
	Items []T     `json:"items"`
	Next  *string `json:"next" nullable:"true"`
}

type Pair[K comparable, V any] struct {
	Key   K `json:"key"`
	Value V `json:"value"`
}

// Cart uses the two Item types of packages shop and billing.
type Cart struct {
	Products []shop.Item    `json:"products"`
	Invoice  []billing.Item `json:"invoice"`
}

// ---- Inputs and outputs ----

type SearchInput struct {
	Org     string        `path:"org" pattern:"^[a-z0-9-]+$" doc:"The organisation."`
	Limit   int           `query:"limit" default:"20" minimum:"1" maximum:"100"`
	Tags    []string      `query:"tag" maxItems:"5" enum:"a,b,c"`
	Since   *time.Time    `query:"since" doc:"Only items changed since then."`
	Within  time.Duration `query:"within"`
	Verbose bool          `query:"verbose"`
	Trace   string        `header:"X-Trace-Id" required:"true" format:"uuid"`
	Theme   string        `cookie:"theme" enum:"light,dark"`
}

type SearchOutput struct {
	Total        int       `header:"X-Total-Count" doc:"How many match."`
	LastModified time.Time `header:"Last-Modified"`
	Body         Page[Pair[string, int]]
}

type KeywordsInput struct {
	ID   int64 `path:"id" minimum:"1"`
	Body Keywords
}

type KeywordsOutput struct {
	Status int
	Body   Embedding
}

type RawInput struct {
	Path string `path:"path"`
	Body []byte
}

type FileInput struct {
	Path string `path:"path" doc:"Where the file is."`
}

type RawOutput struct {
	ContentType string `header:"Content-Type"`
	Body        []byte
}

type FormInput struct {
	Body struct {
		Title  string                  `form:"title" required:"true" maxLength:"40"`
		Count  int                     `form:"count" default:"1"`
		File   *multipart.FileHeader   `form:"file" required:"true"`
		Extras []*multipart.FileHeader `form:"extras"`
	}
}

type URLFormInput struct {
	Body struct {
		Name string   `form:"name" required:"true"`
		Tags []string `form:"tag"`
	}
}

type Empty struct{}

func handler[I, O any](context.Context, *I) (*O, error) { return nil, nil }

// ---- The documents ----

var goldens = []struct {
	name  string
	build func(r *vane.Router) openapi.Config
}{
	{"keywords", func(r *vane.Router) openapi.Config {
		vane.Put(r, "/keywords/{id}", handler[KeywordsInput, KeywordsOutput],
			vane.ID("putKeywords"), vane.Summary("Every schema keyword"), vane.Tags("schemas"))
		vane.Post(r, "/trees", handler[struct{ Body Tree }, Tree],
			vane.ID("postTree"), vane.Tags("schemas"))
		vane.Post(r, "/carts", handler[struct{ Body Cart }, Page[shop.Item]],
			vane.ID("postCart"), vane.Tags("schemas"), vane.Status(201))
		return openapi.Config{Info: openapi.Info{Title: "Schema keywords", Version: "1.0.0"}}
	}},
	{"operations", func(r *vane.Router) openapi.Config {
		v1 := r.Group("/v1")
		vane.Get(v1, "/orgs/{org}/items", handler[SearchInput, SearchOutput], vane.ID("searchItems"), vane.Summary("Search items"),
			vane.Description("Parameters from every source."), vane.Tags("items"),
			vane.Responds(404, "No such organisation."), vane.Extension("x-rate-limit", 100))
		vane.Get(v1, "/files/{path...}", handler[FileInput, RawOutput], vane.ID("getFile"), vane.Tags("files"))
		vane.Put(v1, "/files/{path...}", handler[RawInput, Empty], vane.ID("putFile"), vane.Tags("files"), vane.Status(204),
			vane.Security("apiKey"), vane.Security("oauth", "files:write")) // either
		vane.Post(v1, "/uploads", handler[FormInput, Empty], vane.ID("upload"), vane.Tags("files"), vane.Status(204))
		vane.Post(v1, "/subscribe", handler[URLFormInput, Empty], vane.ID("subscribe"), vane.Deprecated(), vane.Status(204),
			vane.Public()) // despite the document's default
		vane.Get(v1, "/internal", handler[Empty, Empty], vane.Hidden())
		vane.Get(r, "/health", handler[Empty, string])
		return openapi.Config{
			Info: openapi.Info{Title: "Operations", Version: "2.1.0", Summary: "Parameters, bodies, responses",
				License: &openapi.License{Name: "MIT", Identifier: "MIT"}},
			Servers: []*openapi.Server{{URL: "https://api.example.com", Description: "production"}},
			SecuritySchemes: map[string]*openapi.SecurityScheme{
				"apiKey": openapi.APIKeyAuth("header", "X-API-Key"),
				"bearer": openapi.BearerAuth("JWT"),
				"oauth": {Type: "oauth2", Flows: &openapi.OAuthFlows{ClientCredentials: &openapi.OAuthFlow{
					TokenURL: "https://auth.example.com/token", Scopes: map[string]string{"files:write": "write files"}}}},
			},
			Security: []openapi.SecurityRequirement{{"bearer": {}}},
			Tags:     []*openapi.Tag{{Name: "items", Description: "Things to search."}},
			Edit: []func(*openapi.Document) error{func(d *openapi.Document) error {
				d.Extensions = openapi.Extensions{"x-generator": "vane golden test"}
				d.Servers = append(d.Servers, &openapi.Server{URL: "/"})
				return nil
			}},
		}
	}},
}

func TestGoldenDocuments(t *testing.T) {
	toValidate := map[string][]byte{}
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			r := vane.New()
			cfg := g.build(r)
			doc, err := vane.OpenAPI(r, cfg)
			if err != nil {
				t.Fatal(err)
			}
			j, err := doc.JSON()
			if err != nil {
				t.Fatal(err)
			}
			y, err := doc.YAML()
			if err != nil {
				t.Fatal(err)
			}
			j30, err := doc.JSON30()
			if err != nil {
				t.Fatal(err)
			}
			y30, err := doc.YAML30()
			if err != nil {
				t.Fatal(err)
			}
			for name, b := range map[string][]byte{
				".json": j, ".yaml": y, "-3.0.json": j30, "-3.0.yaml": y30,
			} {
				checkGolden(t, g.name+name, b)
				toValidate[g.name+name] = b
			}
		})
	}
	if !t.Failed() {
		oasvalidate.Validate(t, toValidate)
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it, then review it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; the document generated now is:\n%s\n"+
			"(if the change is intended: go test ./openapi -run Golden -update, and review the diff)", path, firstDiff(want, got))
	}
}

// firstDiff shows the lines around the first difference.
func firstDiff(want, got []byte) string {
	wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		if i >= len(wl) || i >= len(gl) || !bytes.Equal(wl[i], gl[i]) {
			var b bytes.Buffer
			for j := max(0, i-3); j < min(len(gl), i+4); j++ {
				mark := "  "
				if j == i {
					mark = "> "
				}
				b.WriteString(mark)
				b.Write(gl[j])
				b.WriteByte('\n')
			}
			if i < len(wl) {
				b.WriteString("golden line: ")
				b.Write(wl[i])
			}
			return b.String()
		}
	}
	return ""
}

// Two packages' types of the same name get the same component names
// whichever is registered first.
func TestComponentNamesDoNotDependOnOrder(t *testing.T) {
	shopFirst := func(r *vane.Router) {
		vane.Post(r, "/products", handler[struct{ Body shop.Item }, shop.Item])
		vane.Post(r, "/invoices", handler[struct{ Body billing.Item }, billing.Item])
	}
	billingFirst := func(r *vane.Router) {
		vane.Post(r, "/invoices", handler[struct{ Body billing.Item }, billing.Item])
		vane.Post(r, "/products", handler[struct{ Body shop.Item }, shop.Item])
	}
	var docs [][]byte
	for _, register := range []func(*vane.Router){shopFirst, billingFirst} {
		r := vane.New()
		register(r)
		doc, err := vane.OpenAPI(r, openapi.Config{})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"ShopItem", "BillingItem"} {
			if doc.Components.Schemas[name] == nil {
				t.Errorf("no component %s among %v", name, keysOf(doc.Components.Schemas))
			}
		}
		j, err := doc.JSON()
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, j)
	}
	if !bytes.Equal(docs[0], docs[1]) {
		t.Errorf("the documents depend on the order of registration:\n%s", firstDiff(docs[0], docs[1]))
	}
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
