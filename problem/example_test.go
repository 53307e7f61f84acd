package problem_test

import (
	"fmt"
	"net/http/httptest"

	"github.com/vane-http/vane/problem"
)

func ExampleWrite() {
	w := httptest.NewRecorder()
	problem.Write(w, problem.New(422, "validation failed",
		problem.FieldError{Location: "query.tag[1]", Message: "expected length <= 3", Value: "toolong"}))
	fmt.Println(w.Code, w.Header().Get("Content-Type"))
	fmt.Println(w.Body.String())
	// Output:
	// 422 application/problem+json
	// {"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"location":"query.tag[1]","message":"expected length <= 3","value":"toolong"}]}
}

func ExampleLocation() {
	var loc problem.Location
	loc = loc.Field("body").Field("items").Index(2).Field("name")
	fmt.Println(loc)
	// Output: body.items[2].name
}

// A client, or a test, reads a problem back with its extension members.
func ExampleParse() {
	p, err := problem.Parse([]byte(`{"type":"https://example.com/probs/out-of-credit","status":403,"balance":30}`))
	fmt.Println(p.Type, p.Status, p.Extensions["balance"], err)
	// Output: https://example.com/probs/out-of-credit 403 30 <nil>
}
