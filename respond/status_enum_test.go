package respond

import (
	"fmt"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/schema"
)

type accepted struct {
	Status int `enum:"200,202"`
	Body   struct {
		Job string `json:"job"`
	}
}

// A Status field's enum lists the statuses the output answers: each is
// documented with the output's body, and any other is an error, not an
// undocumented answer.
func TestStatusEnum(t *testing.T) {
	reg := schema.NewRegistry("#/components/schemas/")
	o, err := Compile(reflect.TypeFor[accepted](), reg)
	if err != nil {
		t.Fatal(err)
	}
	list, err := o.Responses(&operation.Description{Method: "POST", Status: 200}, nil, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, r := range list {
		if r.Status < 300 {
			got += fmt.Sprintf("%d:%d ", r.Status, len(r.Content))
		}
	}
	if got != "200:1 202:1 " {
		t.Errorf("documented %q", got)
	}
	enc := NewEncoders(codec.JSON)
	w := httptest.NewRecorder()
	if err := o.Write(w, httptest.NewRequest("POST", "/", nil), &accepted{Status: 202}, 200, enc); err != nil || w.Code != 202 {
		t.Errorf("202: %d %v", w.Code, err)
	}
	w = httptest.NewRecorder()
	if err := o.Write(w, httptest.NewRequest("POST", "/", nil), &accepted{Status: 203}, 200, enc); err == nil || w.Body.Len() != 0 {
		t.Errorf("203, not in the enum: %d %v", w.Code, err)
	}
	if _, err := Compile(reflect.TypeFor[struct {
		Status int `enum:"200,404"`
		Body   string
	}](), reg); err == nil {
		t.Error("an error status in a Status enum was accepted")
	}
}
