package main

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/openapi"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/respond"
)

// api holds what the handlers need. Each handler is a plain function from a
// typed input to a typed output: vane binds and validates the input before
// the handler runs, and writes the output (or the error) as the response.
type api struct {
	router *vane.Router // answers requireToken's 401s through its error model
	store  *Store
	pager  *vane.Pager // makes and reads the cursors of GET /pets
	// tokens maps the bearer tokens the service accepts to their users.
	tokens map[string]string
	logger *slog.Logger // the causes of the 503s a failing database answers
}

// registerAPI registers the service's operations on r, and returns the
// api (whose serveEvents is GET /pets/events, registered apart). The
// list cursors are signed with o.cursorKey, a secret of its own: a key
// derived from a credential would let anyone holding a cursor test
// guesses of the credential offline.
func registerAPI(r *vane.Router, store *Store, tokens map[string]string, o options) *api {
	a := &api{router: r, store: store, tokens: tokens, pager: vane.NewPager(o.cursorKey), logger: o.logger}

	// Every operation reads or writes the database: one that is down is a
	// 503 with Retry-After (storeError), and a write whose commit's answer
	// was lost says its outcome is unknown (lostCommit).
	database := vane.Problems(vane.ProblemType{Status: http.StatusServiceUnavailable,
		Description: "The database is unavailable; retry after the Retry-After header's seconds. " +
			"A write whose outcome is unknown (its commit's answer was lost) is a problem of type " + vane.OutcomeUnknownType +
			": it may have been made; retry it with the same Idempotency-Key to get its outcome.",
		Headers: map[string]string{"Retry-After": "Seconds to wait before retrying."}})
	// Writing needs a bearer token. The middleware checks it; Security
	// declares it, so that the document says so and the docs page offers
	// an "Authorize" button; Problems documents the 401 the middleware
	// answers.
	bearer := vane.Options(vane.Middleware(a.requireToken), vane.Security("bearer"),
		vane.Problems(vane.ProblemType{Status: http.StatusUnauthorized, Description: "The bearer token is missing or unknown.",
			Headers: map[string]string{"WWW-Authenticate": "How to authenticate: Bearer, in the realm petstore."}},
			// and its 400, for a request of two Authorization fields: the
			// shared "could not be read" response.
			vane.ProblemType{Status: http.StatusBadRequest}))
	// The writes take an Idempotency-Key: a retry gets the first outcome.
	keyed := vane.IdempotencyKeys(idempotencyKeys(store))
	notFound := vane.Responds(http.StatusNotFound, "No pet has this ID.")

	// Reading is open to everyone.
	pets := r.Group("", database, vane.Tags("pets"))
	vane.Get(pets, "/pets", a.listPets, vane.ID("listPets"), vane.Summary("List pets"),
		vane.Description("Pets in ID order, a page at a time, filtered by species, status, tags or a name search."))
	vane.Get(pets, "/pets/{id}", a.getPet, vane.ID("getPet"), vane.Summary("Get a pet"), notFound)
	vane.Get(pets, "/pets/{id}/photo", a.getPhoto, vane.ID("getPetPhoto"), vane.Summary("Download a pet's photo"),
		vane.Responds(http.StatusNotFound, "No pet has this ID, or it has no photo."),
		vane.Responds(http.StatusNotAcceptable, "Accept does not accept the photo's media type."),
		vane.Description("The photo as it was uploaded, with its media type, and an ETag (its SHA-256): "+
			"a GET whose If-None-Match names it is answered 304 Not Modified. A Range asks for part of it (206); "+
			"with If-Range naming the ETag, a client resumes a download only if the photo has not changed."))

	auth := pets.Group("", bearer)
	vane.Post(auth, "/pets", a.createPet, vane.ID("createPet"), vane.Summary("Add a pet"), keyed, vane.Status(http.StatusCreated))
	vane.Put(auth, "/pets/{id}", a.updatePet, vane.ID("updatePet"), vane.Summary("Replace a pet"), keyed, notFound)
	vane.MergePatch(auth, "/pets/{id}", a.getPet, a.updatePet, vane.ID("patchPet"), vane.Summary("Change part of a pet"), keyed, notFound,
		vane.Description("A JSON merge patch (application/merge-patch+json: members to change, null to remove one) or a JSON Patch "+
			"(application/json-patch+json). It is applied to the pet as read and written only over that version: "+
			"a change made in between is never lost. If-Match makes it conditional on the client's version."))
	vane.Delete(auth, "/pets/{id}", a.deletePet, vane.ID("deletePet"), vane.Summary("Remove a pet"), keyed, notFound)
	vane.Post(auth, "/pets/{id}/photo", a.uploadPhoto, vane.ID("uploadPetPhoto"), vane.Summary("Upload a pet's photo"),
		notFound, vane.BodyLimit(maxPhotoBytes+64<<10))

	account := r.Group("", database, bearer, vane.Tags("account"))
	vane.Get(account, "/me", a.whoAmI, vane.ID("whoAmI"), vane.Summary("Who the token belongs to"))
	return a
}

// docsConfig is what the document says beyond the types: its title, and
// the security scheme the operations name.
func docsConfig() vane.DocsConfig {
	return vane.DocsConfig{Config: openapi.Config{
		Info: openapi.Info{
			Title:       "Pet store",
			Version:     "1.0.0",
			Description: "The example service of [vane](https://github.com/vane-http/vane): pets, their photos, and a bearer token for writing.",
		},
		SecuritySchemes: map[string]*openapi.SecurityScheme{"bearer": openapi.BearerAuth("")},
		Tags: []*openapi.Tag{
			{Name: "pets", Description: "The pets and their photos."},
			{Name: "account", Description: "The caller's own account."},
		},
		// Hooks edit the generated document before it is served: here, to
		// link the operations.
		Edit: []func(*openapi.Document) error{linkOperations},
	}}
}

// linkOperations says how the operations connect (OpenAPI links): the ID
// of a created pet is the id of the operations on it, and a pet's uploaded
// photo can then be read. Clients that chain requests follow them.
func linkOperations(doc *openapi.Document) error {
	created := doc.Paths["/pets"].Operation("POST").Responses["201"]
	uploaded := doc.Paths["/pets/{id}/photo"].Operation("POST").Responses["200"]
	if created == nil || uploaded == nil {
		return errors.New("no POST /pets 201 or POST /pets/{id}/photo 200 response to link from")
	}
	created.Links = map[string]*openapi.Link{}
	for _, id := range []string{"getPet", "updatePet", "deletePet", "uploadPetPhoto"} {
		created.Links[id] = &openapi.Link{OperationID: id, Parameters: map[string]any{"id": "$response.body#/id"}}
	}
	uploaded.Links = map[string]*openapi.Link{
		"getPetPhoto": {OperationID: "getPetPhoto", Parameters: map[string]any{"id": "$request.path.id"}},
	}
	return nil
}

// photoTypes are the media types a photo upload may have.
var photoTypes = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}

// ---- Listing, with paging and filters ----

// ListPets is the input of GET /pets: query parameters only. The tags bind
// them (query), give defaults, and validate them; a request that breaks a
// rule gets a 422 problem listing every broken rule, and the handler never
// sees it.
type ListPets struct {
	Cursor  vane.Cursor `query:"cursor"`
	Limit   int         `query:"limit" default:"20" minimum:"1" maximum:"100" doc:"How many pets a page holds."`
	Offset  int         `query:"offset" default:"0" minimum:"0" maximum:"10000" doc:"How many matching pets to skip, after the cursor if there is one. It costs what it skips: follow the next link (a cursor) to page instead."`
	Total   bool        `query:"total" doc:"Also count every matching pet (total). Counting costs a scan of every match, so it is only done when asked."`
	Species string      `query:"species" enum:"dog,cat,bird,fish,rabbit" doc:"Only pets of this species."`
	Status  string      `query:"status" enum:"available,pending,adopted" doc:"Only pets in this status."`
	Tags    []string    `query:"tag" maxItems:"5" maxLength:"32" pattern:"^[^\\x00-\\x1f\\x7f-\\x9f\u2028-\u202e\u2066-\u2069]*$" doc:"Only pets with every one of these tags (repeat the parameter: ?tag=a&tag=b)."`
	Q       string      `query:"q" maxLength:"80" pattern:"^[^\\x00-\\x1f\\x7f-\\x9f\u2028-\u202e\u2066-\u2069]*$" doc:"Only pets whose name contains this, anywhere, ignoring case (no control characters, line separators or bidirectional overrides). Three characters or more are found through an index; shorter searches read every name."`
}

// Page is one page of a list. It is generic: the document names
// Page[Pet] "PagePet".
type Page[T any] struct {
	Items  []T     `json:"items" doc:"This page's items."`
	Total  *int    `json:"total,omitempty" doc:"How many items match, on every page; sent only when the request asks with total=true."`
	Offset int     `json:"offset"`
	Limit  int     `json:"limit"`
	Next   *string `json:"next" nullable:"true" doc:"The URL of the next page (its cursor); null on the last page."`
}

// PetPage is a page of pets, with the next page's link in a Link header
// (RFC 8288) too.
type PetPage struct {
	Link vane.Links `header:"Link" doc:"The next page's link, rel=next, when there is one." example:"</pets?cursor=2.c2VlIFBhZ2VyLk5leHQ&limit=20>; rel=\"next\""`
	Body Page[Pet]
}

// petsAfter is the position a cursor of GET /pets holds: the ID of the
// last pet of a page.
type petsAfter struct {
	ID int64 `json:"id"`
}

// listScope names the order and the filters of a list, so that a cursor
// made for one is refused for another. It is a JSON array, in which no
// value can pass for another filter's or for several: tag=a,b (one tag)
// and tag=a&tag=b (two) have different scopes. The tags are sorted and
// each named once, as the filter reads them.
func listScope(in *ListPets) string {
	b, err := json.Marshal([]any{"pets by id", in.Species, in.Status, in.Q, tagSet(in.Tags)})
	if err != nil {
		panic(err) // strings only
	}
	return string(b)
}

func (a *api) listPets(ctx context.Context, in *ListPets) (*PetPage, error) {
	var after petsAfter
	if _, err := a.pager.Read(in.Cursor, listScope(in), &after); err != nil {
		return nil, err // 400, naming query.cursor
	}
	f := Filter{Species: in.Species, Status: in.Status, Tags: in.Tags, Query: in.Q}
	items, more, total, err := a.store.ListAfter(ctx, f, after.ID, in.Offset, in.Limit, in.Total)
	if err != nil {
		return nil, a.storeError(ctx, err, 0) // a 503 when the database is down, else a 500 whose cause is logged
	}
	out := &PetPage{Body: Page[Pet]{Items: items, Offset: in.Offset, Limit: in.Limit}}
	if in.Total {
		out.Body.Total = &total
	}
	if more {
		// The request again, with the cursor after this page's last pet;
		// the offset counted from this page's start.
		next, err := a.pager.Next(in.Cursor, listScope(in), petsAfter{ID: items[len(items)-1].ID}, "offset")
		if err != nil {
			return nil, err
		}
		out.Body.Next = &next.URL
		out.Link = vane.Links{next}
	}
	if out.Body.Items == nil {
		out.Body.Items = []Pet{} // [] rather than null
	}
	return out, nil
}

// ---- One pet ----

// PetID is the input of every /pets/{id} route.
type PetID struct {
	ID int64 `path:"id" minimum:"1" doc:"The pet's ID." example:"1"`
}

// PetVersion is a pet with its version in the headers: a GET whose
// If-None-Match names the ETag, or whose If-Modified-Since is not before
// Last-Modified, is answered 304 Not Modified by vane, without a body.
type PetVersion struct {
	ETag         string    `header:"ETag" doc:"The pet's version: send it in If-Match to change this version only."`
	LastModified time.Time `header:"Last-Modified"`
	Body         Pet
}

func versioned(p Pet) *PetVersion {
	return &PetVersion{ETag: etag(p), LastModified: p.UpdatedAt, Body: p}
}

// etag is a pet's entity tag: its version, which every write moves on.
func etag(p Pet) string {
	return `"` + strconv.FormatInt(p.Version, 10) + `"`
}

func (a *api) getPet(ctx context.Context, in *PetID) (*PetVersion, error) {
	p, err := a.store.Get(ctx, in.ID)
	if err != nil {
		return nil, a.storeError(ctx, err, in.ID)
	}
	return versioned(p), nil
}

// CreatePet is the input of POST /pets: a JSON body. A field named Body is
// the request body, decoded and validated with PetInput's tags.
type CreatePet struct {
	vane.Idempotent // the Idempotency-Key header
	Body            PetInput
}

// Created is a response with headers: fields tagged header become response
// headers, and Body is the body.
type Created struct {
	Location string `header:"Location" doc:"The URL of the new pet."`
	Body     Pet
}

func (a *api) createPet(ctx context.Context, in *CreatePet) (*Created, error) {
	p, err := a.store.Create(withOutcome(ctx, &in.Idempotent, created), in.Body)
	if err != nil {
		return nil, a.storeError(ctx, err, 0)
	}
	return created(p), nil
}

// UpdatePet is the input of PUT /pets/{id}: a path parameter and a body,
// and the preconditions (If-Match …) that vane.Conditional binds.
type UpdatePet struct {
	vane.Conditional
	vane.Idempotent
	ID   int64 `path:"id" minimum:"1" doc:"The pet's ID."`
	Body PetInput
}

func (a *api) updatePet(ctx context.Context, in *UpdatePet) (*PetVersion, error) {
	var cur, next Pet
	err := in.Write(ctx, func(ctx context.Context) (vane.Version, error) {
		return a.version(ctx, in.ID, &cur)
	}, func(ctx context.Context, _ vane.Version) (bool, error) {
		if cur.ID != 0 && sameFields(cur.PetInput, in.Body) {
			// A write that changes nothing is not a new version: the pet
			// as read is the answer, and no other client's If-Match
			// fails for it.
			next = cur
			return true, nil
		}
		// UPDATE … WHERE id = $1 AND version = $2: false when another
		// write came between, and Write reads again.
		p, ok, err := a.store.UpdateIf(withOutcome(ctx, &in.Idempotent, versioned), in.ID, cur.Version, in.Body)
		next = p
		return ok, a.storeError(ctx, err, in.ID)
	})
	if err != nil {
		return nil, err // 404, 412 (nothing changed), 409, 503
	}
	return versioned(next), nil
}

// sameFields reports whether storing in over cur would change nothing:
// the same name, species, status (available when absent), tags in the
// same order, birth date and owner (absent and null alike).
func sameFields(cur, in PetInput) bool {
	status := in.Status
	if status == "" {
		status = "available"
	}
	return cur.Name == in.Name && cur.Species == in.Species && cur.Status == status &&
		slices.Equal(cur.Tags, in.Tags) && cur.BirthDate == in.BirthDate &&
		(cur.Owner == nil) == (in.Owner == nil) && (cur.Owner == nil || *cur.Owner == *in.Owner)
}

// version reads the pet with id into cur and returns its version for
// Conditional.Write: Exists false when there is no such pet, so that an
// If-Match fails with 412 (RFC 9110 section 13.1.1), and the write, which
// finds no row, answers 404 when there is no precondition.
func (a *api) version(ctx context.Context, id int64, cur *Pet) (vane.Version, error) {
	p, err := a.store.Get(ctx, id)
	switch {
	case errors.Is(err, errNotFound):
		*cur = Pet{}
		return vane.Version{}, nil
	case err != nil:
		return vane.Version{}, a.storeError(ctx, err, id)
	}
	*cur = p
	return vane.Version{ETag: etag(p), LastModified: p.UpdatedAt, Exists: true}, nil
}

// DeletePet is the input of DELETE /pets/{id}: If-Match makes it
// conditional on the client's version.
type DeletePet struct {
	vane.Conditional
	vane.Idempotent
	ID int64 `path:"id" minimum:"1" doc:"The pet's ID." example:"1"`
}

// deletePet returns no output: a nil output with a nil error is 204 No
// Content.
func (a *api) deletePet(ctx context.Context, in *DeletePet) (*struct{}, error) {
	var cur Pet
	err := in.Write(ctx, func(ctx context.Context) (vane.Version, error) {
		return a.version(ctx, in.ID, &cur)
	}, func(ctx context.Context, _ vane.Version) (bool, error) {
		ok, err := a.store.DeleteIf(withOutcome(ctx, &in.Idempotent, deleted), in.ID, cur.Version)
		return ok, a.storeError(ctx, err, in.ID)
	})
	return nil, err
}

// ---- Photos: a multipart upload and a binary download ----

const maxPhotoBytes = 4 << 20

// UploadPhoto is a multipart/form-data body: fields tagged form are form
// fields, and a *multipart.FileHeader field is an uploaded file.
type UploadPhoto struct {
	ID   int64 `path:"id" minimum:"1" doc:"The pet's ID."`
	Body struct {
		// contentType and maxSize are checked as the part arrives: another
		// type is a 422, a larger file a 413; an empty file is a 422
		// (minSize), all naming body.photo.
		Photo *multipart.FileHeader `form:"photo" required:"true" contentType:"image/jpeg,image/png,image/gif,image/webp" minSize:"1" maxSize:"4MiB" doc:"A JPEG, PNG, GIF or WebP image."`
	}
}

func (a *api) uploadPhoto(ctx context.Context, in *UploadPhoto) (*Pet, error) {
	fh := in.Body.Photo
	if fh == nil {
		return nil, vane.UnprocessableEntity("a photo is required",
			problem.FieldError{Location: "body.photo", Message: "required"})
	}
	ctype, _, _ := mime.ParseMediaType(fh.Header.Get("Content-Type")) // one of photoTypes: its tags say so
	ctype = strings.ToLower(ctype)
	f, err := fh.Open()
	if err != nil {
		return nil, err // a 500; the cause is logged, not shown
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPhotoBytes+1))
	if err != nil {
		return nil, err
	}
	p, err := a.store.SetPhoto(ctx, in.ID, Photo{ContentType: ctype, Data: data})
	if err != nil {
		return nil, a.storeError(ctx, err, in.ID)
	}
	return &p, nil
}

// PhotoFile is a binary response: a []byte Body is written as it is, with
// the Content-Type its header field gives; its mediaType tag documents
// the types it may have. Its ETag makes a GET conditional (If-None-Match:
// 304 Not Modified, without the bytes).
type PhotoFile struct {
	ContentType  string `header:"Content-Type"`
	CacheControl string `header:"Cache-Control"`
	ETag         string `header:"ETag" doc:"The photo's version: the SHA-256 of its bytes."`
	Body         []byte `mediaType:"image/*" doc:"The photo, in the type it was uploaded in."`
}

// GetPhoto is the input of GET /pets/{id}/photo: the pet, and the request,
// whose Accept the photo's media type must satisfy (an untagged
// *http.Request field gets the request).
type GetPhoto struct {
	ID      int64 `path:"id" minimum:"1" doc:"The pet's ID." example:"1"`
	Request *http.Request
}

func (a *api) getPhoto(ctx context.Context, in *GetPhoto) (*PhotoFile, error) {
	// A photo's media type is known once it is read; a request that
	// accepts none of the types a photo may have is refused before.
	accept := in.Request.Header["Accept"]
	if !slices.ContainsFunc(photoTypes, func(mt string) bool { return respond.Accepts(accept, mt) }) {
		return nil, notAcceptable(photoTypes...)
	}
	ph, err := a.store.Photo(ctx, in.ID)
	if errors.Is(err, errNotFound) {
		return nil, vane.NotFound("pet " + strconv.FormatInt(in.ID, 10) + " has no photo")
	}
	if err != nil {
		return nil, a.storeError(ctx, err, in.ID)
	}
	if !respond.Accepts(accept, ph.ContentType) {
		return nil, notAcceptable(ph.ContentType)
	}
	return &PhotoFile{ContentType: ph.ContentType, CacheControl: "no-cache", ETag: `"` + ph.SHA256 + `"`, Body: ph.Data}, nil
}

// notAcceptable is the 406 Not Acceptable of a request whose Accept
// accepts none of the media types types.
func notAcceptable(types ...string) error {
	return vane.Error(http.StatusNotAcceptable, "none of the media types in Accept can be sent; this answers with "+strings.Join(types, ", "))
}

// acceptsEvents answers 406 Not Acceptable, before the stream starts, to
// a request whose Accept does not accept text/event-stream.
func (a *api) acceptsEvents(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !respond.Accepts(req.Header["Accept"], vane.EventStreamType) {
			a.router.WriteError(w, req, notAcceptable(vane.EventStreamType))
			return
		}
		next.ServeHTTP(w, req)
	})
}

// ---- Authentication ----

// Me is the body of GET /me.
type Me struct {
	User string `json:"user" doc:"The name the token belongs to." example:"demo"`
}

func (a *api) whoAmI(ctx context.Context, _ *struct{}) (*Me, error) {
	return &Me{User: userOf(ctx)}, nil
}

type userKey struct{}

// userOf returns the user requireToken found, for the handlers behind it.
func userOf(ctx context.Context) string {
	u, _ := ctx.Value(userKey{}).(string)
	return u
}

// requireToken is ordinary net/http middleware: it answers 401 unless the
// request carries a known bearer token, and passes the token's user on in
// the request's context. The 401 goes through the router's error model
// (Router.WriteError): the problem and its WWW-Authenticate header, seen
// by an ErrorHook as the operations' own errors are.
func (a *api) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.Header["Authorization"]) > 1 {
			// Authorization is a singleton: of two, a proxy may check one
			// and the service read the other.
			a.router.WriteError(w, r, vane.Error(http.StatusBadRequest, "a request carries one Authorization header field"))
			return
		}
		token, ok := bearerToken(r.Header.Get("Authorization"))
		user := ""
		if ok {
			for t, u := range a.tokens {
				// Constant-time comparison: the time taken says nothing of
				// how much of a guess was right.
				if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
					user = u
				}
			}
		}
		if user == "" {
			a.router.WriteError(w, r, vane.Unauthorized("a valid bearer token is required").
				WithHeader("WWW-Authenticate", `Bearer realm="petstore"`))
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, user)))
	})
}

// bearerToken returns the token of an Authorization header of the Bearer
// scheme: the scheme's name in any case, then one or more spaces (RFC
// 9110 section 11.1's 1*SP), then the token.
func bearerToken(h string) (string, bool) {
	scheme, rest, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token := strings.TrimLeft(rest, " ")
	return token, token != ""
}

// storeError is the error for a failed store call on pet id: a 404 for an
// unknown pet (vane.NotFound makes a problem response whose detail the
// client sees), a 503 with Retry-After when the database is unavailable
// (down, unreachable, restarting, locked), whose cause is logged here
// with the request's ID and not shown, else the error itself, a 500
// whose cause vane logs, not shown. nil stays nil.
func (a *api) storeError(ctx context.Context, err error, id int64) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errNotFound):
		return vane.NotFound("no pet has ID " + strconv.FormatInt(id, 10))
	case unavailable(err):
		a.logger.ErrorContext(ctx, "database unavailable", slog.Any("error", err))
		return vane.Unavailable(2*time.Second, "the database is unavailable; retry shortly")
	}
	return err
}
