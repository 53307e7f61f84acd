package client

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vane-http/vane/conformance/client/petstore"
	"github.com/vane-http/vane/internal/examplerun"
	"github.com/vane-http/vane/internal/oasvalidate"
)

var update = flag.Bool("update", false, "rewrite petstore/openapi-3.0.json from the running example and regenerate the client")

// TestGeneratedClient is the whole check: the document, the generated
// client, and every operation called through it.
func TestGeneratedClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example service")
	}
	svc := examplerun.Start(t, examplerun.Options{Race: true})
	// Kept indented, so that a change of the document reads as a diff.
	doc30 := indented(t, examplerun.Get(t, svc.URL+"/openapi-3.0.json"))
	doc31 := examplerun.Get(t, svc.URL+"/openapi.json")

	t.Run("documents are valid", func(t *testing.T) {
		oasvalidate.Validate(t, map[string][]byte{
			"petstore-3.0.json": doc30, "petstore-3.0.yaml": examplerun.Get(t, svc.URL+"/openapi-3.0.yaml"),
			"petstore.json": doc31,
		})
	})

	t.Run("client is generated from the served document", func(t *testing.T) {
		kept := filepath.Join("petstore", "openapi-3.0.json")
		if *update {
			if err := os.WriteFile(kept, doc30, 0o644); err != nil {
				t.Fatal(err)
			}
			generate(t, "client.gen.go")
		}
		if b, err := os.ReadFile(kept); err != nil || !bytes.Equal(b, doc30) {
			t.Fatalf("petstore/openapi-3.0.json is not the document the example serves (%v): "+
				"go test ./client -update regenerates the client; then review the diff", err)
		}
		// The committed client is the generator's output, untouched.
		fresh := generate(t, filepath.Join(t.TempDir(), "client.gen.go"))
		committed, err := os.ReadFile(filepath.Join("petstore", "client.gen.go"))
		if err != nil || !bytes.Equal(fresh, committed) {
			t.Fatalf("petstore/client.gen.go is not what oapi-codegen generates from petstore/openapi-3.0.json (%v): go generate ./client/petstore", err)
		}
	})
	if t.Failed() {
		return
	}

	t.Run("every operation", func(t *testing.T) {
		rec := &recorder{}
		drive(t, svc, rec)
		// Each operation of the document got a success through the client.
		for _, op := range operations(t, doc30) {
			if !rec.succeeded(op.method, op.path) {
				t.Errorf("operation %s (%s %s) was not called successfully through the generated client", op.id, op.method, op.path)
			}
		}
	})
}

// drive calls every operation of the example through the generated client,
// with valid and invalid inputs, and checks the answers.
func drive(t *testing.T, svc *examplerun.Service, rec *recorder) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	anon, err := petstore.NewClientWithResponses(svc.URL, petstore.WithHTTPClient(rec))
	if err != nil {
		t.Fatal(err)
	}
	authorized, err := petstore.NewClientWithResponses(svc.URL, petstore.WithHTTPClient(rec),
		petstore.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+svc.Token)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}

	// Create a pet of our own, so that nothing depends on the seed data.
	owner := "Ada"
	tags := []string{"conformance", "generated,client"}
	input := petstore.PetInput{Name: "Client", Species: petstore.PetInputSpeciesRabbit, Owner: &owner, Tags: &tags}
	created, err := authorized.CreatePetWithResponse(ctx, input)
	must(t, "createPet", err, created.StatusCode(), created.Body, http.StatusCreated)
	pet := created.JSON201
	if pet == nil || pet.Id == nil || pet.Name != "Client" || pet.Species != petstore.PetSpeciesRabbit {
		t.Fatalf("createPet: decoded %+v from %s", pet, created.Body)
	}
	id := *pet.Id
	if loc := created.HTTPResponse.Header.Get("Location"); loc != fmt.Sprintf("/pets/%d", id) {
		t.Errorf("createPet: Location %q, want /pets/%d", loc, id)
	}

	t.Run("createPet without a token", func(t *testing.T) {
		res, err := anon.CreatePetWithResponse(ctx, input)
		must(t, "createPet", err, res.StatusCode(), res.Body, http.StatusUnauthorized)
		problem(t, res.ApplicationproblemJSON401)
	})
	t.Run("createPet with an invalid body", func(t *testing.T) {
		res, err := authorized.CreatePetWithResponse(ctx, petstore.PetInput{Name: "", Species: "dragon"})
		must(t, "createPet", err, res.StatusCode(), res.Body, http.StatusUnprocessableEntity)
		p := problem(t, res.ApplicationproblemJSON422)
		if p != nil && (p.Errors == nil || len(*p.Errors) < 2) {
			t.Errorf("422 lists %v, want the name and the species", p.Errors)
		}
	})

	t.Run("getPet", func(t *testing.T) {
		res, err := anon.GetPetWithResponse(ctx, id)
		must(t, "getPet", err, res.StatusCode(), res.Body, http.StatusOK)
		if p := res.JSON200; p == nil || p.Name != "Client" || p.Tags == nil || strings.Join(*p.Tags, "|") != "conformance|generated,client" {
			t.Errorf("getPet: %s", res.Body)
		}
		res, err = anon.GetPetWithResponse(ctx, 1<<40)
		must(t, "getPet", err, res.StatusCode(), res.Body, http.StatusNotFound)
		problem(t, res.ApplicationproblemJSON404)
		res, err = anon.GetPetWithResponse(ctx, 0)
		must(t, "getPet", err, res.StatusCode(), res.Body, http.StatusUnprocessableEntity)
		problem(t, res.ApplicationproblemJSON422)
	})

	t.Run("listPets", func(t *testing.T) {
		limit := int64(100)
		species := petstore.ListPetsParamsSpeciesRabbit
		tag := []string{"conformance"}
		res, err := anon.ListPetsWithResponse(ctx, &petstore.ListPetsParams{Limit: &limit, Species: &species, Tag: &tag})
		must(t, "listPets", err, res.StatusCode(), res.Body, http.StatusOK)
		found := false
		if res.JSON200 != nil {
			for _, p := range res.JSON200.Items {
				found = found || (p.Id != nil && *p.Id == id)
				if p.Species != petstore.PetSpeciesRabbit {
					t.Errorf("listPets species=rabbit returned a %s", p.Species)
				}
			}
		}
		if !found {
			t.Errorf("listPets with our filters does not list pet %d: %s", id, res.Body)
		}
		// A tag with a comma in it, sent as the document says (style form,
		// explode true: one tag=… per value, the comma escaped).
		tag = []string{"generated,client"}
		res, err = anon.ListPetsWithResponse(ctx, &petstore.ListPetsParams{Limit: &limit, Tag: &tag})
		must(t, "listPets", err, res.StatusCode(), res.Body, http.StatusOK)
		if res.JSON200 == nil || len(res.JSON200.Items) != 1 {
			t.Errorf("listPets tag=generated%%2Cclient does not find the one pet with that tag: %s", res.Body)
		}
		// A page of one: a next link, and a total of at least two when
		// asked for; following the link's cursor gives the next page.
		one, yes := int64(1), true
		res, err = anon.ListPetsWithResponse(ctx, &petstore.ListPetsParams{Limit: &one, Total: &yes})
		must(t, "listPets", err, res.StatusCode(), res.Body, http.StatusOK)
		p := res.JSON200
		if p == nil || len(p.Items) != 1 || p.Next == nil || p.Total == nil || *p.Total < 2 {
			t.Fatalf("listPets limit=1: %s", res.Body)
		}
		next, err := url.Parse(*p.Next)
		if err != nil {
			t.Fatal(err)
		}
		cursor := next.Query().Get("cursor")
		res, err = anon.ListPetsWithResponse(ctx, &petstore.ListPetsParams{Limit: &one, Cursor: &cursor})
		must(t, "listPets", err, res.StatusCode(), res.Body, http.StatusOK)
		if q := res.JSON200; q == nil || len(q.Items) != 1 || q.Items[0].Id == nil || p.Items[0].Id == nil || *q.Items[0].Id <= *p.Items[0].Id {
			t.Errorf("the next page by cursor: %s", res.Body)
		}
		tooMany := int64(500)
		res, err = anon.ListPetsWithResponse(ctx, &petstore.ListPetsParams{Limit: &tooMany})
		must(t, "listPets", err, res.StatusCode(), res.Body, http.StatusUnprocessableEntity)
		problem(t, res.ApplicationproblemJSON422)
	})

	t.Run("updatePet", func(t *testing.T) {
		status := petstore.PetInputStatusPending
		res, err := authorized.UpdatePetWithResponse(ctx, id, &petstore.UpdatePetParams{}, petstore.PetInput{Name: "Client II", Species: petstore.PetInputSpeciesRabbit, Status: &status})
		must(t, "updatePet", err, res.StatusCode(), res.Body, http.StatusOK)
		if p := res.JSON200; p == nil || p.Name != "Client II" || p.Status == nil || *p.Status != petstore.PetStatusPending {
			t.Errorf("updatePet: %s", res.Body)
		}
		stale := `"stale"`
		res, err = authorized.UpdatePetWithResponse(ctx, id, &petstore.UpdatePetParams{IfMatch: &stale}, petstore.PetInput{Name: "Client III", Species: petstore.PetInputSpeciesRabbit})
		must(t, "updatePet", err, res.StatusCode(), res.Body, http.StatusPreconditionFailed)
	})

	t.Run("patchPet", func(t *testing.T) {
		cur, err := anon.GetPetWithResponse(ctx, id)
		must(t, "getPet", err, cur.StatusCode(), cur.Body, http.StatusOK)
		etag := cur.HTTPResponse.Header.Get("ETag")
		// A member set to null, which the generated struct cannot say
		// (an absent pointer is left out), goes as the body's own bytes.
		res, err := authorized.PatchPetWithBodyWithResponse(ctx, id, &petstore.PatchPetParams{IfMatch: &etag},
			"application/merge-patch+json", strings.NewReader(`{"status":"adopted","owner":null}`))
		must(t, "patchPet", err, res.StatusCode(), res.Body, http.StatusOK)
		if p := res.JSON200; p == nil || p.Name != "Client II" || p.Status == nil || *p.Status != petstore.PetStatusAdopted || p.Owner != nil {
			t.Errorf("patchPet: %s", res.Body)
		}
	})

	t.Run("petEvents", func(t *testing.T) {
		sctx, stop := context.WithCancel(ctx)
		defer stop()
		res, err := anon.PetEvents(sctx, &petstore.PetEventsParams{})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
			t.Errorf("petEvents: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
		}
	})

	// A 1×1 PNG.
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
		"\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")
	t.Run("uploadPetPhoto", func(t *testing.T) {
		ctype, body := photoForm(t, "image/png", png)
		res, err := authorized.UploadPetPhotoWithBodyWithResponse(ctx, id, ctype, body)
		must(t, "uploadPetPhoto", err, res.StatusCode(), res.Body, http.StatusOK)
		if p := res.JSON200; p == nil || p.HasPhoto == nil || !*p.HasPhoto {
			t.Errorf("uploadPetPhoto: %s", res.Body)
		}
		ctype, body = photoForm(t, "text/html", []byte("<script>alert(1)</script>"))
		res, err = authorized.UploadPetPhotoWithBodyWithResponse(ctx, id, ctype, body)
		must(t, "uploadPetPhoto", err, res.StatusCode(), res.Body, http.StatusUnprocessableEntity)
		problem(t, res.ApplicationproblemJSON422)
	})

	t.Run("getPetPhoto", func(t *testing.T) {
		res, err := anon.GetPetPhotoWithResponse(ctx, id)
		must(t, "getPetPhoto", err, res.StatusCode(), res.Body, http.StatusOK)
		if !bytes.Equal(res.Body, png) || res.ContentType() != "image/png" {
			t.Errorf("getPetPhoto: %q, %d bytes", res.ContentType(), len(res.Body))
		}
	})

	t.Run("whoAmI", func(t *testing.T) {
		res, err := authorized.WhoAmIWithResponse(ctx)
		must(t, "whoAmI", err, res.StatusCode(), res.Body, http.StatusOK)
		if res.JSON200 == nil || res.JSON200.User == "" {
			t.Errorf("whoAmI: %s", res.Body)
		}
		res, err = anon.WhoAmIWithResponse(ctx)
		must(t, "whoAmI", err, res.StatusCode(), res.Body, http.StatusUnauthorized)
	})

	t.Run("deletePet", func(t *testing.T) {
		stale := `"1"`
		res, err := authorized.DeletePetWithResponse(ctx, id, &petstore.DeletePetParams{IfMatch: &stale})
		must(t, "deletePet", err, res.StatusCode(), res.Body, http.StatusPreconditionFailed)
		cur, err := anon.GetPetWithResponse(ctx, id)
		must(t, "getPet", err, cur.StatusCode(), cur.Body, http.StatusOK)
		etag := cur.HTTPResponse.Header.Get("ETag")
		res, err = authorized.DeletePetWithResponse(ctx, id, &petstore.DeletePetParams{IfMatch: &etag})
		must(t, "deletePet", err, res.StatusCode(), res.Body, http.StatusNoContent)
		again, err := anon.GetPetWithResponse(ctx, id)
		must(t, "getPet after deletePet", err, again.StatusCode(), again.Body, http.StatusNotFound)
		res, err = authorized.DeletePetWithResponse(ctx, id, &petstore.DeletePetParams{})
		must(t, "deletePet", err, res.StatusCode(), res.Body, http.StatusNotFound)
	})
}

func must(t *testing.T, op string, err error, status int, body []byte, want int) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: the generated client failed: %v", op, err)
	}
	if status != want {
		t.Fatalf("%s: status %d, want %d: %s", op, status, want, body)
	}
}

// problem checks that the generated client decoded a problem response.
func problem(t *testing.T, p *petstore.Problem) *petstore.Problem {
	t.Helper()
	if p == nil || p.Status == nil || p.Title == nil {
		t.Errorf("the generated client did not decode a problem: %+v", p)
	}
	return p
}

func photoForm(t *testing.T, ctype string, data []byte) (string, io.Reader) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="photo"; filename="photo"`)
	h.Set("Content-Type", ctype)
	part, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	part.Write(data)
	mw.Close()
	return mw.FormDataContentType(), &buf
}

// recorder is the generated client's HTTP client: it sends with
// http.DefaultClient and records each request's method, path and status.
type recorder struct {
	mu   sync.Mutex
	seen []exchange
}

type exchange struct {
	method, path string
	status       int
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.seen = append(r.seen, exchange{req.Method, req.URL.Path, res.StatusCode})
	r.mu.Unlock()
	return res, nil
}

// succeeded reports whether a request matching method and the OpenAPI path
// template got a 2xx answer.
func (r *recorder) succeeded(method, template string) bool {
	re := regexp.MustCompile("^" + regexp.MustCompile(`\\\{[^}]*\\\}`).ReplaceAllString(regexp.QuoteMeta(template), `[^/]+`) + "$")
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.seen {
		if e.method == method && re.MatchString(e.path) && e.status/100 == 2 {
			return true
		}
	}
	return false
}

type operation struct{ id, method, path string }

// operations lists the document's operations.
func operations(t *testing.T, doc []byte) []operation {
	var d struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		}
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	var ops []operation
	for path, item := range d.Paths {
		for method, op := range item {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
				ops = append(ops, operation{op.OperationID, strings.ToUpper(method), path})
			}
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].id < ops[j].id })
	if len(ops) == 0 {
		t.Fatal("the document has no operations")
	}
	return ops
}

// generate runs oapi-codegen on petstore/openapi-3.0.json, writing out, and
// returns what it wrote.
func generate(t *testing.T, out string) []byte {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("petstore", out))
	if filepath.IsAbs(out) {
		abs = out
	}
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "tool", "oapi-codegen", "-config", "oapi-codegen.yaml", "-o", abs, "openapi-3.0.json")
	cmd.Dir = "petstore"
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, b)
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	return b
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
