package respond_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/respond"
)

// upper is a codec for text/x-upper: the JSON, upper-cased.
type upper struct{}

func (upper) Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return []byte(strings.ToUpper(string(b))), err
}
func (upper) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

func negotiating(t *testing.T) *respond.Writer {
	t.Helper()
	w, err := respond.Compile(reflect.TypeFor[Item](), respond.Config{Codecs: []codec.MediaCodec{{MediaType: "text/x-upper", Codec: upper{}}}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestNegotiate(t *testing.T) {
	w := negotiating(t)
	if got := w.MediaTypes(); !reflect.DeepEqual(got, []string{"application/json", "text/x-upper"}) {
		t.Errorf("MediaTypes %v", got)
	}
	if r := w.Response(); len(r.Content) != 2 || r.Content[1].MediaType != "text/x-upper" || r.Content[1].Schema != r.Content[0].Schema {
		t.Errorf("documented content %+v", r.Content)
	}
	for _, tc := range []struct {
		accept []string
		want   int
		ct     string
		body   string
	}{
		{nil, 200, "application/json", `{"name":"a"}`},
		{[]string{""}, 200, "application/json", `{"name":"a"}`},
		{[]string{"*/*"}, 200, "application/json", `{"name":"a"}`},
		{[]string{"application/json"}, 200, "application/json", `{"name":"a"}`},
		{[]string{"text/x-upper"}, 200, "text/x-upper", `{"NAME":"A"}`},
		{[]string{"TEXT/X-Upper; charset=utf-8"}, 200, "text/x-upper", `{"NAME":"A"}`},
		{[]string{"text/*"}, 200, "text/x-upper", `{"NAME":"A"}`},
		{[]string{"application/json;q=0.5, text/x-upper;q=0.9"}, 200, "text/x-upper", `{"NAME":"A"}`},
		{[]string{"application/json;q=0.9", "text/x-upper;q=0.5"}, 200, "application/json", `{"name":"a"}`},
		{[]string{"text/x-upper, application/json"}, 200, "application/json", `{"name":"a"}`}, // equal q: the offers' order
		{[]string{"*/*;q=0.1, text/x-upper;q=0"}, 200, "application/json", `{"name":"a"}`},
		{[]string{"*/*, application/json;q=0"}, 200, "text/x-upper", `{"NAME":"A"}`},
		{[]string{"text/html"}, 406, "application/problem+json", ""},
		{[]string{"application/json;q=0"}, 406, "application/problem+json", ""},
		{[]string{"application/json;q=2"}, 406, "application/problem+json", ""},
		{[]string{"application/json;q=abc"}, 406, "application/problem+json", ""},
		{[]string{",,;;"}, 406, "application/problem+json", ""},
	} {
		t.Run(strings.Join(tc.accept, "|"), func(t *testing.T) {
			req := httptest.NewRequest("GET", "/", nil)
			if tc.accept != nil {
				req.Header["Accept"] = tc.accept
			}
			rec := httptest.NewRecorder()
			if err := w.Write(rec, req, &Item{Name: "a"}); err != nil {
				t.Fatal(err)
			}
			if rec.Code != tc.want || rec.Header().Get("Content-Type") != tc.ct {
				t.Fatalf("got %d %s %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
			}
			if tc.want == 406 {
				if !strings.Contains(rec.Body.String(), "application/json, text/x-upper") {
					t.Errorf("406 body %s", rec.Body)
				}
				return
			}
			if rec.Body.String() != tc.body || rec.Header().Get("Vary") != "Accept" {
				t.Errorf("body %s, Vary %q", rec.Body, rec.Header().Get("Vary"))
			}
		})
	}
}

func TestNegotiateAllocatesNothing(t *testing.T) {
	w := negotiating(t)
	for _, accept := range []string{"", "*/*", "application/json", "text/html;q=0.9, text/x-upper;q=0.8, */*;q=0.1"} {
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Accept", accept)
		rec := httptest.NewRecorder()
		if n := testing.AllocsPerRun(100, func() { w.Negotiate(rec, req) }); n != 0 {
			t.Errorf("Accept %q: %v allocations", accept, n)
		}
	}
}

func TestNotNegotiated(t *testing.T) {
	type raw struct{ Body []byte }
	type typed struct {
		ContentType string `header:"Content-Type"`
		Body        Item
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[raw](), reflect.TypeFor[typed](), reflect.TypeFor[struct{}]()} {
		w, err := respond.Compile(typ, respond.Config{})
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Accept", "text/html")
		if _, ok := w.Negotiate(httptest.NewRecorder(), req); !ok || w.MediaTypes() != nil {
			t.Errorf("%v is negotiated", typ)
		}
	}
}

func TestContentTypeField(t *testing.T) {
	type structOut struct {
		ContentType string `header:"Content-Type"`
		Body        Item
	}
	type stringOut struct {
		ContentType string `header:"Content-Type"`
		Body        string
	}
	ws, err := respond.Compile(reflect.TypeFor[structOut](), respond.Config{Codecs: []codec.MediaCodec{{MediaType: "text/x-upper", Codec: upper{}}}})
	if err != nil {
		t.Fatal(err)
	}
	wt, err := respond.Compile(reflect.TypeFor[stringOut](), respond.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		w    *respond.Writer
		out  any
		ct   string
		body string
		err  bool
	}{
		{"struct, none", ws, &structOut{Body: Item{"a"}}, "application/json", `{"name":"a"}`, false},
		{"struct, +json", ws, &structOut{ContentType: "application/vnd.item+json", Body: Item{"a"}}, "application/vnd.item+json", `{"name":"a"}`, false},
		{"struct, a codec's", ws, &structOut{ContentType: "text/x-upper; charset=utf-8", Body: Item{"a"}}, "text/x-upper; charset=utf-8", `{"NAME":"A"}`, false},
		{"struct, no codec", ws, &structOut{ContentType: "text/html", Body: Item{"a"}}, "", "", true},
		{"string, text", wt, &stringOut{ContentType: "text/plain; charset=utf-8", Body: "hi <b>"}, "text/plain; charset=utf-8", "hi <b>", false},
		{"string, JSON", wt, &stringOut{Body: "hi"}, "application/json", `"hi"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			err := tc.w.Write(rec, httptest.NewRequest("GET", "/", nil), tc.out)
			if (err != nil) != tc.err {
				t.Fatalf("err %v", err)
			}
			if rec.Header().Get("Content-Type") != tc.ct || rec.Body.String() != tc.body {
				t.Errorf("got %q %q", rec.Header().Get("Content-Type"), rec.Body)
			}
		})
	}
}

func FuzzNegotiate(f *testing.F) {
	f.Add("text/*;q=0.5, application/json;q=0.25")
	f.Add(";q=1.0000,*/*;Q=0.")
	f.Fuzz(func(t *testing.T, accept string) {
		w, _ := respond.Compile(reflect.TypeFor[Item](), respond.Config{Codecs: []codec.MediaCodec{{MediaType: "text/x-upper", Codec: upper{}}}})
		req := httptest.NewRequest("GET", "/", nil)
		req.Header["Accept"] = []string{accept}
		rec := httptest.NewRecorder()
		c, ok := w.Negotiate(rec, req)
		if ok == (rec.Code == http.StatusNotAcceptable && rec.Body.Len() > 0) || c < 0 || c > 1 {
			t.Fatalf("Negotiate(%q) = %d %v, wrote %d", accept, c, ok, rec.Code)
		}
	})
}

func TestContentTypeEnumDocumented(t *testing.T) {
	type page struct {
		ContentType string `header:"Content-Type" enum:"text/html, text/plain"`
		Body        string
	}
	w, err := respond.Compile(reflect.TypeFor[page](), respond.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range w.Response().Content {
		got = append(got, c.MediaType)
	}
	if !reflect.DeepEqual(got, []string{"text/html", "text/plain"}) {
		t.Errorf("documented %v", got)
	}
}
