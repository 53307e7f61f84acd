package guide_test

import (
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/vanetest"
)

// Paging is a part several inputs share: an embedded struct without a tag
// of its own is read as if its fields were the input's.
type Paging struct {
	Limit  int `query:"limit" default:"20" minimum:"1" maximum:"100"`
	Offset int `query:"offset" minimum:"0"`
}

// SearchNotes reads every kind of parameter.
type SearchNotes struct {
	Paging
	Folder string     `path:"folder" doc:"The folder to search."`
	Tags   []string   `query:"tag" maxItems:"5" doc:"Notes with every one of these tags: ?tag=a&tag=b."`
	Since  *time.Time `query:"since" doc:"Notes changed after this time (RFC 3339); nil when not sent."`
	Lang   string     `header:"Accept-Language"`
	Theme  string     `cookie:"theme" enum:"light,dark" default:"light"`
}

// NewNote is a JSON body: the Body field of the input.
type CreateNote struct {
	Folder string `path:"folder"`
	Body   struct {
		Text string   `json:"text" minLength:"1" maxLength:"10000"`
		Tags []string `json:"tags,omitempty" maxItems:"10"`
	}
}

// UploadAttachment is a multipart form: a Body whose fields carry form
// tags, files as *multipart.FileHeader.
type UploadAttachment struct {
	Note int64 `path:"note"`
	Body struct {
		Caption string                `form:"caption" maxLength:"200"`
		File    *multipart.FileHeader `form:"file" required:"true"`
	}
}

// WhereFrom needs the request itself: an untagged *http.Request field
// gets it.
type WhereFrom struct {
	Req *http.Request
}

type Found struct {
	Folder string   `json:"folder"`
	Tags   []string `json:"tags"`
	Limit  int      `json:"limit"`
	Theme  string   `json:"theme"`
	Since  string   `json:"since,omitempty"`
}

type Attached struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

type Address struct {
	IP string `json:"ip"`
}

func newInputsAPI() *vane.Router {
	r := vane.New()
	vane.Get(r, "/folders/{folder}/notes", func(ctx context.Context, in *SearchNotes) (*Found, error) {
		out := &Found{Folder: in.Folder, Tags: in.Tags, Limit: in.Limit, Theme: in.Theme}
		if in.Since != nil {
			out.Since = in.Since.UTC().Format(time.RFC3339)
		}
		return out, nil
	}, vane.ID("searchNotes"))
	vane.Post(r, "/notes/{note}/attachments", func(ctx context.Context, in *UploadAttachment) (*Attached, error) {
		return &Attached{Name: in.Body.File.Filename, Size: in.Body.File.Size}, nil
	}, vane.ID("uploadAttachment"), vane.Status(http.StatusCreated))
	vane.Get(r, "/whereami", func(ctx context.Context, in *WhereFrom) (*Address, error) {
		return &Address{IP: middleware.ClientIP(in.Req).String()}, nil
	}, vane.ID("whereAmI"))
	return r
}

func TestInputs(t *testing.T) {
	api := vanetest.New(t, newInputsAPI())
	since := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	found, p := vanetest.Call[SearchNotes, Found](api, "searchNotes",
		&SearchNotes{Folder: "work", Tags: []string{"a", "b"}, Since: &since},
		vanetest.Cookie("theme", "dark"))
	if p != nil {
		t.Fatal(p)
	}
	if got := fmt.Sprint(*found); got != "{work [a b] 20 dark 2026-11-01T00:00:00Z}" {
		t.Errorf("found %s", got)
	}
	in := &UploadAttachment{Note: 1}
	in.Body.File = vanetest.File("plan.txt", "text/plain", []byte("step one"))
	att, p := vanetest.Call[UploadAttachment, Attached](api, "uploadAttachment", in)
	if p != nil || att.Name != "plan.txt" || att.Size != 8 {
		t.Errorf("attached %+v, %v", att, p)
	}
	res := api.Get("/folders/work/notes?limit=500")
	if res.Code != 422 {
		t.Errorf("limit=500: %d, want 422", res.Code)
	}
}
