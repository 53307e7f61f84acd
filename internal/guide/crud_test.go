package guide_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/vanetest"
)

// NoteID is the input of the operations on one note.
type NoteID struct {
	ID int64 `path:"id" minimum:"1"`
}

// VersionedNote is a note with its version in the ETag and Last-Modified
// headers: a GET whose If-None-Match names the ETag is answered 304, and
// a client sends the ETag back in If-Match to change this version only.
type VersionedNote struct {
	ETag         string    `header:"ETag"`
	LastModified time.Time `header:"Last-Modified"`
	Body         Note
}

func versioned(n Note) *VersionedNote {
	return &VersionedNote{ETag: `"` + strconv.FormatInt(n.Version, 10) + `"`, LastModified: n.Changed, Body: n}
}

// NoteText is what a client may write: the rest of a Note is the server's.
type NoteText struct {
	Text string   `json:"text" minLength:"1" maxLength:"10000"`
	Tags []string `json:"tags,omitempty" maxItems:"10"`
}

type CreateNoteIn struct {
	Body NoteText
}

type CreatedNote struct {
	Location string `header:"Location"`
	Body     Note
}

// ReplaceNote is a conditional write: Conditional binds If-Match,
// If-None-Match and If-Unmodified-Since; required:"true" makes a request
// without one a 428, so that no client overwrites a version it did not see.
type ReplaceNote struct {
	vane.Conditional `required:"true"`
	ID               int64 `path:"id" minimum:"1"`
	Body             NoteText
}

type DeleteNote struct {
	vane.Conditional
	ID int64 `path:"id" minimum:"1"`
}

type crud struct{ store *notes }

func (c crud) get(ctx context.Context, in *NoteID) (*VersionedNote, error) {
	n, err := c.store.Get(ctx, in.ID)
	if err != nil {
		return nil, notFound(err)
	}
	return versioned(n), nil
}

func (c crud) create(ctx context.Context, in *CreateNoteIn) (*CreatedNote, error) {
	n := c.store.Create(ctx, "ada", in.Body.Text, in.Body.Tags)
	return &CreatedNote{Location: "/notes/" + strconv.FormatInt(n.ID, 10), Body: n}, nil
}

// version reads note id into cur and returns its version for
// Conditional.Write: Exists false when there is no such note, so that an
// If-Match fails (412) and If-None-Match: * holds.
func (c crud) version(ctx context.Context, id int64, cur *Note) (vane.Version, error) {
	n, err := c.store.Get(ctx, id)
	if errors.Is(err, errNoNote) {
		return vane.Version{Exists: false}, nil
	}
	*cur = n
	return vane.Version{ETag: versioned(n).ETag, LastModified: n.Changed, Exists: true}, err
}

// replace reads the current version, lets Write compare it with the
// request's preconditions (412 when they fail), and writes only if the
// note is still at that version; if another write came between, Write
// reads again.
func (c crud) replace(ctx context.Context, in *ReplaceNote) (*VersionedNote, error) {
	var cur, next Note
	err := in.Write(ctx, func(ctx context.Context) (vane.Version, error) {
		return c.version(ctx, in.ID, &cur)
	}, func(ctx context.Context, _ vane.Version) (bool, error) {
		var ok bool
		var err error
		next, ok, err = c.store.UpdateIf(ctx, in.ID, cur.Version, in.Body.Text, in.Body.Tags)
		return ok, notFound(err)
	})
	if err != nil {
		return nil, err
	}
	return versioned(next), nil
}

func (c crud) delete(ctx context.Context, in *DeleteNote) (*struct{}, error) {
	var cur Note
	return nil, in.Write(ctx, func(ctx context.Context) (vane.Version, error) {
		return c.version(ctx, in.ID, &cur)
	}, func(ctx context.Context, _ vane.Version) (bool, error) {
		ok, err := c.store.DeleteIf(ctx, in.ID, cur.Version)
		return ok, notFound(err)
	})
}

// notFound turns the store's "no such note" into a 404 problem.
func notFound(err error) error {
	if errors.Is(err, errNoNote) {
		return vane.NotFound("no note has this ID")
	}
	return err
}

func registerCRUD(r *vane.Router, store *notes) {
	c := crud{store}
	missing := vane.Responds(http.StatusNotFound, "No note has this ID.")
	api := r.Group("", vane.Tags("notes"))
	vane.Get(api, "/notes/{id}", c.get, vane.ID("getNote"), missing)
	vane.Post(api, "/notes", c.create, vane.ID("createNote"), vane.Status(http.StatusCreated))
	vane.Put(api, "/notes/{id}", c.replace, vane.ID("replaceNote"), missing)
	vane.Delete(api, "/notes/{id}", c.delete, vane.ID("deleteNote"), missing)
}

func TestCRUD(t *testing.T) {
	r := vane.New()
	registerCRUD(r, newNotes())
	api := vanetest.New(t, r)

	created, p := vanetest.Call[CreateNoteIn, CreatedNote](api, "createNote", &CreateNoteIn{Body: NoteText{Text: "first"}})
	if p != nil || created.Location != "/notes/1" {
		t.Fatalf("create: %+v %v", created, p)
	}
	got, _ := vanetest.Call[NoteID, VersionedNote](api, "getNote", &NoteID{ID: 1})
	if got.ETag != `"1"` {
		t.Fatalf("ETag %q", got.ETag)
	}

	// Without a precondition: 428. With the version read: the write.
	// With that version again: 412, as for every client that did not see
	// the latest version.
	_, p = vanetest.Call[ReplaceNote, VersionedNote](api, "replaceNote", &ReplaceNote{ID: 1, Body: NoteText{Text: "second"}})
	if p == nil || p.Status != http.StatusPreconditionRequired {
		t.Errorf("no precondition: %v, want 428", p)
	}
	in := &ReplaceNote{ID: 1, Body: NoteText{Text: "second"}}
	in.IfMatch = got.ETag
	next, p := vanetest.Call[ReplaceNote, VersionedNote](api, "replaceNote", in)
	if p != nil || next.ETag != `"2"` {
		t.Fatalf("replace: %+v %v", next, p)
	}
	if _, p = vanetest.Call[ReplaceNote, VersionedNote](api, "replaceNote", in); p == nil || p.Status != http.StatusPreconditionFailed {
		t.Errorf("a stale If-Match: %v, want 412", p)
	}
	del := &DeleteNote{ID: 1}
	del.IfMatch = `"2"`
	if _, p = vanetest.Call[DeleteNote, struct{}](api, "deleteNote", del); p != nil {
		t.Errorf("delete: %v", p)
	}
	if _, p = vanetest.Call[NoteID, VersionedNote](api, "getNote", &NoteID{ID: 1}); p == nil || p.Status != 404 {
		t.Errorf("after the delete: %v, want 404", p)
	}
}
