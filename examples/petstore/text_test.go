package main

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// The strings a pet stores are one line of text: no control characters,
// line separators or bidirectional overrides, and a name or a tag has a
// visible character. A create, a replacement or a patch that breaks this
// is a 422 naming the member, and stores nothing; the search and the tag
// filter refuse the same characters.
func TestStoredStringsAreOneLineOfText(t *testing.T) {
	c := startService(t, testDBs[0])
	body := func(name string, tags []string, owner string) string {
		m := map[string]any{"name": name, "species": "cat"}
		if tags != nil {
			m["tags"] = tags
		}
		if owner != "" {
			m["owner"] = owner
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	refused := []struct{ body, location string }{
		{body("Re\x00x", nil, ""), "body.name"},
		{body("Re\nx", nil, ""), "body.name"},
		{body("Rex\r", nil, ""), "body.name"},
		{body("Rex\x7f", nil, ""), "body.name"},
		{body("Rex\u0085", nil, ""), "body.name"},
		{body("Rex\u2028", nil, ""), "body.name"},
		{body("\u202excod.exe", nil, ""), "body.name"},
		{body("Rex\u202a", nil, ""), "body.name"},
		{body("\u2066Rex\u2069", nil, ""), "body.name"},
		{body(" ", nil, ""), "body.name"},
		{body("\t", nil, ""), "body.name"},
		{body("\u00a0\u3000", nil, ""), "body.name"},
		{body("\u200b", nil, ""), "body.name"},
		{body("\ufeff", nil, ""), "body.name"},
		{body("Rex", []string{"ok", "\u202egnp"}, ""), "body.tags[1]"},
		{body("Rex", []string{" "}, ""), "body.tags[0]"},
		{body("Rex", nil, "Ada\nLovelace"), "body.owner"},
		{body("Rex", nil, "Ada\u202e"), "body.owner"},
	}
	before := decode[Page[Pet]](t, c.get("/pets?total=true"), 200).Total
	for _, r := range refused {
		got := c.sendJSON("POST", "/pets", r.body, testToken)
		if got.status != 422 || !strings.Contains(string(got.body), `"location":"`+r.location+`"`) {
			t.Errorf("POST %q: %d %s, want 422 naming %s", r.body, got.status, got.body, r.location)
		}
	}
	if after := decode[Page[Pet]](t, c.get("/pets?total=true"), 200).Total; *after != *before {
		t.Errorf("%d pets after the refused creates, %d before", *after, *before)
	}
	for _, name := range []string{"Rex", "Zoë", "Ánh Dương", "O'Brien", "👩\u200d💻 Coder", "ΣΊΣΥΦΟΣ", "שלום\u200f", "a b"} {
		if got := c.sendJSON("POST", "/pets", body(name, []string{name}, name), testToken); got.status != 201 {
			t.Errorf("POST name %q: %d %s", name, got.status, got.body)
		}
	}

	if got := c.doHeaders("PUT", "/pets/1", "application/json", body("Rex\u202e", nil, "")); got.status != 422 {
		t.Errorf("PUT with an override: %d %s", got.status, got.body)
	}
	if got := c.doHeaders("PATCH", "/pets/1", "application/merge-patch+json", `{"name":"Rex\n"}`); got.status != 422 {
		t.Errorf("merge patch with a line feed: %d %s", got.status, got.body)
	}
	if got := c.doHeaders("PATCH", "/pets/1", "application/json-patch+json", `[{"op":"replace","path":"/name","value":"   "}]`); got.status != 422 {
		t.Errorf("JSON Patch to white space: %d %s", got.status, got.body)
	}
	if p := decode[Pet](t, c.get("/pets/1"), 200); p.Name != "Rex" {
		t.Errorf("pet 1 is named %q after refused writes", p.Name)
	}

	for _, query := range []string{"q=" + url.QueryEscape("a\u202eb"), "q=" + url.QueryEscape("a\u0085"), "tag=" + url.QueryEscape("a\x00")} {
		if got := c.get("/pets?" + query); got.status != 422 {
			t.Errorf("GET /pets?%s: %d %s", query, got.status, got.body)
		}
	}
}
