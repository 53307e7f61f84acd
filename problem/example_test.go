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

// A problem type of one's own: its URI, its extension members at the top
// level, and a response header.
func ExampleDetails_With() {
	outOfCredit := problem.New(403, "").WithType("https://example.com/probs/out-of-credit", "You do not have enough credit.")
	p := outOfCredit.With("balance", 30).WithHeader("Retry-After", "3600")
	p.Detail = "Your current balance is 30, but that costs 50."
	w := httptest.NewRecorder()
	problem.Write(w, p)
	fmt.Println(w.Code, w.Header().Get("Retry-After"))
	fmt.Println(w.Body.String())
	// Output:
	// 403 3600
	// {"type":"https://example.com/probs/out-of-credit","title":"You do not have enough credit.","status":403,"detail":"Your current balance is 30, but that costs 50.","balance":30}
}
