package vanetest_test

// The samples of docs/guide/testing.md, run as tests.

import (
	"context"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/vanetest"
)

type GetNote struct {
	ID int64 `path:"id" minimum:"1"`
}

type Note struct {
	ID     int64  `json:"id"`
	Text   string `json:"text" minLength:"1"`
	Author string `json:"author"`
}

type AttachFile struct {
	ID   int64 `path:"id" minimum:"1"`
	Body struct {
		Title string                `form:"title" maxLength:"80"`
		File  *multipart.FileHeader `form:"file" required:"true"`
	}
}

type Attachment struct {
	Title string `json:"title"`
	Name  string `json:"name"`
	Type  string `json:"type"`
	Size  int64  `json:"size"`
}

// newNotesAPI is the API the guide's tests test: notes behind a bearer
// token (requireUser), one of which, 404, does not exist.
func newNotesAPI() *vane.Router {
	r := vane.New()
	api := r.Group("", vane.Middleware(requireUser),
		vane.Problems(vane.ProblemType{Status: http.StatusUnauthorized, Description: "No valid token."}))
	vane.Get(api, "/notes/{id}", func(ctx context.Context, in *GetNote) (*Note, error) {
		if in.ID == 404 {
			return nil, vane.NotFound("no such note")
		}
		return &Note{ID: in.ID, Text: "a note", Author: ctx.Value(userKey{}).(string)}, nil
	}, vane.ID("getNote"), vane.Responds(404, "No such note."))
	vane.Post(api, "/notes/{id}/attachments", func(ctx context.Context, in *AttachFile) (*Attachment, error) {
		f := in.Body.File
		return &Attachment{Title: in.Body.Title, Name: f.Filename, Type: f.Header.Get("Content-Type"), Size: f.Size}, nil
	}, vane.ID("attachFile"))
	return r
}

func TestGetNote(t *testing.T) {
	api := vanetest.New(t, newNotesAPI())
	ann := api.With(vanetest.Header("Authorization", "Bearer ann"))

	note, p := vanetest.Call[GetNote, Note](ann, "getNote", &GetNote{ID: 7})
	if p != nil {
		t.Fatalf("getNote: %v", p)
	}
	if note.Author != "ann" {
		t.Errorf("author %q, want ann", note.Author)
	}

	_, p = vanetest.Call[GetNote, Note](ann, "getNote", &GetNote{ID: 404})
	if p == nil || p.Status != http.StatusNotFound {
		t.Errorf("a missing note: %v", p)
	}
	_, p = vanetest.Call[GetNote, Note](ann, "getNote", &GetNote{ID: 0})
	if p == nil || p.Status != http.StatusUnprocessableEntity || p.Errors[0].Location != "path.id" {
		t.Errorf("id 0: %v", p)
	}
}

func TestCredentials(t *testing.T) {
	api := vanetest.New(t, newNotesAPI())

	// No token: the middleware's 401, which the document lists.
	_, p := vanetest.Call[GetNote, Note](api, "getNote", &GetNote{ID: 7})
	if p == nil || p.Status != http.StatusUnauthorized {
		t.Errorf("without a token: %v", p)
	}
	// A header for one call.
	note, _ := vanetest.Call[GetNote, Note](api, "getNote", &GetNote{ID: 7},
		vanetest.Header("Authorization", "Bearer bob"))
	if note == nil || note.Author != "bob" {
		t.Errorf("as bob: %+v", note)
	}
	// A cookie for one call.
	note, _ = vanetest.Call[GetNote, Note](api, "getNote", &GetNote{ID: 7},
		vanetest.Cookie("session", "cy"))
	if note == nil || note.Author != "cy" {
		t.Errorf("with a session cookie: %+v", note)
	}
}

func TestAttachFile(t *testing.T) {
	api := vanetest.New(t, newNotesAPI()).With(vanetest.Header("Authorization", "Bearer ann"))

	in := &AttachFile{ID: 7}
	in.Body.Title = "The plan"
	in.Body.File = vanetest.File("plan.pdf", "application/pdf", []byte("%PDF-1.7 ..."))
	out, p := vanetest.Call[AttachFile, Attachment](api, "attachFile", in)
	if p != nil {
		t.Fatalf("attachFile: %v", p)
	}
	if out.Name != "plan.pdf" || out.Type != "application/pdf" || out.Size != 12 {
		t.Errorf("%+v", out)
	}
}

func TestAttachFileByHand(t *testing.T) {
	api := vanetest.New(t, newNotesAPI()).With(vanetest.Header("Authorization", "Bearer ann"))

	body := vanetest.NewMultipart().
		Field("title", "The plan").
		File("file", "plan.pdf", "application/pdf", []byte("%PDF-1.7 ..."))
	res := api.Post("/notes/7/attachments", body)
	out := vanetest.Decode[Attachment](t, res)
	if out.Name != "plan.pdf" {
		t.Errorf("%+v", out)
	}

	// What Call cannot send: a title too long, and no file at all.
	res = api.Post("/notes/7/attachments", vanetest.NewMultipart().Field("title", strings.Repeat("x", 81)))
	p := vanetest.Problem(t, res)
	if p.Status != http.StatusUnprocessableEntity || len(p.Errors) != 2 {
		t.Errorf("%+v", p)
	}
}

func TestOverHTTP(t *testing.T) {
	api := vanetest.New(t, newNotesAPI())
	srv := httptest.NewServer(api.Handler()) // every answer still checked
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/notes/7", nil)
	req.Header.Set("Authorization", "Bearer ann")
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("status %d", res.StatusCode)
	}
}
