package adopt_test

import (
	"bytes"
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/vane-http/vane/conformance/adopt"
	"github.com/vane-http/vane/conformance/adopt/notesclient"
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
		kept := filepath.Join("notesclient", "openapi-3.0.json")
		if *update {
			if err := os.WriteFile(kept, w.Body.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			generate(t, "client.gen.go")
		}
		if b, err := os.ReadFile(kept); err != nil || !bytes.Equal(b, w.Body.Bytes()) {
			t.Fatalf("notesclient/openapi-3.0.json is not the document the API serves (%v): "+
				"go test ./adopt -run TestGeneratedClient -update regenerates the client; then review the diff", err)
		}
		fresh := generate(t, filepath.Join(t.TempDir(), "client.gen.go"))
		committed, err := os.ReadFile(filepath.Join("notesclient", "client.gen.go"))
		if err != nil || !bytes.Equal(fresh, committed) {
			t.Fatalf("notesclient/client.gen.go is not what oapi-codegen generates from notesclient/openapi-3.0.json (%v): go generate ./adopt/notesclient", err)
		}
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

// generate runs oapi-codegen on notesclient/openapi-3.0.json, writing out
// (relative to notesclient, or absolute), and returns what it wrote.
func generate(t *testing.T, out string) []byte {
	t.Helper()
	abs := out
	if !filepath.IsAbs(out) {
		var err error
		if abs, err = filepath.Abs(filepath.Join("notesclient", out)); err != nil {
			t.Fatal(err)
		}
	}
	// Generous: the first run compiles the generator.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "tool", "oapi-codegen", "-config", "oapi-codegen.yaml", "-o", abs, "openapi-3.0.json")
	cmd.Dir = "notesclient"
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, b)
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
