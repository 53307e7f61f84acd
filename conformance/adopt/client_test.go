package adopt_test

import (
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/vane-http/vane/conformance/adopt"
	"github.com/vane-http/vane/conformance/adopt/notesclient"
	"github.com/vane-http/vane/conformance/internal/oapigen"
)

var update = flag.Bool("update", false, "rewrite notesclient/openapi-3.0.json from the API and regenerate the client")

// A client generated from the document that the API serves under the
// prefix calls its operations through each host, given only the host's
// address.
func TestGeneratedClient(t *testing.T) {
	t.Run("client is generated from the served document", func(t *testing.T) {
		r, _ := adopt.NewAPI(adopt.Prefix)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", adopt.Prefix+"/openapi-3.0.json", nil))
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s/openapi-3.0.json: %d", adopt.Prefix, w.Code)
		}
		oapigen.Check(t, "notesclient", w.Body.Bytes(), *update, "go test ./adopt -run TestGeneratedClient -update")
	})
	if t.Failed() {
		return
	}
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			srv := app(t, h)
			ctx := context.Background()
			as := func(user string) *notesclient.ClientWithResponses {
				c, err := notesclient.NewClientWithResponses(srv.URL, notesclient.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
					req.Header.Set("Authorization", "Bearer "+user)
					return nil
				}))
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			ann := as("ann")
			got, err := ann.GetNoteWithResponse(ctx, 7)
			if err != nil || got.JSON200 == nil || got.JSON200.Text != "note 7" || got.JSON200.Author == nil || *got.JSON200.Author != "ann" ||
				got.Headers200 == nil || got.Headers200.XOperation == nil || *got.Headers200.XOperation != "getNote" {
				t.Errorf("getNote: %v %s", err, body(got))
			}
			created, err := ann.CreateNoteWithResponse(ctx, notesclient.CreateNoteJSONRequestBody{Text: "hello"})
			if err != nil || created.JSON201 == nil || created.JSON201.Text != "hello" {
				t.Errorf("createNote: %v %s", err, body(created))
			}
			me, err := as("bob").GetMeWithResponse(ctx)
			if err != nil || me.JSON200 == nil || me.JSON200.User != "bob" {
				t.Errorf("getMe: %v %s", err, body(me))
			}
			missing, err := ann.GetNoteWithResponse(ctx, 5000)
			if err != nil || missing.ApplicationproblemJSON404 == nil {
				t.Errorf("getNote of a missing note: %v %s", err, body(missing))
			}
			refused, err := as("bad").GetNoteWithResponse(ctx, 7)
			if err != nil || refused.ApplicationproblemJSON401 == nil {
				t.Errorf("getNote with a bad token: %v %s", err, body(refused))
			}
		})
	}
}

// body is a response's body, for messages.
func body[R any, P interface {
	*R
	GetBody() []byte
}](r P) string {
	if r == nil {
		return "(no response)"
	}
	return string(r.GetBody())
}
