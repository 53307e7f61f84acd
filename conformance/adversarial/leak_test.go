package adversarial

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/vane-http/vane"
)

// FileVersion is a download with a validator.
type FileVersion struct {
	ETag string `header:"ETag"`
	Body *os.File
}

// A body that is a file is closed on every answer, the 304 of a
// conditional GET and HEAD included: the report behind issue 31 found 30
// conditional GETs left 30 descriptors open until garbage collection.
func TestEveryAnswerClosesTheBody(t *testing.T) {
	name := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(name, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	var opened []*os.File
	r := vane.New()
	vane.Get(r, "/file", func(ctx context.Context, _ *struct{}) (*FileVersion, error) {
		f, err := os.Open(name)
		opened = append(opened, f)
		return &FileVersion{ETag: `"v1"`, Body: f}, err
	})
	for _, c := range []struct {
		method, inm string
		status      int
	}{
		{"GET", `"v1"`, 304},
		{"GET", "*", 304},
		{"HEAD", "", 200},
		{"HEAD", `"v1"`, 304},
		{"GET", "", 200},
		{"GET", `"v2"`, 200},
	} {
		opened = nil
		req := httptest.NewRequest(c.method, "/file", nil)
		if c.inm != "" {
			req.Header.Set("If-None-Match", c.inm)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code != c.status {
			t.Errorf("%s with If-None-Match %q: %d, want %d", c.method, c.inm, w.Code, c.status)
		}
		for _, f := range opened {
			// Stat on a closed *os.File fails with os.ErrClosed.
			if _, err := f.Stat(); err == nil {
				t.Errorf("%s with If-None-Match %q (%d): the file is still open after the answer", c.method, c.inm, w.Code)
				f.Close()
			}
		}
	}

}
