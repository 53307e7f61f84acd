package ogen

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-faster/jx"

	"github.com/vane-http/vane/conformance/ogen/petstore"
	"github.com/vane-http/vane/internal/examplerun"
)

var update = flag.Bool("update", false, "rewrite petstore/openapi.json from the running example and regenerate the client")

func TestOgenClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example service")
	}
	svc := examplerun.Start(t, examplerun.Options{})
	// Kept indented, so that a change of the document reads as a diff.
	doc := indented(t, examplerun.Get(t, svc.URL+"/openapi.json"))

	t.Run("client is generated from the served document", func(t *testing.T) {
		kept := filepath.Join("petstore", "openapi.json")
		if *update {
			if err := os.WriteFile(kept, doc, 0o644); err != nil {
				t.Fatal(err)
			}
			generate(t, "petstore")
		}
		if b, err := os.ReadFile(kept); err != nil || !bytes.Equal(b, doc) {
			t.Fatalf("petstore/openapi.json is not the document the example serves (%v): go test ./ogen -update regenerates the client", err)
		}
		// The committed client is ogen's output, untouched.
		fresh := t.TempDir()
		generate(t, fresh)
		files, err := filepath.Glob(filepath.Join(fresh, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("ogen generated nothing (%v)", err)
		}
		for _, f := range files {
			want, _ := os.ReadFile(f)
			got, err := os.ReadFile(filepath.Join("petstore", filepath.Base(f)))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("petstore/%s is not what ogen generates from petstore/openapi.json (%v): go generate ./ogen", filepath.Base(f), err)
			}
		}
	})
	if t.Failed() {
		return
	}
	drive(t, svc)
}

// generate runs ogen on petstore/openapi.json into dir.
func generate(t *testing.T, dir string) {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "tool", "ogen", "--config", "ogen.yml", "--target", abs, "--package", "petstore", "--clean", filepath.Join("petstore", "openapi.json"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("ogen: %v\n%s", err, out.Bytes())
	}
}

// token is the example's bearer token as ogen's security source.
type token string

func (tk token) Bearer(context.Context, petstore.OperationName, *petstore.Client) (petstore.Bearer, error) {
	return petstore.Bearer{Token: string(tk)}, nil
}

// drive calls the operations ogen generated through its client and checks
// each typed answer.
func drive(t *testing.T, svc *examplerun.Service) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := petstore.NewClient(svc.URL, token(svc.Token))
	if err != nil {
		t.Fatal(err)
	}
	anon, err := petstore.NewClient(svc.URL, token("not a token"))
	if err != nil {
		t.Fatal(err)
	}

	// With an Idempotency-Key, sent twice: one pet, the second answer a replay.
	key := petstore.CreatePetParams{IdempotencyKey: petstore.NewOptString(`"ogen-client-create-0001"`)}
	created, err := c.CreatePet(ctx, &petstore.PetInput{Name: "Ogen", Species: petstore.PetInputSpeciesCat, Tags: []string{"ogen"}}, key)
	pet, ok := created.(*petstore.PetHeaders)
	if err != nil || !ok || pet.Response.Name != "Ogen" || pet.IdempotentReplayed.Set {
		t.Fatalf("createPet: %#v %v", created, err)
	}
	id := pet.Response.ID
	again, err := c.CreatePet(ctx, &petstore.PetInput{Name: "Ogen", Species: petstore.PetInputSpeciesCat, Tags: []string{"ogen"}}, key)
	if replay, ok := again.(*petstore.PetHeaders); err != nil || !ok || replay.Response.ID != id || replay.IdempotentReplayed.Value != "true" {
		t.Fatalf("createPet again with its key: %#v %v", again, err)
	}

	t.Run("a typed problem: 401 with WWW-Authenticate", func(t *testing.T) {
		res, err := anon.CreatePet(ctx, &petstore.PetInput{Name: "X", Species: petstore.PetInputSpeciesCat}, petstore.CreatePetParams{})
		p, ok := res.(*petstore.ProblemHeaders)
		if err != nil || !ok || p.Response.Status.Value != 401 || p.WWWAuthenticate.Value == "" {
			t.Errorf("%#v %v", res, err)
		}
	})
	t.Run("a typed problem: 422 listing every field", func(t *testing.T) {
		res, err := c.CreatePet(ctx, &petstore.PetInput{Name: "", Species: petstore.PetInputSpeciesCat}, petstore.CreatePetParams{})
		if p, ok := res.(*petstore.CreatePetUnprocessableEntity); err != nil || !ok || len(p.Errors) == 0 || p.Errors[0].Location != "body.name" {
			t.Errorf("%#v %v", res, err)
		}
	})

	var etag string
	t.Run("getPet", func(t *testing.T) {
		res, err := c.GetPet(ctx, petstore.GetPetParams{ID: id})
		p, ok := res.(*petstore.GetPetOKHeaders)
		if err != nil || !ok || p.Response.Name != "Ogen" || !p.Etag.Set {
			t.Fatalf("%#v %v", res, err)
		}
		etag = p.Etag.Value
		res, err = c.GetPet(ctx, petstore.GetPetParams{ID: 1 << 40})
		if _, ok := res.(*petstore.GetPetNotFound); err != nil || !ok {
			t.Errorf("unknown pet: %#v %v", res, err)
		}
	})

	t.Run("listPets", func(t *testing.T) {
		res, err := c.ListPets(ctx, petstore.ListPetsParams{Tag: []string{"ogen"}})
		page, ok := res.(*petstore.PagePetHeaders)
		if err != nil || !ok || len(page.Response.Items) != 1 || page.Response.Items[0].ID != id {
			t.Errorf("%#v %v", res, err)
		}
		// Following the Link header's cursor pages on; a changed cursor is
		// a typed 400.
		res, err = c.ListPets(ctx, petstore.ListPetsParams{Limit: petstore.NewOptInt64(1)})
		first, ok := res.(*petstore.PagePetHeaders)
		if err != nil || !ok || !first.Link.Set || !strings.Contains(first.Link.Value, `rel="next"`) {
			t.Fatalf("first page: %#v %v", res, err)
		}
		u, err := url.Parse(strings.TrimPrefix(strings.Split(first.Link.Value, ">")[0], "<"))
		if err != nil {
			t.Fatal(err)
		}
		cursor := u.Query().Get("cursor")
		res, err = c.ListPets(ctx, petstore.ListPetsParams{Limit: petstore.NewOptInt64(1), Cursor: petstore.NewOptString(cursor)})
		if second, ok := res.(*petstore.PagePetHeaders); err != nil || !ok || len(second.Response.Items) != 1 || second.Response.Items[0].ID <= first.Response.Items[0].ID {
			t.Errorf("second page: %#v %v", res, err)
		}
		res, err = c.ListPets(ctx, petstore.ListPetsParams{Limit: petstore.NewOptInt64(1), Cursor: petstore.NewOptString(cursor + "x")})
		if _, ok := res.(*petstore.ListPetsBadRequest); err != nil || !ok {
			t.Errorf("a changed cursor: %#v %v", res, err)
		}
	})

	t.Run("updatePet, conditional", func(t *testing.T) {
		in := &petstore.PetInput{Name: "Ogen II", Species: petstore.PetInputSpeciesCat}
		res, err := c.UpdatePet(ctx, in, petstore.UpdatePetParams{ID: id, IfMatch: petstore.NewOptString(etag)})
		p, ok := res.(*petstore.UpdatePetOKHeaders)
		if err != nil || !ok || p.Response.Name != "Ogen II" || p.Etag.Value == etag {
			t.Fatalf("%#v %v", res, err)
		}
		stale := etag
		etag = p.Etag.Value
		res, err = c.UpdatePet(ctx, in, petstore.UpdatePetParams{ID: id, IfMatch: petstore.NewOptString(stale)})
		if _, ok := res.(*petstore.UpdatePetPreconditionFailed); err != nil || !ok {
			t.Errorf("stale If-Match: %#v %v", res, err)
		}
	})

	t.Run("patchPet, merge patch", func(t *testing.T) {
		var patch petstore.PatchPetReqApplicationMergePatchJSON
		patch.Owner.SetTo("Ada")
		patch.Tags.SetToNull()
		res, err := c.PatchPet(ctx, &patch, petstore.PatchPetParams{ID: id, IfMatch: petstore.NewOptString(etag)})
		p, ok := res.(*petstore.UpdatePetOKHeaders)
		if err != nil || !ok || p.Response.Owner.Value != "Ada" || len(p.Response.Tags) != 0 || p.Response.Name != "Ogen II" {
			t.Fatalf("%#v %v", res, err)
		}
		res, err = c.PatchPet(ctx, &patch, petstore.PatchPetParams{ID: id, IfMatch: petstore.NewOptString(etag)})
		if _, ok := res.(*petstore.PatchPetPreconditionFailed); err != nil || !ok {
			t.Errorf("stale If-Match: %#v %v", res, err)
		}
	})

	t.Run("patchPet, JSON Patch", func(t *testing.T) {
		replace := petstore.NewPatchPetReqApplicationJSONPatchJSONItem0PatchPetReqApplicationJSONPatchJSONItem(
			petstore.PatchPetReqApplicationJSONPatchJSONItem0{Op: "replace", Path: "/name", Value: jx.Raw(`"Ogen III"`)})
		patch := petstore.PatchPetReqApplicationJSONPatchJSON{replace}
		res, err := c.PatchPet(ctx, &patch, petstore.PatchPetParams{ID: id})
		if p, ok := res.(*petstore.UpdatePetOKHeaders); err != nil || !ok || p.Response.Name != "Ogen III" || p.Response.Owner.Value != "Ada" {
			t.Fatalf("%#v %v", res, err)
		}
		test := petstore.NewPatchPetReqApplicationJSONPatchJSONItem0PatchPetReqApplicationJSONPatchJSONItem(
			petstore.PatchPetReqApplicationJSONPatchJSONItem0{Op: "test", Path: "/name", Value: jx.Raw(`"Ogen"`)})
		patch = petstore.PatchPetReqApplicationJSONPatchJSON{test, replace}
		res, err = c.PatchPet(ctx, &patch, petstore.PatchPetParams{ID: id})
		if _, ok := res.(*petstore.PatchPetConflict); err != nil || !ok {
			t.Errorf("failed test operation: %#v %v", res, err)
		}
	})

	t.Run("whoAmI", func(t *testing.T) {
		res, err := c.WhoAmI(ctx)
		if me, ok := res.(*petstore.Me); err != nil || !ok || me.User == "" {
			t.Errorf("%#v %v", res, err)
		}
	})

	t.Run("deletePet", func(t *testing.T) {
		res, err := c.DeletePet(ctx, petstore.DeletePetParams{ID: id})
		if _, ok := res.(*petstore.DeletePetNoContent); err != nil || !ok {
			t.Fatalf("%#v %v", res, err)
		}
		res, err = c.DeletePet(ctx, petstore.DeletePetParams{ID: id})
		if _, ok := res.(*petstore.DeletePetNotFound); err != nil || !ok {
			t.Errorf("again: %#v %v", res, err)
		}
	})
}

// indented returns the JSON document doc indented by two spaces a level,
// as the committed copy is written.
func indented(t *testing.T, doc []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, bytes.TrimSpace(doc), "", "  "); err != nil {
		t.Fatalf("the served document is not JSON: %v", err)
	}
	return append(b.Bytes(), '\n')
}
