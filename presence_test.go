package vane

import (
	"bytes"
	"context"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/vane-http/vane/problem"
)

// A form value that was sent is checked against its rules, even when it is
// its type's zero value (count=0, name=); only a key the form did not carry
// is absent.
func TestFormValuesSentAreValidated(t *testing.T) {
	type in struct {
		Body struct {
			Name  string `form:"name" required:"true" minLength:"2"`
			Count int    `form:"count" minimum:"1"`
			Note  string `form:"note" required:"true"`
			On    bool   `form:"on" enum:"true"`
		}
	}
	r := New()
	Post(r, "/f", func(context.Context, *in) (*struct{}, error) { return &struct{}{}, nil })
	cases := []struct {
		form string
		code int
		locs string // the failures' locations, in order
	}{
		{"name=ab&note=x", 204, ""},        // count and on absent: not checked
		{"name=ab&note=&count=1", 204, ""}, // a required field sent empty is present
		{"name=ab&note=x&count=0", 422, "body.count"},
		{"name=&note=x", 422, "body.name"},          // sent empty: minLength applies
		{"name=ab&note=x&on=false", 422, "body.on"}, // false was sent: enum applies
		{"count=1", 422, "body.name body.note"},     // missing required fields
		{"note=x&count=0", 422, "body.name body.count"},
	}
	send := map[string]func(form string) (string, string){
		"urlencoded": func(form string) (string, string) { return form, "application/x-www-form-urlencoded" },
		"multipart": func(form string) (string, string) {
			var buf bytes.Buffer
			mw := multipart.NewWriter(&buf)
			for _, pair := range strings.Split(form, "&") {
				k, v, _ := strings.Cut(pair, "=")
				mw.WriteField(k, v)
			}
			mw.Close()
			return buf.String(), mw.FormDataContentType()
		},
	}
	for kind, enc := range send {
		for _, tc := range cases {
			body, ct := enc(tc.form)
			w := serve(r, "POST", "/f", body, "Content-Type", ct)
			if w.Code != tc.code {
				t.Errorf("%s %q: %d %s", kind, tc.form, w.Code, w.Body)
				continue
			}
			if tc.code == 204 {
				continue
			}
			var locs []string
			for _, e := range decodeProblem(t, w).Errors {
				locs = append(locs, e.Location)
			}
			if got := strings.Join(locs, " "); got != tc.locs {
				t.Errorf("%s %q: failures at %q, want %q: %s", kind, tc.form, got, tc.locs, w.Body)
			}
		}
	}
}

// A form field's default is a value the operation will check: one that
// breaks the field's rules is a registration error, as for parameters.
func TestFormDefaultsMustKeepTheirRules(t *testing.T) {
	type in struct {
		Body struct {
			Size int `form:"size" default:"0" minimum:"1"`
		}
	}
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "a default breaks its own rules: body.size") {
			t.Errorf("panic %q", msg)
		}
	}()
	Post(New(), "/x", func(context.Context, *in) (*struct{}, error) { return nil, nil })
}

// A JSON null is accepted exactly where the document allows it: a property
// whose schema is nullable (the nullable tag) or has no type; anywhere else
// it is a 422 at its location, required or not, pointer or not.
func TestJSONNullOnlyWhereNullable(t *testing.T) {
	type item struct {
		N int `json:"n"`
	}
	type in struct {
		Body struct {
			Count int               `json:"count,omitempty" minimum:"1"`
			Ptr   *int              `json:"ptr,omitempty"`
			Note  *string           `json:"note,omitempty" nullable:"true"`
			Tags  []string          `json:"tags,omitempty"`
			Meta  map[string]int    `json:"meta,omitempty"`
			Item  *item             `json:"item,omitempty"`
			Items []*item           `json:"items,omitempty"`
			Any   any               `json:"any,omitempty"`
			Extra map[string]string `json:"extra,omitempty" nullable:"true"`
		}
	}
	r := New()
	Post(r, "/n", func(context.Context, *in) (*struct{}, error) { return &struct{}{}, nil })
	cases := []struct {
		body string
		want string // "" for 200, else "location: message"
	}{
		{`{}`, ""},
		{`{"count":2,"ptr":0,"note":"x","tags":["a"],"meta":{"a":1},"item":{"n":1},"items":[{"n":1}],"any":1}`, ""},
		{`{"note":null,"any":null,"extra":null}`, ""},
		{`{"count":null}`, "body.count: expected integer, not null"},
		{`{"COUNT":null}`, ""}, // keys match exactly: COUNT is not count, and is ignored
		{`{"ptr":null}`, "body.ptr: expected integer, not null"},
		{`{"tags":null}`, "body.tags: expected array, not null"},
		{`{"tags":["a",null]}`, "body.tags[1]: expected string, not null"},
		{`{"meta":{"k":null}}`, "body.meta.k: expected integer, not null"},
		{`{"item":null}`, "body.item: expected object, not null"},
		{`{"item":{"n":null}}`, "body.item.n: expected integer, not null"},
		{`{"items":[null]}`, "body.items[0]: expected object, not null"},
		{`null`, "body: expected object, not null"},
	}
	for _, tc := range cases {
		failuresAre(t, r, "/n", tc.body, tc.want, func(e problem.FieldError) string { return e.Location + ": " + e.Message })
	}
	// The document says the same: only note, any and extra admit null.
	body := r.Operations()[0].RequestBody.Content[0].Schema
	body = r.Schemas().Resolve(body)
	for name, s := range body.Properties {
		nullOK := s.Nullable || (s.Type == "" && s.Ref == "")
		if want := name == "note" || name == "any" || name == "extra"; nullOK != want {
			t.Errorf("document: property %s admits null: %v", name, nullOK)
		}
	}
}

// A parameter the request carried is checked at its zero value too; one it
// did not carry is not.
func TestParametersSentAreValidatedAtZero(t *testing.T) {
	type in struct {
		Page  int    `query:"page" minimum:"1"`
		Size  int    `header:"X-Size" minimum:"1"`
		Level int    `cookie:"level" minimum:"1"`
		Name  string `query:"name" minLength:"1"`
	}
	r := New()
	Get(r, "/p", func(context.Context, *in) (*struct{}, error) { return &struct{}{}, nil })
	if w := serve(r, "GET", "/p", ""); w.Code != 204 {
		t.Errorf("absent: %d %s", w.Code, w.Body)
	}
	for _, tc := range []struct {
		target, header, value, loc string
	}{
		{"/p?page=0", "", "", "query.page"},
		{"/p?name=", "", "", "query.name"},
		{"/p", "X-Size", "0", "header.X-Size"},
		{"/p", "Cookie", "level=0", "cookie.level"},
	} {
		var h []string
		if tc.header != "" {
			h = []string{tc.header, tc.value}
		}
		w := serve(r, "GET", tc.target, "", h...)
		if w.Code != 422 {
			t.Errorf("%s %s: %d %s", tc.target, tc.value, w.Code, w.Body)
			continue
		}
		if p := decodeProblem(t, w); len(p.Errors) != 1 || p.Errors[0].Location != tc.loc {
			t.Errorf("%s %s: %s", tc.target, tc.value, w.Body)
		}
	}
}

// A JSON property that was sent is checked against its rules even at its
// zero value ({"count":0} for an omitempty count, "" for a name, false, an
// empty list), at any depth: nested objects, arrays of objects, pointers,
// embedded structs. Only a property absent from the JSON skips its rules.
func TestJSONZeroValuesSentAreValidated(t *testing.T) {
	type leaf struct {
		Count int    `json:"count,omitempty" minimum:"1"`
		Sku   string `json:"sku"`
	}
	type group struct {
		Items []leaf `json:"items,omitempty"`
	}
	type Base struct {
		Level int `json:"level,omitempty" minimum:"1"`
	}
	type in struct {
		Body struct {
			*Base
			Count  int      `json:"count,omitempty" minimum:"1"`
			Name   string   `json:"name,omitempty" minLength:"2"`
			On     bool     `json:"on,omitempty" enum:"true"`
			Tags   []string `json:"tags,omitempty" minItems:"1"`
			Ratio  float64  `json:"ratio,omitempty" exclusiveMinimum:"0"`
			Nested *leaf    `json:"nested,omitempty"`
			Items  []leaf   `json:"items,omitempty"`
			Ptrs   []*leaf  `json:"ptrs,omitempty"`
			Fixed  [3]leaf  `json:"fixed"`
			Groups []group  `json:"groups,omitempty"`
		}
	}
	r := New()
	Post(r, "/z", func(context.Context, *in) (*struct{}, error) { return &struct{}{}, nil })
	cases := []struct {
		body string
		want string // "" for 200, else the failures' locations in order
	}{
		{`{"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, ""},
		{`{"count":1,"name":"ab","on":true,"tags":["a"],"ratio":0.5,"level":2,"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, ""},
		{`{"nested":{"sku":"a"},"items":[{"sku":"a"},{"sku":"b","count":3}],"fixed":[{"sku":"a"},{"sku":"b"},{"sku":"c"}]}`, ""},
		{`{"count":0,"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, "body.count"},
		{`{"COUNT":0,"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, ""},              // keys match exactly: COUNT is not count, and is ignored
		{`{"count":null,"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, "body.count"}, // reported once, as a null
		{`{"name":"","fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, "body.name"},
		{`{"on":false,"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, "body.on"},
		{`{"tags":[],"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, "body.tags"},
		{`{"ratio":0.0,"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, "body.ratio"},
		{`{"level":0,"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, "body.level"},
		{`{"count":0,"name":"","on":false,"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, "body.count body.name body.on"},
		{`{"nested":{"sku":"a","count":0},"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, "body.nested.count"},
		{`{"items":[{"sku":"a","count":1},{"sku":"b"},{"sku":"c","count":0}],"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, "body.items[2].count"},
		{`{"ptrs":[{"sku":"a","count":2},{"sku":"b","count":0}],"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, "body.ptrs[1].count"},
		{`{"fixed":[{"sku":"a"},{"sku":"b","count":0},{"sku":"c","count":0}]}`, "body.fixed[1].count body.fixed[2].count"},
		{`{"groups":[{"items":[{"sku":"a"}]},{"items":[{"sku":"a","count":0}]}],"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, "body.groups[1].items[0].count"},
		{`{"groups":[{"items":[]}],"fixed":[{"sku":"a"},{"sku":"a"},{"sku":"a"}]}`, ""},
	}
	for _, tc := range cases {
		failuresAre(t, r, "/z", tc.body, tc.want, func(e problem.FieldError) string { return e.Location })
	}
}

// failuresAre posts body to path as JSON and checks the answer: 200 when
// want is empty, else 422 with each failure, as show renders it, joined by
// spaces, equal to want.
func failuresAre(t *testing.T, r *Router, path, body, want string, show func(problem.FieldError) string) {
	t.Helper()
	w := serve(r, "POST", path, body, "Content-Type", "application/json")
	if want == "" {
		if w.Code != 204 {
			t.Errorf("%s: %d %s", body, w.Code, w.Body)
		}
		return
	}
	if w.Code != 422 {
		t.Errorf("%s: %d %s, want failures %q", body, w.Code, w.Body, want)
		return
	}
	var got []string
	for _, e := range decodeProblem(t, w).Errors {
		got = append(got, show(e))
	}
	if g := strings.Join(got, " "); g != want {
		t.Errorf("%s: failures %q, want %q: %s", body, g, want, w.Body)
	}
}
