package respond_test

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/vane-http/vane/respond"
)

type loginOutput struct {
	Session http.Cookie    `cookie:"session"`
	Theme   *http.Cookie   `cookie:"theme"`
	More    []*http.Cookie `cookie:""`
	Body    Item
}

func TestCookies(t *testing.T) {
	w, err := respond.Compile(reflect.TypeFor[loginOutput](), respond.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		out  loginOutput
		want []string
	}{
		{"none", loginOutput{}, []string{"mw=1"}},
		{"value gets the tag's name", loginOutput{Session: http.Cookie{Value: "abc", HttpOnly: true, Path: "/"}},
			[]string{"mw=1", "session=abc; Path=/; HttpOnly"}},
		{"deletion by MaxAge", loginOutput{Session: http.Cookie{MaxAge: -1}}, []string{"mw=1", "session=; Max-Age=0"}},
		{"pointer and slice", loginOutput{Theme: &http.Cookie{Name: "theme", Value: "dark"},
			More: []*http.Cookie{{Name: "a", Value: "1"}, nil, {Name: "b", Value: "2", Secure: true}}},
			[]string{"mw=1", "theme=dark", "a=1", "b=2; Secure"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			rec.Header().Add("Set-Cookie", "mw=1") // set by a middleware: kept
			out := tc.out
			if err := w.Write(rec, httptest.NewRequest("GET", "/", nil), &out); err != nil {
				t.Fatal(err)
			}
			if got := rec.Header().Values("Set-Cookie"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Set-Cookie %q, want %q", got, tc.want)
			}
		})
	}
}

func TestInvalidCookieFailsBeforeSending(t *testing.T) {
	w, err := respond.Compile(reflect.TypeFor[loginOutput](), respond.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []loginOutput{
		{Session: http.Cookie{Value: "abc"}, More: []*http.Cookie{{Name: "bad name", Value: "x"}}},
		{Theme: &http.Cookie{Name: "other", Value: "x"}},
	} {
		rec := httptest.NewRecorder()
		rec.Header().Add("Set-Cookie", "mw=1")
		err := w.Write(rec, httptest.NewRequest("GET", "/", nil), &out)
		if err == nil || rec.Code != 200 || rec.Body.Len() != 0 || rec.Flushed {
			t.Errorf("err %v, wrote %d %q", err, rec.Code, rec.Body)
		}
		if got := rec.Header().Values("Set-Cookie"); len(got) != 1 || got[0] != "mw=1" {
			t.Errorf("Set-Cookie left %q", got)
		}
	}
}

func TestCookieFieldsCompile(t *testing.T) {
	type tagged struct {
		C    http.Cookie `header:"Set-Cookie"`
		Body Item
	}
	type wrongType struct {
		C    string `cookie:"c"`
		Body Item
	}
	type badName struct {
		C    *http.Cookie `cookie:"a b"`
		Body Item
	}
	for _, tc := range []struct {
		name string
		t    reflect.Type
		want string
	}{
		{"header tag", reflect.TypeFor[tagged](), "field C: http.Cookie is sent as Set-Cookie: tag it `cookie:\"name\"`, not header"},
		{"cookie tag on a string", reflect.TypeFor[wrongType](), "field C: a cookie is an http.Cookie, *http.Cookie or []*http.Cookie, not string"},
		{"bad name", reflect.TypeFor[badName](), `field C: cookie name "a b" is not a valid token`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := respond.Compile(tc.t, respond.Config{})
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
	w, err := respond.Compile(reflect.TypeFor[loginOutput](), respond.Config{})
	if err != nil {
		t.Fatal(err)
	}
	hs := w.Response().Headers
	if len(hs) != 1 || hs[0].Name != "Set-Cookie" || !strings.Contains(hs[0].Description, "session, theme") {
		t.Errorf("documented headers %+v", hs)
	}
}
