package jsonpatch_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/vane-http/vane/jsonpatch"
)

func Example() {
	doc, _ := jsonpatch.Unmarshal([]byte(`{"id":16526,"tags":["a","b"]}`))
	patch, err := jsonpatch.Decode([]byte(`[
		{"op":"test","path":"/id","value":16526.0},
		{"op":"add","path":"/tags/-","value":"c"},
		{"op":"move","from":"/tags/0","path":"/first"}
	]`), 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := jsonpatch.Apply(doc, patch)
	b, _ := json.Marshal(out)
	fmt.Println(string(b), err)

	// An index with a leading zero names no element (RFC 6901 section 4).
	doc, _ = jsonpatch.Unmarshal([]byte(`{"tags":["a","b"]}`))
	patch, _ = jsonpatch.Decode([]byte(`[{"op":"test","path":"/tags/01","value":"b"}]`), 0)
	_, err = jsonpatch.Apply(doc, patch)
	fmt.Println(errors.Is(err, jsonpatch.ErrTestFailed), err)

	// Output:
	// {"first":"a","id":16526,"tags":["b","c"]} <nil>
	// true JSON Patch operation 0 (path "/tags/01"): "01" is not an array index (0, or digits without a leading zero or sign)
}

func ExampleMerge() {
	doc, _ := jsonpatch.Unmarshal([]byte(`{"name":"Rex","owner":{"name":"Ann","phone":"555"}}`))
	patch, _ := jsonpatch.Unmarshal([]byte(`{"owner":{"phone":null},"status":"adopted"}`))
	b, _ := json.Marshal(jsonpatch.Merge(doc, patch))
	fmt.Println(string(b))
	// Output: {"name":"Rex","owner":{"name":"Ann"},"status":"adopted"}
}
