package respond_test

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/respond"
	"github.com/vane-http/vane/schema"
)

func TestWriteStatusAndNoBody(t *testing.T) {
	type out struct {
		Status int
		Body   Item
	}
	w, err := respond.Compile(reflect.TypeFor[out](), respond.Config{Status: http.StatusCreated})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		status int
		want   int
		body   string
	}{
		{"default", 0, 201, `{"name":"a"}`},
		{"field", 202, 202, `{"name":"a"}`},
		{"304 has no body", 304, 304, ""},
		{"204 has no body", 204, 204, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			if err := w.Write(rec, httptest.NewRequest("GET", "/", nil), &out{Status: tc.status, Body: Item{"a"}}); err != nil {
				t.Fatal(err)
			}
			if rec.Code != tc.want || rec.Body.String() != tc.body {
				t.Errorf("got %d %q, want %d %q", rec.Code, rec.Body, tc.want, tc.body)
			}
			if tc.body == "" && rec.Header().Get("Content-Type") != "" {
				t.Errorf("Content-Type %q on a body-less response", rec.Header().Get("Content-Type"))
			}
		})
	}
}

func TestWriteWrongTypePanics(t *testing.T) {
	w, err := respond.Compile(reflect.TypeFor[Item](), respond.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "want *respond_test.Item") {
			t.Errorf("recovered %v", r)
		}
	}()
	w.Write(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil), &GetItemOutput{})
}

func TestCompileErrors(t *testing.T) {
	type badStatus struct {
		Status string
		Body   Item
	}
	type badHeader struct {
		X    map[string]int `header:"X"`
		Body Item
	}
	for _, tc := range []struct {
		name string
		t    reflect.Type
		want string
	}{
		{"status", reflect.TypeFor[badStatus](), "field Status must be an int"},
		{"header", reflect.TypeFor[badHeader](), "field X: type map[string]int cannot be a response header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := respond.Compile(tc.t, respond.Config{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestResponses(t *testing.T) {
	reg := schema.NewRegistry("#/components/schemas/")
	w, err := respond.Compile(reflect.TypeFor[struct{}](), respond.Config{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	d := &operation.Description{Method: "PUT", Pattern: "/x/{id}", Status: 200,
		Parameters:  []operation.Parameter{{Name: "id", In: operation.InPath}},
		RequestBody: &operation.RequestBody{}}
	list, err := respond.Responses(d, w, map[int]string{404: "no such x", 400: "bad"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, r := range list {
		got = append(got, r.Status)
	}
	want := []int{200, 204, 400, 404, 413, 415, 422, 500}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("statuses %v, want %v", got, want)
	}
	if list[2].Description != "bad" || list[3].Description != "no such x" || len(list[3].Content) != 1 {
		t.Errorf("documented responses: %+v %+v", list[2], list[3])
	}
}
