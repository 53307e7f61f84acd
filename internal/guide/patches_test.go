package guide_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vane-http/vane"
)

// registerPatch adds PATCH /notes/{id}: a merge patch or a JSON Patch of
// the note that getNote reads, written by replaceNote. The two handlers
// are those of GET and PUT; MergePatch needs nothing else.
func registerPatch(r *vane.Router, store *notes) {
	c := crud{store}
	vane.MergePatch(r, "/notes/{id}", c.get, c.replace, vane.ID("patchNote"),
		vane.Responds(http.StatusNotFound, "No note has this ID."))
}

func TestPatches(t *testing.T) {
	store := newNotes()
	r := vane.New()
	registerCRUD(r, store)
	registerPatch(r, store)
	store.Create(t.Context(), "ada", "first", []string{"a"})

	patch := func(mediaType, body, ifMatch string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("PATCH", "/notes/1", strings.NewReader(body))
		req.Header.Set("Content-Type", mediaType)
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w
	}
	// A merge patch: the members to change. replaceNote's Conditional is
	// required, so a PATCH says which version it applies to.
	w := patch(vane.MergePatchType, `{"text":"changed"}`, `"1"`)
	if w.Code != 200 || w.Header().Get("ETag") != `"2"` || !strings.Contains(w.Body.String(), `"text":"changed"`) {
		t.Errorf("merge patch: %d %s %s", w.Code, w.Header().Get("ETag"), w.Body)
	}
	// A JSON Patch whose test fails: 409, nothing written.
	w = patch(vane.JSONPatchType, `[{"op":"test","path":"/text","value":"first"},{"op":"replace","path":"/text","value":"x"}]`, `"2"`)
	if w.Code != http.StatusConflict {
		t.Errorf("a failed test: %d, want 409", w.Code)
	}
	// A patch of what is the server's: 422 naming the member.
	w = patch(vane.MergePatchType, `{"owner":"mallory"}`, `"2"`)
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), "owner") {
		t.Errorf("read-only member: %d %s", w.Code, w.Body)
	}
	// A patch that changes nothing is not a new version.
	w = patch(vane.JSONPatchType, `[{"op":"test","path":"/text","value":"changed"}]`, `"2"`)
	if w.Code != 200 || w.Header().Get("ETag") != `"2"` {
		t.Errorf("no change: %d %s, want 200 with the same ETag", w.Code, w.Header().Get("ETag"))
	}
}
