package vane_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/openapi"
	"github.com/vane-http/vane/problem"
)

// The service of the package overview (doc.go, whose samples
// TestPackageDocSamples finds here).

type GetPet struct {
	ID int64 `path:"id" minimum:"1"`
}

type Pet struct {
	ID   int64  `json:"id"`
	Name string `json:"name" minLength:"1" maxLength:"80"`
}

func getPet(ctx context.Context, in *GetPet) (*Pet, error) {
	if in.ID != 1 {
		return nil, vane.NotFound("no pet has this ID")
	}
	return &Pet{ID: 1, Name: "Rex"}, nil
}

// requireToken is plain net/http middleware: 401 unless the request
// carries the token.
func requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Authorization") != "Bearer s3cret" {
			problem.Write(w, vane.Unauthorized("a valid bearer token is required").WithHeader("WWW-Authenticate", "Bearer"))
			return
		}
		next.ServeHTTP(w, req)
	})
}

func newPetRouter() *vane.Router {
	r := vane.New()
	pets := r.Group("/v1", // defaults of every operation registered through pets
		vane.Middleware(requireToken), // checks the credentials
		vane.Security("bearer"),       // says so in the document
		vane.Problems(vane.ProblemType{Status: http.StatusUnauthorized, Description: "No valid token."}),
		vane.Tags("pets"))
	vane.Get(pets, "/pets/{id}", getPet, vane.ID("getPet"), vane.Summary("Get a pet"))
	vane.Docs(r, vane.DocsConfig{Config: openapi.Config{
		Info:            openapi.Info{Title: "Pets", Version: "1.0.0"},
		SecuritySchemes: map[string]*openapi.SecurityScheme{"bearer": openapi.BearerAuth("")},
	}}) // GET /openapi.json, /openapi.yaml, /openapi-3.0.json, /docs
	return r
}

// A typed operation behind a group's middleware and security, and its
// document.
func Example() {
	r := newPetRouter()
	if err := r.Check(); err != nil { // what vane.Serve checks before it listens
		log.Fatal(err)
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/v1/pets/1", nil))
	fmt.Println(w.Code, strings.TrimSpace(w.Body.String()))

	for _, target := range []string{"/v1/pets/1", "/v1/pets/0", "/openapi.json"} {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header.Set("Authorization", "Bearer s3cret")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Println(target, w.Code, w.Header().Get("Content-Type"))
	}

	d := r.Operations()[0]
	fmt.Println(d.ID, d.Tags, d.Security)
	// Output:
	// 401 {"type":"about:blank","title":"Unauthorized","status":401,"detail":"a valid bearer token is required"}
	// /v1/pets/1 200 application/json
	// /v1/pets/0 422 application/problem+json
	// /openapi.json 200 application/json
	// getPet [pets] [map[bearer:[]]]
}

// vane.Serve serves a router with timeouts, limits, panic recovery and a
// graceful shutdown on SIGINT or SIGTERM.
func Example_serve() {
	r := newPetRouter()
	if err := vane.Serve(context.Background(), ":8080", r); err != nil {
		log.Fatal(err)
	}
}

type taskIn struct {
	ID int64 `path:"id"`
}

type taskOut struct {
	Body struct {
		ID int64 `json:"id"`
	}
}

func getTask(_ context.Context, in *taskIn) (*taskOut, error) {
	out := &taskOut{}
	out.Body.ID = in.ID
	return out, nil
}

func deleteTask(context.Context, *taskIn) (*struct{}, error) { return nil, nil }

// Options given to Group are defaults of every operation registered
// through the group, inner groups after outer ones, the operation's own
// last. A later Summary or Security replaces an earlier one; Tags,
// Problems, Responds, Middleware and Extension add up.
func ExampleRouter_Group() {
	r := vane.New()
	api := r.Group("/v1", vane.Security("bearer"), vane.Tags("tasks"))
	admin := api.Group("/admin", vane.Security("bearer", "admin"), vane.Tags("admin"))

	vane.Get(api, "/tasks/{id}", getTask)                               // the group's security and tag
	vane.Get(api, "/public/tasks/{id}", getTask, vane.Public())         // no credentials needed
	vane.Delete(admin, "/tasks/{id}", deleteTask, vane.Tags("removal")) // both groups' tags and its own

	for _, d := range r.Operations() {
		fmt.Println(d.Method, d.Pattern, d.Tags, d.Security)
	}
	// Output:
	// GET /v1/tasks/{id} [tasks] [map[bearer:[]]]
	// GET /v1/public/tasks/{id} [tasks] []
	// DELETE /v1/admin/tasks/{id} [tasks admin removal] [map[bearer:[admin]]]
}

// Options bundles options to give together, where each of them may be
// given.
func ExampleOptions() {
	secured := vane.Options(vane.Security("bearer"),
		vane.Responds(http.StatusUnauthorized, "No valid token."))
	r := vane.New()
	vane.Get(r, "/tasks/{id}", getTask, secured, vane.Summary("Get a task"))

	d := r.Operations()[0]
	fmt.Println(d.Summary, d.Security)
	for _, res := range d.Responses[:2] {
		fmt.Println(res.Status, res.Description)
	}
	// Output:
	// Get a task [map[bearer:[]]]
	// 200 OK
	// 401 No valid token.
}

// Security given twice in one list of options lists alternatives, either
// of which suffices.
func ExampleSecurity() {
	r := vane.New()
	vane.Get(r, "/tasks/{id}", getTask, vane.Security("bearer"), vane.Security("apiKey"))
	fmt.Println(r.Operations()[0].Security)
	// Output:
	// [map[bearer:[]] map[apiKey:[]]]
}

// An output without fields can say nothing but its status: the operation
// answers 204 and documents no other success. Status sets the status of
// a success.
func ExampleStatus() {
	r := vane.New()
	vane.Delete(r, "/tasks/{id}", deleteTask)
	vane.Post(r, "/tasks/{id}/copies", getTask, vane.Status(http.StatusAccepted))

	for _, d := range r.Operations() {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(d.Method, strings.Replace(d.Pattern, "{id}", "7", 1), nil))
		var successes []int
		for _, res := range d.Responses {
			if res.Status < 300 {
				successes = append(successes, res.Status)
			}
		}
		fmt.Println(d.Method, d.Pattern, "answers", w.Code, "documents", successes)
	}
	// Output:
	// DELETE /tasks/{id} answers 204 documents [204]
	// POST /tasks/{id}/copies answers 202 documents [202]
}

// Middleware given to one operation wraps that operation only, inside
// its groups'.
func ExampleMiddleware() {
	trace := func(name string) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				fmt.Println("through", name)
				next.ServeHTTP(w, req)
			})
		}
	}
	r := vane.New()
	api := r.Group("/v1", vane.Middleware(trace("the group")))
	vane.Get(api, "/tasks/{id}", getTask, vane.Middleware(trace("the operation")))
	vane.Delete(api, "/tasks/{id}", deleteTask)

	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(method, "/v1/tasks/7", nil))
		fmt.Println(method, w.Code)
	}
	// Output:
	// through the group
	// through the operation
	// GET 200
	// through the group
	// DELETE 204
}
