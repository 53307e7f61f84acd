package differential

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vane-http/vane"
)

type queryIn struct {
	Limit  int      `query:"limit" minimum:"1" maximum:"100"`
	Page   *int     `query:"page" exclusiveMinimum:"0"`
	Ratio  float64  `query:"ratio" multipleOf:"0.25"`
	Sort   string   `query:"sort" enum:"asc,desc"`
	Name   string   `query:"name" minLength:"2" maxLength:"4" pattern:"^[a-z]+$"`
	Day    string   `query:"day" format:"date"`
	Mail   string   `query:"mail" format:"email"`
	Tags   []string `query:"tag" maxItems:"3" uniqueItems:"true" maxLength:"3"`
	IDs    []int    `query:"id" minItems:"1" minimum:"0" required:"true"`
	Strict bool     `query:"strict"`
	Token  string   `header:"X-Token" minLength:"3"`
}

// TestDifferentialParameters sends generated and mutated query and header
// parameters, each read from its text as OpenAPI's form style defines
// (a repeated key per item), and requires vane's verdict to equal the
// independent validator's on an object of the parameters' published
// schemas.
func TestDifferentialParameters(t *testing.T) {
	r := vane.New()
	vane.Get(r, "/q", ok[queryIn])
	vane.Docs(r, vane.DocsConfig{})
	docJSON := serveGet(t, r, "/openapi.json")
	var doc map[string]any
	if err := json.Unmarshal(docJSON, &doc); err != nil {
		t.Fatal(err)
	}
	params := doc["paths"].(map[string]any)["/q"].(map[string]any)["get"].(map[string]any)["parameters"].([]any)
	props, required := map[string]any{}, []any{}
	for i, p := range params {
		pm := p.(map[string]any)
		name := pm["in"].(string) + "." + pm["name"].(string)
		props[name] = map[string]any{"$ref": fmt.Sprintf("vane.json#/paths/~1q/get/parameters/%d/schema", i)}
		if req, _ := pm["required"].(bool); req {
			required = append(required, name)
		}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	docAny, _ := jsonschema.UnmarshalJSON(bytes.NewReader(docJSON))
	if err := c.AddResource("vane.json", docAny); err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("params.json", map[string]any{"type": "object", "properties": props, "required": required}); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("params.json")
	if err != nil {
		t.Fatal(err)
	}
	g := &generator{doc: doc, rng: rand.New(rand.NewPCG(2, 3)), formats: suiteFormats(t)}
	const n = 2000
	valid, disagreements := 0, 0
	for i := 0; i < n; i++ {
		q, hdr := url.Values{}, map[string]string{}
		inst := map[string]any{}
		names := make([]string, 0, len(params))
		for _, p := range params {
			pm := p.(map[string]any)
			names = append(names, pm["in"].(string)+"."+pm["name"].(string))
		}
		sort.Strings(names)
		for j, name := range names {
			var ps map[string]any
			for _, p := range params {
				pm := p.(map[string]any)
				if pm["in"].(string)+"."+pm["name"].(string) == name {
					ps = pm
				}
			}
			req, _ := ps["required"].(bool)
			if !req && g.chance(0.4) {
				continue
			}
			v := g.value(ps["schema"], 1)
			if i%2 == 1 && g.rng.IntN(len(names)) == j {
				v = g.mutate(v, ps["schema"], 1)
			}
			in, key := ps["in"].(string), ps["name"].(string)
			texts := toTexts(v)
			if texts == nil {
				continue // an object or null has no form text: left out
			}
			if len(texts) != 1 && g.resolve(ps["schema"])["type"] != "array" {
				continue // a scalar parameter is sent once; what a repeated one means, the document does not say
			}
			if in == "header" {
				if len(texts) != 1 || strings.ContainsAny(texts[0], "\r\n") || texts[0] == "" {
					continue
				}
				hdr[key] = texts[0]
			} else {
				for _, x := range texts {
					q.Add(key, x)
				}
			}
			inst[name] = fromTexts(texts, g.resolve(ps["schema"]), g)
		}
		req := httptest.NewRequest("GET", "/q?"+q.Encode(), nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		got := !refusal(w.Code)
		want := s.Validate(inst) == nil
		if want {
			valid++
		}
		if got != want {
			disagreements++
			if disagreements <= 20 {
				t.Errorf("?%s %v: vane %d %s, the validator says valid=%v (%v)", q.Encode(), hdr, w.Code, w.Body, want, s.Validate(inst))
			}
		}
	}
	t.Logf("%d parameter sets of %d parameters: %d valid, %d invalid by the validator; %d disagreements", n, len(params), valid, n-valid, disagreements)
	if valid < n/5 || n-valid < n/5 {
		t.Errorf("%d valid of %d: the generator should give both verdicts at least a fifth of the time", valid, n)
	}
}

// toTexts writes a JSON value as form text: a scalar as one value, an
// array as one value per item; nil for what has no text.
func toTexts(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case bool:
		return []string{strconv.FormatBool(x)}
	case float64:
		return []string{strconv.FormatFloat(x, 'f', -1, 64)}
	case []any:
		out := []string{}
		for _, it := range x {
			t := toTexts(it)
			if len(t) != 1 {
				return nil
			}
			out = append(out, t[0])
		}
		return out
	}
	return nil
}

// fromTexts reads form text as the schema's type, as an OpenAPI client
// or server would: a number where it parses as one, true or false for a
// boolean, otherwise the string itself.
func fromTexts(texts []string, s map[string]any, g *generator) any {
	if s != nil && s["type"] == "array" {
		items := g.resolve(s["items"])
		out := make([]any, len(texts))
		for i, x := range texts {
			out[i] = fromText(x, items)
		}
		return out
	}
	if len(texts) != 1 {
		out := make([]any, len(texts))
		for i, x := range texts {
			out[i] = x
		}
		return out
	}
	return fromText(texts[0], s)
}

func fromText(x string, s map[string]any) any {
	for _, t := range types(s) {
		switch t {
		case "integer", "number":
			if f, err := strconv.ParseFloat(x, 64); err == nil && !strings.ContainsAny(x, "eEinxX_") {
				return f
			}
		case "boolean":
			if b, err := strconv.ParseBool(x); err == nil && (x == "true" || x == "false") {
				return b
			}
		}
	}
	return x
}
