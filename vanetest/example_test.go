package vanetest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/vanetest"
)

// printTB reports to standard output so that the example can show what a
// test would be told; a test passes its *testing.T instead.
type printTB struct{ testing.TB }

func (printTB) Helper()                           {}
func (printTB) Errorf(format string, args ...any) { fmt.Printf("error: "+format+"\n", args...) }
func (printTB) Fatalf(format string, args ...any) { fmt.Printf("fatal: "+format+"\n", args...) }

type GetGreeting struct {
	Name string `path:"name" maxLength:"10"`
}

type Greeting struct {
	Message string `json:"message"`
}

func Example() {
	r := vane.New()
	vane.Get(r, "/greetings/{name}", func(ctx context.Context, in *GetGreeting) (*Greeting, error) {
		if in.Name == "nobody" {
			return nil, vane.ErrorNotFound("nobody is here")
		}
		return &Greeting{Message: "Hello, " + in.Name}, nil
	}, func(op *vane.Op) { op.ID = "getGreeting"; op.Responses = map[int]string{404: "nobody by that name"} })

	var t testing.TB = printTB{} // in a test: t *testing.T
	api := vanetest.New(t, r)

	// A typed call: the request is made from the input, the output decoded.
	out, p := vanetest.Call[GetGreeting, Greeting](api, "getGreeting", &GetGreeting{Name: "Ann"})
	fmt.Println(out.Message, p)

	// An error comes back as the problem.
	_, p = vanetest.Call[GetGreeting, Greeting](api, "getGreeting", &GetGreeting{Name: "nobody"})
	fmt.Println(p.Status, p.Detail)

	// A raw request; one the document does not allow is reported.
	w := api.Get("/greetings/somebody-with-a-long-name")
	fmt.Println(w.Code)
	// Output:
	// Hello, Ann <nil>
	// 404 nobody is here
	// error: vanetest: GET /greetings/{name} (getGreeting): request: path.name: length 25 > maxLength 10
	// 422
}
