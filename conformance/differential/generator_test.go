package differential

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// generator makes JSON instances from the document's schemas: values that
// are usually valid, and mutations of them that often are not. Which they
// are is for the validator to say, not the generator: it only needs to
// reach both verdicts, near every keyword's edges.
type generator struct {
	doc     map[string]any
	rng     *rand.Rand
	formats map[string][]string // strings from the JSON-Schema-Test-Suite, by format
}

const maxDepth = 6

func (g *generator) resolve(s any) map[string]any {
	m, _ := s.(map[string]any)
	for i := 0; m != nil && i < 10; i++ {
		ref, ok := m["$ref"].(string)
		if !ok {
			break
		}
		var cur any = g.doc
		for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
			cm, _ := cur.(map[string]any)
			cur = cm[tok]
		}
		next, _ := cur.(map[string]any)
		// Keep the siblings of $ref: they apply too.
		merged := map[string]any{}
		for k, v := range next {
			merged[k] = v
		}
		for k, v := range m {
			if k != "$ref" {
				merged[k] = v
			}
		}
		m = merged
	}
	return m
}

func num(m map[string]any, key string) (float64, bool) {
	f, ok := m[key].(float64)
	return f, ok
}

func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

func (g *generator) pick(list []any) any { return list[g.rng.IntN(len(list))] }

// types returns the schema's type names.
func types(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// value generates an instance of schema s.
func (g *generator) value(s any, depth int) any {
	if b, ok := s.(bool); ok {
		if b {
			return g.scalar()
		}
		return nil
	}
	m := g.resolve(s)
	if m == nil {
		return g.scalar()
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return g.pick(e)
	}
	if ex, ok := m["examples"].([]any); ok && len(ex) > 0 && m["pattern"] != nil {
		return g.pick(ex)
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if list, ok := m[key].([]any); ok && len(list) > 0 {
			return g.value(g.pick(list), depth+1)
		}
	}
	if all, ok := m["allOf"].([]any); ok && len(all) > 0 {
		merged := map[string]any{}
		for _, part := range all {
			if v, ok := g.value(part, depth+1).(map[string]any); ok {
				for k, x := range v {
					merged[k] = x
				}
			}
		}
		if v, ok := g.value(withoutKey(m, "allOf"), depth+1).(map[string]any); ok {
			for k, x := range v {
				merged[k] = x
			}
		}
		return merged
	}
	ts := types(m)
	if len(ts) == 0 {
		if m["properties"] != nil {
			ts = []string{"object"}
		} else {
			return g.scalar()
		}
	}
	t := ts[g.rng.IntN(len(ts))]
	if t == "null" && len(ts) > 1 && g.chance(0.7) {
		t = ts[0]
		if t == "null" {
			t = ts[1]
		}
	}
	switch t {
	case "null":
		return nil
	case "boolean":
		return g.chance(0.5)
	case "integer", "number":
		return g.number(m, t == "integer")
	case "string":
		return g.str(m)
	case "array":
		return g.array(m, depth)
	case "object":
		return g.object(m, depth)
	}
	return g.scalar()
}

func withoutKey(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

func (g *generator) scalar() any {
	switch g.rng.IntN(4) {
	case 0:
		return "x"
	case 1:
		return float64(g.rng.IntN(10))
	case 2:
		return true
	}
	return nil
}

func (g *generator) number(m map[string]any, integer bool) any {
	lo, hi := -1000.0, 1000.0
	if v, ok := num(m, "minimum"); ok {
		lo = v
	}
	if v, ok := num(m, "exclusiveMinimum"); ok {
		lo = v + 1
	}
	if v, ok := num(m, "maximum"); ok {
		hi = v
	}
	if v, ok := num(m, "exclusiveMaximum"); ok {
		hi = v - 1
	}
	if hi < lo {
		hi = lo
	}
	var f float64
	switch g.rng.IntN(4) {
	case 0:
		f = lo
	case 1:
		f = hi
	default:
		f = lo + g.rng.Float64()*(hi-lo)
	}
	if mult, ok := num(m, "multipleOf"); ok && mult > 0 {
		f = math.Round(f/mult) * mult
	}
	if integer {
		f = math.Round(f)
	}
	return f
}

func (g *generator) str(m map[string]any) any {
	if f, ok := m["format"].(string); ok {
		if list := g.formats[f]; len(list) > 0 {
			return list[g.rng.IntN(len(list))]
		}
	}
	n := g.rng.IntN(8)
	if v, ok := num(m, "minLength"); ok && g.chance(0.5) {
		n = int(v)
	}
	if v, ok := num(m, "maxLength"); ok && (n > int(v) || g.chance(0.3)) {
		n = int(v)
	}
	if n < 0 {
		n = 0
	}
	runes := []rune("abcxyzé日")
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune(runes[g.rng.IntN(len(runes))])
	}
	return b.String()
}

func (g *generator) array(m map[string]any, depth int) any {
	n := g.rng.IntN(4)
	if v, ok := num(m, "minItems"); ok && n < int(v) {
		n = int(v)
	}
	if v, ok := num(m, "maxItems"); ok && n > int(v) {
		n = int(v)
	}
	if depth > maxDepth {
		n = 0
	}
	out := make([]any, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, g.value(m["items"], depth+1))
	}
	return out
}

func (g *generator) object(m map[string]any, depth int) any {
	props, _ := m["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	out := map[string]any{}
	for _, k := range names {
		if required[k] || (depth <= maxDepth && g.chance(0.6)) {
			out[k] = g.value(props[k], depth+1)
		}
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok && len(props) == 0 && depth <= maxDepth {
		for i := g.rng.IntN(3); i > 0; i-- {
			out["k"+string(rune('a'+i))] = g.value(ap, depth+1)
		}
	}
	if deps, ok := m["dependentRequired"].(map[string]any); ok && g.chance(0.5) {
		for k := range deps {
			if g.chance(0.5) {
				out[k] = "x"
			}
		}
	}
	return out
}

// mutate changes one place of v, chosen at random along a path into it.
func (g *generator) mutate(v any, s any, depth int) any {
	m := g.resolve(s)
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 && depth < maxDepth && g.chance(0.6) {
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			k := keys[g.rng.IntN(len(keys))]
			var sub any
			if props, ok := m["properties"].(map[string]any); ok {
				sub = props[k]
			}
			if sub == nil && m != nil {
				sub = m["additionalProperties"]
			}
			x[k] = g.mutate(x[k], sub, depth+1)
			return x
		}
		switch g.rng.IntN(3) {
		case 0: // drop a member
			for k := range x {
				delete(x, k)
				break
			}
		case 1: // an unknown member
			x["zz_unknown"] = g.scalar()
		default:
			return g.other(v)
		}
		return x
	case []any:
		if len(x) > 0 && depth < maxDepth && g.chance(0.6) {
			i := g.rng.IntN(len(x))
			var items any
			if m != nil {
				items = m["items"]
			}
			x[i] = g.mutate(x[i], items, depth+1)
			return x
		}
		switch g.rng.IntN(3) {
		case 0:
			if len(x) > 0 {
				return append(x, x[0]) // a duplicate, one more item
			}
			return append(x, g.scalar())
		case 1:
			if len(x) > 0 {
				return x[:len(x)-1]
			}
		}
		return g.other(v)
	case float64:
		switch g.rng.IntN(4) {
		case 0:
			return x + 1
		case 1:
			return x - 1
		case 2:
			return x + 0.5
		}
		return g.other(v)
	case string:
		switch g.rng.IntN(3) {
		case 0:
			return x + "é"
		case 1:
			if len(x) > 0 {
				return x[:len(x)-1]
			}
		}
		return g.other(v)
	}
	return g.other(v)
}

// other returns a value of another JSON type than v.
func (g *generator) other(v any) any {
	choices := []any{nil, true, 7.0, "s", []any{}, map[string]any{}}
	for {
		c := choices[g.rng.IntN(len(choices))]
		if typeName(c) != typeName(v) {
			return c
		}
	}
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}
