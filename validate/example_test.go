package validate_test

import (
	"context"
	"fmt"
	"reflect"

	"github.com/vane-http/vane/validate"
)

type Order struct {
	Email string `json:"email" format:"email"`
	Lines []struct {
		SKU string `json:"sku" pattern:"^[A-Z]{3}-[0-9]+$"`
		Qty int    `json:"qty" minimum:"1"`
	} `json:"lines" minItems:"1"`
}

func ExampleCompile() {
	v, err := validate.Compile(reflect.TypeFor[Order](), nil, "body")
	if err != nil {
		panic(err)
	}
	raw := []byte(`{"email":"ann@example..com","lines":[{"sku":"ABC-1","qty":1},{"sku":"abc","qty":0}]}`)
	var o Order
	o.Email = "ann@example..com"
	o.Lines = append(o.Lines, struct {
		SKU string `json:"sku" pattern:"^[A-Z]{3}-[0-9]+$"`
		Qty int    `json:"qty" minimum:"1"`
	}{"ABC-1", 1}, struct {
		SKU string `json:"sku" pattern:"^[A-Z]{3}-[0-9]+$"`
		Qty int    `json:"qty" minimum:"1"`
	}{"abc", 0})
	for _, e := range v.Validate(context.Background(), &o, raw) {
		fmt.Printf("%s: %s (%v)\n", e.Location, e.Message, e.Value)
	}
	// Output:
	// body.email: expected format email (ann@example..com)
	// body.lines[1].sku: expected to match pattern ^[A-Z]{3}-[0-9]+$ (abc)
	// body.lines[1].qty: expected number >= 1 (0)
}
