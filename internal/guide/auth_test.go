package guide_test

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/openapi"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/vanetest"
)

type userKey struct{}

// requireUser is ordinary net/http middleware: it answers 401 unless the
// request carries a known bearer token, and puts the token's user in the
// request's context for the handlers behind it.
func requireUser(r *vane.Router, tokens map[string]string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			token, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
			user := ""
			for t, u := range tokens {
				if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
					user = u
				}
			}
			if user == "" {
				// Through the router's error model: the same problem
				// shape, and the ErrorHook sees it.
				r.WriteError(w, req, vane.Unauthorized("a valid bearer token is required").
					WithHeader("WWW-Authenticate", `Bearer realm="notes"`))
				return
			}
			next.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), userKey{}, user)))
		})
	}
}

// Caller is the authenticated user, as a field of any input that needs it:
// it resolves itself from the request before the handler runs.
type Caller struct {
	Name string
}

func (c *Caller) Resolve(ctx context.Context, req *http.Request) []problem.FieldError {
	c.Name, _ = ctx.Value(userKey{}).(string)
	return nil
}

// MyNotes needs the caller, and nothing from the request itself.
type MyNotes struct {
	Caller Caller
}

type Me struct {
	User string `json:"user"`
}

func registerAuth(r *vane.Router, tokens map[string]string) {
	// Defaults for every operation of the group: the middleware that
	// checks the token, the requirement the document shows (with an
	// Authorize button on the docs page), and the 401 it may answer.
	private := r.Group("", vane.Middleware(requireUser(r, tokens)), vane.Security("bearer"),
		vane.Problems(vane.ProblemType{Status: http.StatusUnauthorized, Description: "No valid bearer token.",
			Headers: map[string]string{"WWW-Authenticate": "How to authenticate."}}))
	vane.Get(private, "/me", func(ctx context.Context, in *MyNotes) (*Me, error) {
		return &Me{User: in.Caller.Name}, nil
	}, vane.ID("whoAmI"))

	// Public says, in the document, that an operation needs nothing, even
	// where the document's Security names a default.
	vane.Get(r, "/health", func(ctx context.Context, _ *struct{}) (*struct{}, error) {
		return nil, nil
	}, vane.ID("health"), vane.Public())
}

// authDocs declares the scheme the operations name.
var authDocs = vane.DocsConfig{Config: openapi.Config{
	Info:            openapi.Info{Title: "Notes", Version: "1.0.0"},
	SecuritySchemes: map[string]*openapi.SecurityScheme{"bearer": openapi.BearerAuth("")},
}}

func TestAuth(t *testing.T) {
	r := vane.New()
	registerAuth(r, map[string]string{"s3cret-token": "ada"})
	vane.Docs(r, authDocs)
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	api := vanetest.New(t, r)
	if _, p := vanetest.Call[MyNotes, Me](api, "whoAmI", &MyNotes{}); p == nil || p.Status != 401 {
		t.Errorf("without a token: %v, want 401", p)
	}
	me, p := vanetest.Call[MyNotes, Me](api, "whoAmI", &MyNotes{}, vanetest.Header("Authorization", "Bearer s3cret-token"))
	if p != nil || me.User != "ada" {
		t.Errorf("with the token: %+v %v", me, p)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Security *[]map[string][]string `json:"security"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(api.Get("/openapi.json").Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if s := doc.Paths["/me"]["get"].Security; s == nil || len(*s) != 1 || (*s)[0]["bearer"] == nil {
		t.Errorf("GET /me's security: %v, want bearer", s)
	}
	if s := doc.Paths["/health"]["get"].Security; s == nil || len(*s) != 0 {
		t.Errorf("GET /health's security: %v, want none, said ([])", s)
	}
}
