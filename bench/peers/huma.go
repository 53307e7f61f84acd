package peers

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"
)

func humaPeer() Peer {
	const routing = "huma hands routing to its adapter's router (chi here, measured in its own column); it has no raw routing of its own"
	return Peer{
		Name:       "huma",
		Module:     "github.com/danielgtaylor/huma/v2",
		JSONBind:   humaJSONBind,
		JSONList:   humaJSONList,
		Greeting:   humaGreeting,
		TypedParam: humaTypedParam,
		Lacks: map[string]string{
			"router":     routing,
			"groups":     routing,
			"middleware": routing,
		},
	}
}

// humaAPI is huma on its chi adapter, configured as huma's documentation
// shows, less the schema-link hook (it adds a "$schema" field and a Link
// header to every response, which the other implementations do not send).
func humaAPI() (*chi.Mux, huma.API) {
	r := chi.NewRouter()
	config := huma.DefaultConfig("bench", "1.0.0")
	config.CreateHooks = nil
	return r, humachi.New(r, config)
}

type humaUserIn struct {
	Body User
}

type rawOut struct {
	ContentType string `header:"Content-Type"`
	Body        []byte
}

func humaJSONBind() (http.Handler, error) {
	r, api := humaAPI()
	huma.Register(api, huma.Operation{OperationID: "createUser", Method: http.MethodPost, Path: "/users"},
		func(ctx context.Context, in *humaUserIn) (*rawOut, error) {
			return &rawOut{ContentType: "text/plain; charset=utf-8", Body: []byte(in.Body.Name)}, nil
		})
	return r, nil
}

type itemsOut struct {
	Body []Item
}

func humaJSONList() (http.Handler, error) {
	r, api := humaAPI()
	huma.Get(api, "/items", func(ctx context.Context, _ *struct{}) (*itemsOut, error) {
		return &itemsOut{Body: Items}, nil
	})
	return r, nil
}

type humaGreetingIn struct {
	ID          string `path:"id"`
	ContentType string `header:"Content-Type"`
	Num         int    `query:"num"`
	Body        GreetingBody
}

type humaGreetingOut struct {
	ETag         string    `header:"ETag"`
	LastModified time.Time `header:"Last-Modified"`
	Body         GreetingReply
}

func humaGreeting() (http.Handler, error) {
	r, api := humaAPI()
	huma.Register(api, huma.Operation{OperationID: "greet", Method: http.MethodPost, Path: "/greeting/{id}"},
		func(ctx context.Context, in *humaGreetingIn) (*humaGreetingOut, error) {
			return &humaGreetingOut{
				ETag:         GreetingETag,
				LastModified: LastModified,
				Body:         Greet(in.ID, in.Body.Suffix, in.ContentType, in.Num),
			}, nil
		})
	return r, nil
}

type humaIDIn struct {
	ID int64 `path:"id" minimum:"1"`
}

type humaIDOut struct {
	Body IDReply
}

func humaTypedParam() (http.Handler, error) {
	r, api := humaAPI()
	huma.Get(api, "/users/{id}", func(ctx context.Context, in *humaIDIn) (*humaIDOut, error) {
		return &humaIDOut{Body: IDReply{ID: in.ID}}, nil
	})
	return r, nil
}
