package vane

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/openapi"
)

type optItem struct {
	ID string `path:"id"`
}

func optHandler(context.Context, *optItem) (*groupItem, error) { return &groupItem{}, nil }

// describedAs returns the description of the operation of method and
// pattern.
func describedAs(t *testing.T, r *Router, method, pattern string) *operationView {
	t.Helper()
	for _, d := range r.Operations() {
		if d.Method == method && d.Pattern == pattern {
			v := &operationView{ID: d.ID, Summary: d.Summary, Tags: d.Tags, Security: d.Security, BodyLimit: d.BodyLimit, Hidden: d.Hidden,
				Deprecated: d.Deprecated, Extensions: d.Extensions}
			for _, resp := range d.Responses {
				v.Statuses = append(v.Statuses, resp.Status)
			}
			return v
		}
	}
	t.Fatalf("no operation %s %s", method, pattern)
	return nil
}

type operationView struct {
	ID, Summary string
	Tags        []string
	Security    []map[string][]string
	BodyLimit   int64
	Hidden      bool
	Deprecated  bool
	Extensions  map[string]any
	Statuses    []int
}

// The same options go to New, Group and an operation: the router's and
// each group's are defaults of the operations registered through them,
// the operation's own come last and win, and lists add up.
func TestOptionsOneStyle(t *testing.T) {
	r := New(Tags("api"), BodyLimit(1000), Summary("router"))
	admin := r.Group("/admin", Tags("admin"), BodyLimit(2000), Responds(404, "No such thing."), Deprecated())
	inner := admin.Group("/x", Summary("group"), Extension("x-group", 1))
	Get(r, "/a/{id}", optHandler)
	Get(admin, "/b/{id}", optHandler)
	Get(inner, "/c/{id}", optHandler, Summary("own"), Tags("own"), BodyLimit(3000), ID("cee"), Extension("x-own", 2))

	a := describedAs(t, r, "GET", "/a/{id}")
	if a.Summary != "router" || !slices.Equal(a.Tags, []string{"api"}) || a.BodyLimit != 1000 || a.Deprecated {
		t.Errorf("/a: %+v", a)
	}
	b := describedAs(t, r, "GET", "/admin/b/{id}")
	if b.Summary != "router" || !slices.Equal(b.Tags, []string{"api", "admin"}) || b.BodyLimit != 2000 || !b.Deprecated || !slices.Contains(b.Statuses, 404) {
		t.Errorf("/admin/b: %+v", b)
	}
	c := describedAs(t, r, "GET", "/admin/x/c/{id}")
	if c.ID != "cee" || c.Summary != "own" || !slices.Equal(c.Tags, []string{"api", "admin", "own"}) || c.BodyLimit != 3000 ||
		!reflect.DeepEqual(c.Extensions, map[string]any{"x-group": 1, "x-own": 2}) {
		t.Errorf("/admin/x/c: %+v", c)
	}
	// The group's defaults are its own: a sibling registered later is not
	// touched by what an operation's options did to its lists.
	Get(admin, "/d/{id}", optHandler)
	if d := describedAs(t, r, "GET", "/admin/d/{id}"); !slices.Equal(d.Tags, []string{"api", "admin"}) || d.Extensions != nil {
		t.Errorf("/admin/d: %+v", d)
	}
}

// Security given twice in one list offers alternatives; given to an
// operation, it replaces its group's; Public says none is needed, which
// the document writes as an empty requirement; an operation without any
// takes the document's default.
func TestSecurityAndPublic(t *testing.T) {
	r := New()
	g := r.Group("", Security("bearer"))
	Get(r, "/default/{id}", optHandler)
	Get(g, "/group/{id}", optHandler)
	Get(g, "/own/{id}", optHandler, Security("key"))
	Get(g, "/either/{id}", optHandler, Security("key"), Security("oauth", "read", "write"))
	Get(g, "/public/{id}", optHandler, Public())
	Get(r.Group("", Public()), "/public-group/{id}", optHandler, Security("key"))
	for pattern, want := range map[string][]map[string][]string{
		"/default/{id}":      nil,
		"/group/{id}":        {{"bearer": {}}},
		"/own/{id}":          {{"key": {}}},
		"/either/{id}":       {{"key": {}}, {"oauth": {"read", "write"}}},
		"/public/{id}":       {},
		"/public-group/{id}": {{"key": {}}},
	} {
		got := describedAs(t, r, "GET", pattern).Security
		if !reflect.DeepEqual(got, want) || (got == nil) != (want == nil) {
			t.Errorf("%s: security %#v, want %#v", pattern, got, want)
		}
	}
	doc, err := OpenAPI(r, openapi.Config{Security: []openapi.SecurityRequirement{{"bearer": {}}},
		SecuritySchemes: map[string]*openapi.SecurityScheme{"bearer": openapi.BearerAuth(""), "key": openapi.APIKeyAuth("header", "X-Key"),
			"oauth": {Type: "oauth2", Flows: &openapi.OAuthFlows{Implicit: &openapi.OAuthFlow{AuthorizationURL: "https://example.com/auth",
				Scopes: map[string]string{"read": "r", "write": "w"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := doc.JSON()
	if !strings.Contains(string(js), `"security":[]`) && !strings.Contains(string(js), `"security": []`) {
		t.Errorf("Public is not an empty requirement in the document:\n%s", js)
	}
}

// An option given where it means nothing is refused at once, naming
// where it belongs.
func TestOptionsRefusedWhereTheyMeanNothing(t *testing.T) {
	for name, c := range map[string]struct {
		f    func()
		want string
	}{
		"ID to a group":           {func() { New().Group("/a", ID("x")) }, "vane.ID cannot be given here; give it to the operation"},
		"ID to New":               {func() { New(ID("x")) }, "vane.ID cannot be given here; give it to the operation"},
		"routing to a group":      {func() { New().Group("/a", RedirectTrailingSlash(false)) }, "vane.RedirectTrailingSlash cannot be given here; give it to vane.New"},
		"routing to an operation": {func() { Get(New(), "/a/{id}", optHandler, AutoOptions(false)) }, "GET /a/{id}: vane.AutoOptions cannot be given here; give it to vane.New"},
		"a hook to an operation":  {func() { Get(New(), "/a/{id}", optHandler, ErrorHook(nil)) }, "vane.ErrorHook cannot be given here"},
		"caps to a group":         {func() { New().Group("", MaxStreams(3)) }, "vane.MaxStreams cannot be given here"},
		"Encode to an operation":  {func() { Get(New(), "/a/{id}", optHandler, Encode("application/x", nil)) }, "vane.Encode cannot be given here"},
		"a bundle holding one":    {func() { Get(New(), "/a/{id}", optHandler, Options(Summary("s"), MaxStreams(3))) }, "vane.Options cannot be given here; give it to vane.New"},
		"a zero Option":           {func() { Get(New(), "/a/{id}", optHandler, Option{}) }, "a zero Option"},
		"a nil middleware":        {func() { Middleware(nil) }, "middleware 0 is nil"},
		"an extension without x-": {func() { Extension("rate", 1) }, `Extension "rate": an extension's name begins with x-`},
	} {
		func() {
			defer func() {
				if msg := fmt.Sprint(recover()); !strings.Contains(msg, c.want) {
					t.Errorf("%s: panic %q, want %q", name, msg, c.want)
				}
			}()
			c.f()
		}()
	}
}

// Middleware given to New wraps the router before routing (it sees a
// 404), to a group the group's routes after routing, to an operation that
// operation's handler inside its group's; the answers each declares are
// documented on the operations behind it.
func TestMiddlewareOption(t *testing.T) {
	var trace []string
	mark := tracing(&trace)
	r := New(Middleware(mark("router")))
	g := r.Group("/g", Middleware(mark("group")))
	Get(g, "/a/{id}", optHandler, Middleware(mark("op"), middleware.Throttle(10, 0, 0)))
	g.HandleFunc(http.MethodGet, "/plain", func(w http.ResponseWriter, _ *http.Request) { trace = append(trace, "plain") })

	serve(r, "GET", "/g/a/1", "")
	serve(r, "GET", "/g/plain", "")
	serve(r, "GET", "/nowhere", "")
	if got := strings.Join(trace, ","); got != "router,group,op,router,group,plain,router" {
		t.Errorf("trace %s", got)
	}
	if d := describedAs(t, r, "GET", "/g/a/{id}"); !slices.Contains(d.Statuses, 503) {
		t.Errorf("the operation's Throttle answers 503, not documented: %v", d.Statuses)
	}
	if routes := r.Routes(); len(routes) != 2 || routes[1].Pattern != "/g/plain" {
		t.Errorf("routes %+v", routes)
	}
}

// tracing returns a maker of middleware that append their name to trace.
func tracing(trace *[]string) func(name string) func(http.Handler) http.Handler {
	return func(name string) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				*trace = append(*trace, name)
				next.ServeHTTP(w, req)
			})
		}
	}
}

// Off means none wherever a limit is asked for; zero the default.
func TestOffAndZero(t *testing.T) {
	if a := New().api; a.maxStreams != DefaultMaxStreams || a.bodyLimit != defaultBodyLimit {
		t.Errorf("defaults: %d streams, %d bytes", a.maxStreams, a.bodyLimit)
	}
	if a := New(MaxStreams(0)).api; a.maxStreams != DefaultMaxStreams {
		t.Errorf("MaxStreams(0): %d", a.maxStreams)
	}
	if a := New(MaxStreams(Off)).api; a.maxStreams < 1<<62 {
		t.Errorf("MaxStreams(Off): a cap of %d", a.maxStreams)
	}
	if a := New(MaxStreams(-7)).api; a.maxStreams < 1<<62 {
		t.Errorf("MaxStreams(-7): a cap of %d", a.maxStreams)
	}
	r := New()
	Post(r, "/big", func(context.Context, *struct{ Body []byte }) (*struct{}, error) { return nil, nil }, BodyLimit(Off))
	if w := serve(r, "POST", "/big", strings.Repeat("x", defaultBodyLimit+10)); w.Code != 204 {
		t.Errorf("BodyLimit(Off): %d %s", w.Code, w.Body)
	}
	for s, want := range map[*Server][]os.Signal{
		{}:                              {os.Interrupt, syscall.SIGTERM},
		{Signals: []os.Signal{}}:        {os.Interrupt, syscall.SIGTERM},
		{Signals: []os.Signal{os.Kill}}: {os.Kill},
		{NoSignals: true}:               nil,
		{NoSignals: true, Signals: []os.Signal{os.Kill}}: nil,
	} {
		if got := s.signals(); !slices.Equal(got, want) {
			t.Errorf("%+v: signals %v, want %v", s, got, want)
		}
	}
	if got := retentionText(Off); got != "at any time" {
		t.Errorf("retention Off: %q", got)
	}
	ip := &idempotency{cfg: Idempotency{Retention: Off}}
	if got := ip.expires(time.Now()); !got.Equal(NeverExpires) {
		t.Errorf("Off expires %v", got)
	}
}

// A 503 made by Unavailable without a duration says to retry after the
// default, as every 503 vane writes does.
func TestUnavailableWithoutADuration(t *testing.T) {
	r := New()
	Get(r, "/down", func(context.Context, *struct{}) (*groupItem, error) { return nil, Unavailable(0, "maintenance") })
	Get(r, "/later", func(context.Context, *struct{}) (*groupItem, error) {
		return nil, Unavailable(1500*time.Millisecond, "soon")
	})
	if w := serve(r, "GET", "/down", ""); w.Code != 503 || w.Header().Get("Retry-After") != "1" {
		t.Errorf("Unavailable(0): %d %v", w.Code, w.Header())
	}
	if w := serve(r, "GET", "/later", ""); w.Code != 503 || w.Header().Get("Retry-After") != "2" {
		t.Errorf("Unavailable(1.5s): %d %v", w.Code, w.Header())
	}
}

// The Option type's comment names every function that makes an Option,
// and each is declared in options.go, as the comment says: an option
// added elsewhere, or left out of the list, fails here.
func TestOptionCommentListsEveryOption(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var comment string
	makers := map[string]string{} // function name: file
	for _, f := range pkgs["vane"].Files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					if ts, ok := spec.(*ast.TypeSpec); ok && ts.Name.Name == "Option" {
						comment = d.Doc.Text()
					}
				}
			case *ast.FuncDecl:
				res := d.Type.Results
				if d.Recv == nil && d.Name.IsExported() && res != nil && len(res.List) == 1 {
					if id, ok := res.List[0].Type.(*ast.Ident); ok && id.Name == "Option" {
						makers[d.Name.Name] = filepath.Base(fset.Position(d.Pos()).Filename)
					}
				}
			}
		}
	}
	if comment == "" || len(makers) < 20 {
		t.Fatalf("found the comment %q and %d options", comment, len(makers))
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(comment, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		words[w] = true
	}
	for name, file := range makers {
		if !words[name] {
			t.Errorf("the Option comment does not name %s", name)
		}
		if file != "options.go" {
			t.Errorf("%s is declared in %s, not options.go", name, file)
		}
	}
}
