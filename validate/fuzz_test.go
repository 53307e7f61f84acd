package validate

import (
	"context"
	"reflect"
	"testing"
)

// FuzzRequiredScan feeds arbitrary bytes to the required-property scanner,
// which must neither panic nor loop, whatever a codec let through.
func FuzzRequiredScan(f *testing.F) {
	for _, s := range []string{
		`{"id":"x","email":"a@b.co","lines":[{"name":"a","qty":1}],"total":1}`,
		`{"lines":[{"name":1},{"qty":[1,{"a":"}"}]}],"scores":{"k":{"name":"a"}}}`,
		`{"priority":0,"kind":"","express":false,"address":{"street":"a","zip":""},"lines":[{},{},{},{"note":""}]}`,
		`{"address":{"zip":""},"address":{"zip":""},"Priority":0,"lines":[{"note":null}]}`,
		`{"\u0069d":null,`, `[`, `{"a"`, `{"a":}`, "\x00", `{"lines":[,,]}`, `"str"`,
	} {
		f.Add([]byte(s))
	}
	v, err := Compile(reflect.TypeFor[Order](), nil, "body")
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte) {
		o := validOrder()
		v.Validate(ctx, o, data)
	})
}
