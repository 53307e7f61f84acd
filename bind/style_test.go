package bind

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/vane-http/vane/problem"
)

type styles struct {
	Tags   []string          `query:"tag"`
	IDs    []int             `query:"ids" explode:"false"`
	Words  []string          `query:"words" explode:"false"`
	Space  []string          `query:"space" style:"spaceDelimited"`
	Pipe   []string          `query:"pipe" style:"pipeDelimited"`
	Filter map[string]string `query:"filter"`
	Ages   map[string]int    `query:"age"`
	Page   *paging           `query:"page"`
	Sort   []string          `query:"sort" default:"name,id"`
	Accept []string          `header:"Accept"`
}

type paging struct {
	Size   int    `json:"size,omitempty" default:"20"`
	Cursor string `json:"cursor,omitempty"`
	Order  string `json:"order"`
}

func bindQuery(t *testing.T, target string, header ...string) (styles, *problem.Details) {
	t.Helper()
	b := compile(t, reflect.TypeFor[styles](), "GET", "/")
	req := httptest.NewRequest("GET", target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	var v styles
	var st State
	prob := b.Bind(req, nil, &v, &st)
	return v, prob
}

// Lists are bound as their style and explode say, and only so.
func TestQueryListStyles(t *testing.T) {
	cases := []struct {
		query string
		field func(styles) any
		want  any
	}{
		{"tag=a&tag=b", func(s styles) any { return s.Tags }, []string{"a", "b"}},
		{"tag=a,b", func(s styles) any { return s.Tags }, []string{"a,b"}},
		{"tag=a%2Cb&tag=c", func(s styles) any { return s.Tags }, []string{"a,b", "c"}},
		{"tag=", func(s styles) any { return s.Tags }, []string{""}},
		{"tag=a+b", func(s styles) any { return s.Tags }, []string{"a b"}},
		{"ids=1,2,3", func(s styles) any { return s.IDs }, []int{1, 2, 3}},
		{"ids=1,2&ids=3", func(s styles) any { return s.IDs }, []int{1, 2, 3}},
		{"ids=", func(s styles) any { return s.IDs }, []int(nil)},
		{"words=a%2Cb,c", func(s styles) any { return s.Words }, []string{"a,b", "c"}},
		{"words=a,,b", func(s styles) any { return s.Words }, []string{"a", "", "b"}},
		{"space=a%20b+c", func(s styles) any { return s.Space }, []string{"a", "b", "c"}},
		{"pipe=a|b%7Cc", func(s styles) any { return s.Pipe }, []string{"a", "b", "c"}},
		{"", func(s styles) any { return s.Sort }, []string{"name", "id"}},
		{"sort=x,y", func(s styles) any { return s.Sort }, []string{"x,y"}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			v, prob := bindQuery(t, "/?"+c.query)
			if prob != nil {
				t.Fatal(prob)
			}
			if got := c.field(v); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
		})
	}
}

func TestHeaderListsAreSimple(t *testing.T) {
	v, prob := bindQuery(t, "/", "Accept", "a/b, c/d", "Accept", "e/f")
	if prob != nil || !reflect.DeepEqual(v.Accept, []string{"a/b", "c/d", "e/f"}) {
		t.Errorf("%v %#v", prob, v.Accept)
	}
}

func TestDeepObjects(t *testing.T) {
	cases := []struct {
		name, query string
		check       func(t *testing.T, v styles)
		errs        map[string]string
	}{
		{"map", "filter[color]=red&filter%5Bsize%5D=m&filter[color]=blue&filter[]=e", func(t *testing.T, v styles) {
			if !reflect.DeepEqual(v.Filter, map[string]string{"color": "red", "size": "m", "": "e"}) {
				t.Errorf("%v", v.Filter)
			}
		}, nil},
		{"map of ints", "age[ann]=3&age[bob]=4", func(t *testing.T, v styles) {
			if !reflect.DeepEqual(v.Ages, map[string]int{"ann": 3, "bob": 4}) {
				t.Errorf("%v", v.Ages)
			}
		}, nil},
		{"absent", "other=1&filter=x&filterx[a]=1", func(t *testing.T, v styles) {
			if v.Filter != nil || v.Page != nil {
				t.Errorf("%v %v", v.Filter, v.Page)
			}
		}, nil},
		{"struct with default", "page[order]=asc&page[cursor]=abc&page[other]=x", func(t *testing.T, v styles) {
			if v.Page == nil || *v.Page != (paging{Size: 20, Cursor: "abc", Order: "asc"}) {
				t.Errorf("%+v", v.Page)
			}
		}, nil},
		{"struct", "page[order]=desc&page[size]=5&page[size]=6", func(t *testing.T, v styles) {
			if v.Page == nil || *v.Page != (paging{Size: 5, Order: "desc"}) {
				t.Errorf("%+v", v.Page)
			}
		}, nil},
		{"bad values", "age[ann]=x&page[size]=big&filter[a][b]=1", nil, map[string]string{
			"query.age[ann]":     "expected an integer",
			"query.page[size]":   "expected an integer",
			"query.page[order]":  "required property is missing",
			"query.filter[a][b]": "a deepObject parameter has one level of keys: name[key]=value",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, prob := bindQuery(t, "/?"+c.query)
			if c.errs == nil {
				if prob != nil {
					t.Fatal(prob)
				}
				c.check(t, v)
				return
			}
			if prob == nil || prob.Status != 422 {
				t.Fatalf("got %v", prob)
			}
			got := map[string]string{}
			for _, e := range prob.Errors {
				got[e.Location] = e.Message
			}
			if !reflect.DeepEqual(got, c.errs) {
				t.Errorf("got %v\nwant %v", got, c.errs)
			}
		})
	}
}

// A parameter is present when it was sent and every value parsed: only
// then do its rules run (validate.ValidateInput).
func TestPresenceOfListsAndObjects(t *testing.T) {
	b := compile(t, reflect.TypeFor[styles](), "GET", "/")
	bit := func(name string) uint64 {
		for i, p := range b.Parameters {
			if p.Name == name {
				return 1 << i
			}
		}
		t.Fatalf("no %s", name)
		return 0
	}
	cases := []struct {
		query   string
		present []string
		absent  []string
	}{
		{"tag=", []string{"tag", "sort"}, []string{"ids", "filter", "page"}},
		{"ids=", []string{"ids"}, []string{"tag"}},
		{"ids=1,x", nil, []string{"ids"}},
		{"filter[a]=1&page[order]=x", []string{"filter", "page"}, nil},
		{"page[size]=1", nil, []string{"page"}},  // order is required
		{"page[order]=1", []string{"page"}, nil}, // size has a default
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			var v styles
			var st State
			b.Bind(httptest.NewRequest("GET", "/?"+c.query, nil), nil, &v, &st)
			for _, n := range c.present {
				if st.Present&bit(n) == 0 {
					t.Errorf("%s not present", n)
				}
			}
			for _, n := range c.absent {
				if st.Present&bit(n) != 0 {
					t.Errorf("%s present", n)
				}
			}
		})
	}
}

func TestStylesAreDescribed(t *testing.T) {
	b := compile(t, reflect.TypeFor[styles](), "GET", "/")
	want := map[string]string{
		"tag": "form true", "ids": "form false", "words": "form false", "space": "spaceDelimited false",
		"pipe": "pipeDelimited false", "filter": "deepObject true", "age": "deepObject true", "page": "deepObject true",
		"sort": "form true", "Accept": "simple false",
	}
	for _, p := range b.Parameters {
		t.Run(p.Name, func(t *testing.T) {
			got := p.Style
			if p.Explode != nil {
				got += map[bool]string{true: " true", false: " false"}[*p.Explode]
			}
			if got != want[p.Name] {
				t.Errorf("style %q, want %q", got, want[p.Name])
			}
		})
	}
	page := b.Parameters[7].Schema
	if page == nil || (page.Ref == "" && page.Type != "object") {
		t.Errorf("page schema: %+v", page)
	}
}

func TestStylesRefusedAtCompile(t *testing.T) {
	type (
		styleOnScalar struct {
			N int `query:"n" style:"form"`
		}
		spaceExploded struct {
			S []string `query:"s" style:"spaceDelimited" explode:"true"`
		}
		unknownStyle struct {
			S []string `query:"s" style:"matrix"`
		}
		badExplode struct {
			S []string `query:"s" explode:"yes"`
		}
		headerForm struct {
			S []string `header:"X-S" style:"form"`
		}
		deepForm struct {
			M map[string]string `query:"m" style:"form"`
		}
		nestedMap struct {
			M map[string][]string `query:"m"`
		}
		nestedStruct struct {
			P struct {
				Inner struct{ A int } `json:"inner"`
			} `query:"p"`
		}
		intKeys struct {
			M map[int]string `query:"m"`
		}
		cookieInHeader struct {
			C http.Cookie `header:"Cookie"`
		}
		cookieInQuery struct {
			C *http.Cookie `query:"c"`
		}
		pathSlice struct {
			S []string `path:"s"`
		}
		cookieSlice struct {
			S []string `cookie:"s"`
		}
		mapDefault struct {
			M map[string]string `query:"m" default:"a"`
		}
	)
	cases := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[styleOnScalar](), "style and explode tags apply to lists and objects"},
		{reflect.TypeFor[spaceExploded](), "style spaceDelimited is explode false"},
		{reflect.TypeFor[unknownStyle](), `style "matrix"`},
		{reflect.TypeFor[badExplode](), `explode "yes"`},
		{reflect.TypeFor[headerForm](), "a header list is style simple"},
		{reflect.TypeFor[deepForm](), "style deepObject"},
		{reflect.TypeFor[nestedMap](), "deepObject has no nested objects or lists"},
		{reflect.TypeFor[nestedStruct](), "property inner of deepObject parameter p"},
		{reflect.TypeFor[intKeys](), "keys of a deepObject map must be strings"},
		{reflect.TypeFor[cookieInHeader](), "is bound from a cookie"},
		{reflect.TypeFor[cookieInQuery](), "is bound from a cookie"},
		{reflect.TypeFor[pathSlice](), "a path parameter cannot be a slice"},
		{reflect.TypeFor[cookieSlice](), "a cookie parameter cannot be a slice"},
		{reflect.TypeFor[mapDefault](), "default"},
	}
	for _, c := range cases {
		t.Run(c.typ.Name(), func(t *testing.T) {
			pattern := "/x"
			var params []string
			if c.typ == reflect.TypeFor[pathSlice]() {
				pattern, params = "/{s}", []string{"s"}
			}
			_, err := Compile(c.typ, Config{Method: "GET", Pattern: pattern, PathParams: params})
			if err == nil {
				t.Fatal("no error")
			}
			f := c.typ.Field(0)
			if msg := err.Error(); !strings.Contains(msg, c.want) || !strings.Contains(msg, c.typ.Name()+"."+f.Name) || !strings.Contains(msg, pattern) {
				t.Errorf("%q should name the type, field, pattern and say %q", msg, c.want)
			}
		})
	}
}

// More parameters and form fields than presence bits is a registration
// error naming the type, never a silent change of meaning.
func TestPresenceLimit(t *testing.T) {
	fields := func(n int, tag string) []reflect.StructField {
		var fs []reflect.StructField
		for i := range n {
			name := "F" + strings.Repeat("x", i)
			fs = append(fs, reflect.StructField{Name: name, Type: reflect.TypeFor[int](), Tag: reflect.StructTag(tag + `:"p` + name + `"`)})
		}
		return fs
	}
	withForm := func(params, form int) reflect.Type {
		fs := fields(params, "query")
		if form > 0 {
			fs = append(fs, reflect.StructField{Name: "Body", Type: reflect.StructOf(fields(form, "form"))})
		}
		return reflect.StructOf(fs)
	}
	cases := []struct {
		name         string
		params, form int
		ok           bool
	}{
		{"64 parameters", 64, 0, true},
		{"65 parameters", 65, 0, false},
		{"60 parameters and 4 form fields", 60, 4, true},
		{"60 parameters and 5 form fields", 60, 5, false},
		{"200 parameters", 200, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			typ := withForm(c.params, c.form)
			_, err := Compile(typ, Config{Method: "POST", Pattern: "/many"})
			if c.ok != (err == nil) {
				t.Fatalf("err %v", err)
			}
			if err != nil && (!strings.Contains(err.Error(), "more than the 64") || !strings.Contains(err.Error(), "/many") || !strings.Contains(err.Error(), "struct {")) {
				t.Errorf("message: %v", err)
			}
		})
	}
}

func TestCookies(t *testing.T) {
	type in struct {
		Theme   string       `cookie:"theme"`
		Session http.Cookie  `cookie:"session"`
		Prefs   *http.Cookie `cookie:"prefs"`
		Missing *http.Cookie `cookie:"missing"`
		Count   int          `cookie:"count" default:"3"`
	}
	b := compile(t, reflect.TypeFor[in](), "GET", "/")
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Add("Cookie", `theme=dark; session="abc=="; prefs=x`)
	req.Header.Add("Cookie", "theme=light; prefs=y")
	var v in
	var st State
	if prob := b.Bind(req, nil, &v, &st); prob != nil {
		t.Fatal(prob)
	}
	if v.Theme != "dark" || !reflect.DeepEqual(v.Session, http.Cookie{Name: "session", Value: "abc==", Quoted: true}) ||
		v.Prefs == nil || !reflect.DeepEqual(*v.Prefs, http.Cookie{Name: "prefs", Value: "x"}) || v.Missing != nil || v.Count != 3 {
		t.Errorf("%+v %+v", v, v.Prefs)
	}
	if st.Present != 0b10111 {
		t.Errorf("presence %b", st.Present)
	}
	for i, want := range []string{"string", "string", "string", "string", "integer"} {
		if p := b.Parameters[i]; p.In != "cookie" || p.Schema == nil || p.Schema.Type != want {
			t.Errorf("%s: %+v", p.Name, p.Schema)
		}
	}
}
