package vanetest_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"reflect"
	"strings"
	"testing"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/vanetest"
)

type userKey struct{}

// requireUser is authentication middleware in front of operations: a
// bearer token or a session cookie names the user, put in the request's
// context; anything else is a 401.
func requireUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		user, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
		if !ok {
			if c, err := req.Cookie("session"); err == nil {
				user, ok = c.Value, true
			}
		}
		if !ok || user == "" {
			w.Header().Set("WWW-Authenticate", "Bearer")
			problem.Write(w, problem.New(http.StatusUnauthorized, "a bearer token or a session cookie is required"))
			return
		}
		next.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), userKey{}, user)))
	})
}

type GetMe struct {
	Trace string `header:"X-Trace"`
	Theme string `cookie:"theme"`
}

type Me struct {
	User  string `json:"user"`
	Trace string `json:"trace"`
	Theme string `json:"theme"`
	Host  string `json:"host"`
}

func authRouter() *vane.Router {
	r := vane.New()
	auth := r.Group("", vane.Middleware(requireUser), vane.Problems(vane.ProblemType{Status: http.StatusUnauthorized, Description: "No valid credentials.",
		Headers: map[string]string{"WWW-Authenticate": "How to authenticate."}}))
	vane.Get(auth, "/me", func(ctx context.Context, in *GetMe) (*Me, error) {
		return &Me{User: ctx.Value(userKey{}).(string), Trace: in.Trace, Theme: in.Theme}, nil
	}, vane.ID("getMe"))
	auth.HandleFunc(http.MethodGet, "/host", func(w http.ResponseWriter, req *http.Request) { io.WriteString(w, req.Host) })
	return r
}

// Call sends headers and cookies that the input does not hold, such as
// the credentials that middleware in front of the operation checks.
func TestCallSendsHeadersAndCookies(t *testing.T) {
	rec := &recorder{TB: t}
	api := vanetest.New(rec, authRouter(), vanetest.ExplicitStatuses())
	call := func(api *vanetest.API, in *GetMe, opts ...vanetest.RequestOption) string {
		t.Helper()
		out, p := vanetest.Call[GetMe, Me](api, "getMe", in, opts...)
		if p != nil {
			return fmt.Sprint(p.Status)
		}
		return fmt.Sprintf("%s/%s/%s", out.User, out.Trace, out.Theme)
	}
	ann := api.With(vanetest.Header("Authorization", "Bearer ann"))
	for _, c := range []struct {
		name string
		got  string
		want string
	}{
		{"no credentials", call(api, &GetMe{}), "401"},
		{"a header", call(api, &GetMe{}, vanetest.Header("Authorization", "Bearer ann")), "ann//"},
		{"a cookie", call(api, &GetMe{}, vanetest.Cookie("session", "bob")), "bob//"},
		{"a cookie beside the input's", call(api, &GetMe{Theme: "dark"}, vanetest.Cookie("session", "bob")), "bob//dark"},
		{"With's header", call(ann, &GetMe{}), "ann//"},
		{"the call's options win over With's", call(ann, &GetMe{}, vanetest.Header("Authorization", "Bearer bob")), "bob//"},
		{"the input wins over With's", call(ann.With(vanetest.Header("X-Trace", "w"), vanetest.Cookie("theme", "w")),
			&GetMe{Trace: "in", Theme: "in"}), "ann/in/in"},
		{"With's fill what the input leaves out", call(ann.With(vanetest.Header("X-Trace", "w"), vanetest.Cookie("theme", "w")),
			&GetMe{}), "ann/w/w"},
		{"the call's options replace the input's", call(ann, &GetMe{Trace: "in", Theme: "in"},
			vanetest.Header("X-Trace", "opt"), vanetest.Cookie("theme", "opt")), "ann/opt/opt"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %s, want %s", c.name, c.got, c.want)
		}
	}
	if api.Get("/me").Code != http.StatusUnauthorized {
		t.Error("api.Get without credentials: not 401")
	}
	if res := ann.Get("/me"); res.Code != http.StatusOK || vanetest.Decode[Me](t, res).User != "ann" {
		t.Errorf("With then Get: %d %s", res.Code, res.Body)
	}
	if res := ann.Get("/me", "Authorization", "Bearer cy"); vanetest.Decode[Me](t, res).User != "cy" {
		t.Errorf("Do's header pairs do not win over With's: %s", res.Body)
	}
	if res := ann.With(vanetest.Header("Host", "api.example.org")).Get("/host"); res.Body.String() != "api.example.org" {
		t.Errorf("Host: %q", res.Body)
	}
	// The 401 is documented (Problems), so the answers agree with the
	// document; With's API reports to the same test.
	if len(rec.errs) != 0 {
		t.Errorf("checks: %q", rec.errs)
	}
	ann.With(vanetest.Header("X-Trace", strings.Repeat("x", 3))).Get("/nowhere")
	if len(rec.errs) != 0 {
		t.Errorf("a route that is no operation was checked: %q", rec.errs)
	}
}

// With's API keeps the checks against the document.
func TestWithKeepsTheChecks(t *testing.T) {
	r := vane.New()
	vane.Get(r, "/liar", func(ctx context.Context, _ *struct{}) (*Pet, error) {
		return &Pet{ID: 1}, nil // an empty name, which the document forbids
	}, vane.ID("liar"))
	rec := &recorder{TB: t}
	vanetest.Call[struct{}, Pet](vanetest.New(rec, r).With(vanetest.Header("X-A", "b")), "liar", &struct{}{}, vanetest.Cookie("c", "d"))
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "response.name") {
		t.Errorf("%q", rec.errs)
	}
}

type Upload struct {
	ID   int64 `path:"id" minimum:"1"`
	Body struct {
		Caption string                  `form:"caption" required:"true"`
		Tags    []string                `form:"tag"`
		Rating  int                     `form:"rating" maximum:"5"`
		Photo   *multipart.FileHeader   `form:"photo" required:"true"`
		Extra   []*multipart.FileHeader `form:"extra"`
	}
}

type Uploaded struct {
	ID      int64    `json:"id"`
	Caption string   `json:"caption"`
	Tags    []string `json:"tags"`
	Rating  int      `json:"rating"`
	Files   []string `json:"files"` // field:name:type:size:sha256 prefix
	User    string   `json:"user"`
}

func describe(field string, fh *multipart.FileHeader) string {
	f, err := fh.Open()
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	sum := sha256.Sum256(b)
	return fmt.Sprintf("%s:%s:%s:%d:%s", field, fh.Filename, fh.Header.Get("Content-Type"), fh.Size, hex.EncodeToString(sum[:4]))
}

func uploadRouter() *vane.Router {
	r := vane.New()
	auth := r.Group("", vane.Middleware(requireUser), vane.Problems(vane.ProblemType{Status: http.StatusUnauthorized}))
	vane.Post(auth, "/albums/{id}/photos", func(ctx context.Context, in *Upload) (*Uploaded, error) {
		out := &Uploaded{ID: in.ID, Caption: in.Body.Caption, Tags: in.Body.Tags, Rating: in.Body.Rating, User: ctx.Value(userKey{}).(string)}
		out.Files = append(out.Files, describe("photo", in.Body.Photo))
		for _, fh := range in.Body.Extra {
			out.Files = append(out.Files, describe("extra", fh))
		}
		return out, nil
	}, vane.ID("uploadPhoto"))
	return r
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:4])
}

// Call sends an input whose Body is a multipart form: its values, and its
// files (made with File) with their names, types and contents.
func TestCallMultipart(t *testing.T) {
	rec := &recorder{TB: t}
	api := vanetest.New(rec, uploadRouter()).With(vanetest.Header("Authorization", "Bearer ann"))
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00binary\r\n--not-a-boundary")
	in := &Upload{ID: 7}
	in.Body.Caption = `Rex "at" the beach`
	in.Body.Tags = []string{"dog", "sea"}
	in.Body.Photo = vanetest.File("rex.png", "image/png", png)
	in.Body.Extra = []*multipart.FileHeader{
		vanetest.File(`notes "1".txt`, "text/plain; charset=utf-8", []byte("first")),
		vanetest.File("raw.bin", "", []byte{}),
	}
	out, p := vanetest.Call[Upload, Uploaded](api, "uploadPhoto", in)
	if p != nil {
		t.Fatalf("problem %+v", p)
	}
	want := Uploaded{ID: 7, Caption: `Rex "at" the beach`, Tags: []string{"dog", "sea"}, User: "ann", Files: []string{
		"photo:rex.png:image/png:" + fmt.Sprint(len(png)) + ":" + digest(png),
		`extra:notes "1".txt:text/plain; charset=utf-8:5:` + digest([]byte("first")),
		"extra:raw.bin::0:" + digest(nil),
	}}
	if !reflect.DeepEqual(*out, want) {
		t.Errorf("output\n%#v\nwant\n%#v", *out, want)
	}

	// The form's rules still apply: a required file left out, a value
	// over its maximum. A required value is sent even when empty, as a
	// required parameter is.
	in = &Upload{ID: 7}
	in.Body.Rating = 9
	_, p = vanetest.Call[Upload, Uploaded](api, "uploadPhoto", in)
	if p == nil || p.Status != http.StatusUnprocessableEntity || len(p.Errors) != 2 ||
		p.Errors[0].Location != "body.photo" || p.Errors[1].Location != "body.rating" {
		t.Fatalf("want 422 for body.photo and body.rating: %+v", p)
	}
	if len(rec.errs) != 0 {
		t.Errorf("checks: %q", rec.errs)
	}
}

// A Multipart sent with Do is the same body, and Part sends a part with
// the headers given.
func TestDoMultipart(t *testing.T) {
	rec := &recorder{TB: t}
	api := vanetest.New(rec, uploadRouter())
	body := vanetest.NewMultipart().
		Field("caption", "Rex").
		Field("tag", "a").Field("tag", "b").
		File("photo", "rex.png", "image/png", []byte("png")).
		Part(textproto.MIMEHeader{
			"Content-Disposition": {`form-data; name="extra"; filename="x.json"`},
			"Content-Type":        {"application/json"},
			"X-Part":              {"kept"},
		}, []byte(`{}`))
	if res := api.Post("/albums/3/photos", body); res.Code != http.StatusUnauthorized {
		t.Fatalf("without credentials: %d", res.Code)
	}
	res := api.Post("/albums/3/photos", body, "Authorization", "Bearer bob")
	out := vanetest.Decode[Uploaded](t, res)
	want := Uploaded{ID: 3, Caption: "Rex", Tags: []string{"a", "b"}, User: "bob", Files: []string{
		"photo:rex.png:image/png:3:" + digest([]byte("png")),
		"extra:x.json:application/json:2:" + digest([]byte("{}")),
	}}
	if !reflect.DeepEqual(*out, want) {
		t.Errorf("output\n%#v\nwant\n%#v", *out, want)
	}
	if !strings.HasPrefix(body.ContentType(), "multipart/form-data; boundary=") {
		t.Errorf("ContentType %q", body.ContentType())
	}
	if len(rec.errs) != 0 {
		t.Errorf("checks: %q", rec.errs)
	}
}

// File returns a file as a handler gets one.
func TestFile(t *testing.T) {
	content := []byte(strings.Repeat("0123456789", 1000))
	fh := vanetest.File("a b.txt", "text/plain", content)
	if fh.Filename != "a b.txt" || fh.Size != int64(len(content)) || fh.Header.Get("Content-Type") != "text/plain" {
		t.Errorf("%+v", fh)
	}
	for range 2 { // opened more than once
		f, err := fh.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if string(b) != string(content) {
			t.Fatalf("read %d bytes, want %d", len(b), len(content))
		}
	}
	if h := vanetest.File("x", "", nil).Header; h.Get("Content-Type") != "" {
		t.Errorf("an empty content type is sent: %v", h)
	}
}

func ExampleAPI_With() {
	r := vane.New()
	auth := r.Group("", vane.Middleware(requireUser), vane.Problems(vane.ProblemType{Status: http.StatusUnauthorized})) // 401 without a bearer token
	vane.Get(auth, "/me", func(ctx context.Context, _ *struct{}) (*Me, error) {
		return &Me{User: ctx.Value(userKey{}).(string)}, nil
	}, vane.ID("getMe"))

	var t testing.TB = &recorder{} // in a test: t *testing.T
	api := vanetest.New(t, r)
	_, p := vanetest.Call[struct{}, Me](api, "getMe", &struct{}{})
	fmt.Println(p.Status)

	// One call with a header of its own:
	me, _ := vanetest.Call[struct{}, Me](api, "getMe", &struct{}{}, vanetest.Header("Authorization", "Bearer ann"))
	fmt.Println(me.User)

	// Every request of an API as one user:
	bob := api.With(vanetest.Header("Authorization", "Bearer bob"))
	me, _ = vanetest.Call[struct{}, Me](bob, "getMe", &struct{}{})
	fmt.Println(me.User, bob.Get("/me").Code)
	// Output:
	// 401
	// ann
	// bob 200
}

func ExampleFile() {
	type UploadAvatar struct {
		Body struct {
			Name  string                `form:"name"`
			Image *multipart.FileHeader `form:"image" required:"true"`
		}
	}
	type Avatar struct {
		Name  string `json:"name"`
		File  string `json:"file"`
		Type  string `json:"type"`
		Bytes int64  `json:"bytes"`
	}
	r := vane.New()
	vane.Put(r, "/avatar", func(ctx context.Context, in *UploadAvatar) (*Avatar, error) {
		img := in.Body.Image
		return &Avatar{Name: in.Body.Name, File: img.Filename, Type: img.Header.Get("Content-Type"), Bytes: img.Size}, nil
	}, vane.ID("uploadAvatar"))
	api := vanetest.New(&recorder{}, r) // in a test: vanetest.New(t, r)

	// Call: the file in the typed input.
	in := &UploadAvatar{}
	in.Body.Name = "ann"
	in.Body.Image = vanetest.File("ann.png", "image/png", []byte("\x89PNG..."))
	out, _ := vanetest.Call[UploadAvatar, Avatar](api, "uploadAvatar", in)
	fmt.Println(out.Name, out.File, out.Type, out.Bytes)

	// Do: the same body, part by part.
	res := api.Put("/avatar", vanetest.NewMultipart().
		Field("name", "bob").
		File("image", "bob.gif", "image/gif", []byte("GIF89a")))
	fmt.Println(res.Code, res.Body.String())
	// Output:
	// ann ann.png image/png 7
	// 200 {"name":"bob","file":"bob.gif","type":"image/gif","bytes":6}
}
