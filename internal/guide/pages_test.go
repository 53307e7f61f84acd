package guide_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vane-http/vane"
)

// ListNotes is a list's input: the cursor the previous page's link
// carried, and the page's size.
type ListNotes struct {
	Cursor vane.Cursor `query:"cursor"`
	Limit  int         `query:"limit" default:"20" minimum:"1" maximum:"100"`
}

// NotePage is one page, with the next page's link in the Link header
// (RFC 8288) and in the body.
type NotePage struct {
	Link vane.Links `header:"Link" doc:"The next page, rel=next, when there is one."`
	Body struct {
		Items []Note  `json:"items"`
		Next  *string `json:"next" nullable:"true" doc:"The next page's URL; null on the last page."`
	}
}

// notesAfter is what a cursor of this list holds: the ID of the last note
// of a page. Clients cannot read it or change it.
type notesAfter struct {
	ID int64 `json:"id"`
}

// notesByID names the list's order and filters: a cursor made for one
// scope is refused (400) for another.
const notesByID = "notes by id"

type lister struct {
	store *notes
	pager *vane.Pager
}

func (l lister) list(ctx context.Context, in *ListNotes) (*NotePage, error) {
	var after notesAfter
	if _, err := l.pager.Read(in.Cursor, notesByID, &after); err != nil {
		return nil, err // a cursor that was changed, or made for another list
	}
	out := &NotePage{}
	out.Body.Items = l.store.After(ctx, after.ID, in.Limit)
	if n := len(out.Body.Items); n == in.Limit {
		next, err := l.pager.Next(in.Cursor, notesByID, notesAfter{ID: out.Body.Items[n-1].ID})
		if err != nil {
			return nil, err
		}
		out.Link = vane.Links{next}
		out.Body.Next = &next.URL
	}
	return out, nil
}

// newPager's key is a secret of its own, shared by the service's
// replicas: 32 random bytes, from the environment or a secret store.
func registerList(r *vane.Router, store *notes, cursorKey []byte) {
	l := lister{store: store, pager: vane.NewPager(cursorKey)}
	vane.Get(r, "/notes", l.list, vane.ID("listNotes"))
}

func TestPages(t *testing.T) {
	store := newNotes()
	for range 5 {
		store.Create(t.Context(), "ada", "a note", nil)
	}
	r := vane.New()
	registerList(r, store, []byte("a key of 32 bytes for the tests."))
	var ids []int64
	next := "/notes?limit=2"
	for pages := 0; next != ""; pages++ {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", next, nil))
		var page struct {
			Items []Note
			Next  *string
		}
		if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || w.Code != 200 {
			t.Fatalf("%s: %d %s", next, w.Code, w.Body)
		}
		for _, n := range page.Items {
			ids = append(ids, n.ID)
		}
		next = ""
		if page.Next != nil {
			next = *page.Next
			if !strings.Contains(w.Header().Get("Link"), `rel="next"`) {
				t.Errorf("Link %q", w.Header().Get("Link"))
			}
		}
		if pages > 5 {
			t.Fatal("the pages do not end")
		}
	}
	if len(ids) != 5 || ids[0] != 1 || ids[4] != 5 {
		t.Errorf("listed %v, want 1 to 5", ids)
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/notes?cursor=AAAA", nil))
	if w.Code != 400 {
		t.Errorf("a forged cursor: %d, want 400", w.Code)
	}
}
