package peers

import (
	"context"
	"net/http"
	"time"

	"github.com/vane-http/vane"
)

// vane's own idiom for the data and typed workloads is the typed
// operation: input bound and validated from tags, output encoded by the
// router's codec.

type vaneUserIn struct {
	Body User
}

type vaneTextOut struct {
	ContentType string `header:"Content-Type"`
	Body        []byte
}

func vaneJSONBind() (http.Handler, error) {
	r := vane.New()
	vane.Post(r, "/users", func(ctx context.Context, in *vaneUserIn) (*vaneTextOut, error) {
		return &vaneTextOut{ContentType: "text/plain; charset=utf-8", Body: []byte(in.Body.Name)}, nil
	})
	return r, nil
}

type vaneItemsOut struct {
	Body []Item
}

func vaneJSONList() (http.Handler, error) {
	r := vane.New()
	vane.Get(r, "/items", func(ctx context.Context, _ *struct{}) (*vaneItemsOut, error) {
		return &vaneItemsOut{Body: Items}, nil
	})
	return r, nil
}

type vaneGreetingIn struct {
	ID          string `path:"id"`
	ContentType string `header:"Content-Type"`
	Num         int    `query:"num"`
	Body        GreetingBody
}

type vaneGreetingOut struct {
	ETag         string    `header:"ETag"`
	LastModified time.Time `header:"Last-Modified"`
	Body         GreetingReply
}

// vaneGreeting is Huma's greeting operation as a vane typed operation.
func vaneGreeting() (http.Handler, error) {
	r := vane.New()
	vane.Post(r, "/greeting/{id}", func(ctx context.Context, in *vaneGreetingIn) (*vaneGreetingOut, error) {
		return &vaneGreetingOut{
			ETag:         GreetingETag,
			LastModified: LastModified,
			Body:         Greet(in.ID, in.Body.Suffix, in.ContentType, in.Num),
		}, nil
	})
	return r, nil
}

type vaneIDIn struct {
	ID int64 `path:"id" minimum:"1"`
}

// vaneTypedParam binds and validates one integer path parameter; the
// output type has no Body field, so it is the body.
func vaneTypedParam() (http.Handler, error) {
	r := vane.New()
	vane.Get(r, "/users/{id}", func(ctx context.Context, in *vaneIDIn) (*IDReply, error) {
		return &IDReply{ID: in.ID}, nil
	})
	return r, nil
}
