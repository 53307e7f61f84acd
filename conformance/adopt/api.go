// Package adopt checks vane mounted inside applications built on other
// routers: chi, gin, echo and net/http.ServeMux. Each test builds a host
// application with its own routes and its own authentication middleware,
// written in the host's idiom, and mounts a vane API under /api (and under
// a prefix with a parameter of its own, /tenants/{tenant}/api). It checks
// that:
//
//   - every operation of the document that vane serves under the prefix is
//     reached, through the host, at the path the document states;
//   - a client generated from that document by oapi-codegen (package
//     notesclient) calls the operations through the host;
//   - the host's middleware runs in front of vane's operations, and what
//     it puts in the request's context reaches the typed handlers;
//   - every answer agrees with the document (vanetest.API.Handler, mounted
//     in the host);
//   - path parameters, those of the prefix included, and what vane derives
//     from the path (redirects, 404) are right.
//
// The way it is mounted is the one docs/guide/adopting.md shows: the
// operations are registered under a Group with the prefix, and the host
// hands vane the requests under the prefix with their paths untouched.
package adopt

import (
	"context"
	"net/http"
	"strconv"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/openapi"
)

// Prefix is where the hosts mount the notes API.
const Prefix = "/api"

type userKey struct{}

// WithUser returns ctx carrying the name of the authenticated user, as a
// host's authentication middleware puts it in the request's context.
func WithUser(ctx context.Context, user string) context.Context {
	return context.WithValue(ctx, userKey{}, user)
}

// User returns the user that WithUser put in ctx, or "".
func User(ctx context.Context) string {
	u, _ := ctx.Value(userKey{}).(string)
	return u
}

// Note is a note.
type Note struct {
	ID     int64  `json:"id" readOnly:"true"`
	Text   string `json:"text" minLength:"1" maxLength:"200"`
	Author string `json:"author" readOnly:"true" doc:"who wrote it: the user the host authenticated"`
}

// NoteOut is a note with the headers every answer carries.
type NoteOut struct {
	Status    int
	Operation string `header:"X-Operation" doc:"the operation that answered"`
	Body      Note
}

// GetNote reads a note.
type GetNote struct {
	ID int64 `path:"id" minimum:"1"`
}

// CreateNote writes a note.
type CreateNote struct {
	Body struct {
		Text string `json:"text" minLength:"1" maxLength:"200"`
	}
}

// Me is the user the host authenticated.
type Me struct {
	Operation string `header:"X-Operation" doc:"the operation that answered"`
	Body      struct {
		User string `json:"user"`
	}
}

// NewAPI returns a vane router with the notes operations registered under
// prefix, with a docs page and the document under prefix too, and the
// document's configuration. Its handlers keep nothing: a note's text is
// "note N".
func NewAPI(prefix string) (*vane.Router, openapi.Config) {
	r := vane.New()
	// The host answers 401 to a bad token before vane sees the request;
	// the document says so.
	api := r.Group(prefix, vane.Problems(vane.ProblemType{Status: http.StatusUnauthorized, Description: "The bearer token is not valid."}))
	vane.Get(api, "/notes/{id}", func(ctx context.Context, in *GetNote) (*NoteOut, error) {
		if in.ID > 1000 {
			return nil, vane.NotFound("no note " + strconv.FormatInt(in.ID, 10))
		}
		return &NoteOut{Operation: "getNote", Body: Note{ID: in.ID, Text: "note " + strconv.FormatInt(in.ID, 10), Author: User(ctx)}}, nil
	}, vane.ID("getNote"), vane.Summary("Read a note"), vane.Responds(http.StatusNotFound, "No such note."))
	vane.Post(api, "/notes", func(ctx context.Context, in *CreateNote) (*NoteOut, error) {
		return &NoteOut{Status: http.StatusCreated, Operation: "createNote", Body: Note{ID: 1, Text: in.Body.Text, Author: User(ctx)}}, nil
	}, vane.ID("createNote"), vane.Summary("Write a note"), vane.Responds(http.StatusCreated, "The note, written."))
	vane.Get(api, "/me", func(ctx context.Context, _ *struct{}) (*Me, error) {
		out := &Me{Operation: "getMe"}
		out.Body.User = User(ctx)
		return out, nil
	}, vane.ID("getMe"), vane.Summary("The authenticated user"))
	cfg := openapi.Config{Info: openapi.Info{Title: "Notes", Version: "1.0.0"}}
	vane.Docs(api, vane.DocsConfig{Config: cfg})
	return r, cfg
}

// TenantPrefix is a prefix with a parameter of the host's.
const TenantPrefix = "/tenants/{tenant}/api"

// GetTenantNote reads a note of a tenant: the tenant is a parameter of
// the prefix.
type GetTenantNote struct {
	Tenant string `path:"tenant" pattern:"^[a-z]+$"`
	ID     int64  `path:"id" minimum:"1"`
}

// TenantNote is a tenant's note.
type TenantNote struct {
	Tenant string `json:"tenant"`
	ID     int64  `json:"id"`
	Author string `json:"author"`
}

// NewTenantAPI returns a vane router with an operation under
// TenantPrefix, and a route that is no operation and reads its parameters
// with vane.Param.
func NewTenantAPI() *vane.Router {
	r := vane.New()
	api := r.Group(TenantPrefix)
	vane.Get(api, "/notes/{id}", func(ctx context.Context, in *GetTenantNote) (*TenantNote, error) {
		return &TenantNote{Tenant: in.Tenant, ID: in.ID, Author: User(ctx)}, nil
	}, vane.ID("getTenantNote"))
	api.HandleFunc(http.MethodGet, "/raw/{id}", func(w http.ResponseWriter, req *http.Request) {
		w.Write([]byte(vane.Param(req, "tenant") + "/" + vane.Param(req, "id") + "/" + User(req.Context()))) //nolint:errcheck
	})
	return r
}
