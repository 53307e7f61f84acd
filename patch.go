package vane

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/vane-http/vane/bind"
	"github.com/vane-http/vane/jsonpatch"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/respond"
	"github.com/vane-http/vane/schema"
	"github.com/vane-http/vane/validate"
)

// MergePatchType is the media type of a JSON merge patch (RFC 7396).
const MergePatchType = "application/merge-patch+json"

// JSONPatchType is the media type of a JSON Patch (RFC 6902).
const JSONPatchType = "application/json-patch+json"

// acceptPatch is the Accept-Patch header of a PATCH registered by
// MergePatch (RFC 5789 section 3.1).
const acceptPatch = MergePatchType + ", " + JSONPatchType

// MergePatch registers PATCH pattern as a patch of the resource that get
// reads and put replaces, both typed handlers of the same pattern (usually
// those of the GET and PUT operations). The body is either a JSON merge
// patch (RFC 7396, application/merge-patch+json: members to set, members
// set to null to remove) or a JSON Patch (RFC 6902,
// application/json-patch+json: a list of add, remove, replace, move, copy
// and test operations); any other media type is a 415 with Accept-Patch.
// The body is read as strictly as any JSON body (UTF-8, no duplicate
// keys), within the PATCH's body limit.
//
// A patch never overwrites a change it did not see. vane reads the
// resource with get (an answer other than 200, such as a 404, is the
// PATCH's answer, before the patch is even parsed), checks the patch
// (400, 422), evaluates the request's preconditions (If-Match,
// If-None-Match, If-Unmodified-Since) against the ETag and Last-Modified
// that get answered (a 412 when they fail; a time.Time Last-Modified
// field is compared at full precision), applies the patch, and calls put
// with the result as its body and If-Match set to get's ETag, so that put
// writes only over the version the patch was applied to. put's input
// must embed Conditional and write
// with Conditional.Write (a compare-and-swap); get's output must set an
// ETag header field; MergePatch panics otherwise. When put answers 412
// (another writer came between the read and the write), the patch is
// applied again to the newer version, up to MaxWriteAttempts times, then
// answered 409 Conflict; a client's own stale If-Match is a 412. When
// put's input embeds Conditional with required:"true", a PATCH without a
// precondition is a 428. The PUT input's rules validate the patched
// resource (a 422 names what the patch broke, and nothing is written),
// and the PUT's answer is the PATCH's.
//
// A patch whose result equals the current resource (as JSON values:
// numbers by value, members in any order) writes nothing: an empty JSON
// Patch, one of test operations only, a move to the same place, a merge
// patch that sets what is already set. put is not called; the answer is
// get's, 200 with the unchanged ETag.
//
// Members the current resource has that the PUT body does not declare
// (an id, a creation time), and members either body's schema marks
// readOnly, are read-only: a patch that changes one is a 422 naming it;
// one that leaves it as it is (a client sending back the whole resource
// as a merge patch) is fine, and put receives the resource without the
// undeclared ones, so that a PUT that refuses unknown members
// (UnknownProperties(RefuseUnknown)) accepts it.
//
// A JSON Patch follows RFC 6901 and 6902 exactly (package jsonpatch): an
// array index is 0 or digits without a leading zero, "-" only for add,
// test compares numbers by value and objects whatever their member order.
// A patch that is not well-formed JSON is a 400, as any body; one that is
// not a valid JSON Patch, or names what is not there, is a 422 naming the
// operation and member (body[3].path); a test that fails is a 409. A JSON
// Patch holds at most MaxPatchOperations operations (1,000 by default;
// more is a 422, and the document's schema says maxItems), and its work
// is bounded by the sizes of patch and resource.
//
// When put's input embeds Idempotent, the PATCH takes an Idempotency-Key
// under the IdempotencyKeys that opts give it: its requests are told
// apart by the patch (its media type, and the patch as decoded) and the
// PATCH's parameters, and put records the PATCH's outcome under the key
// (Idempotent.Outcome), so that a retried patch is answered with the
// first outcome and applied once.
//
// The request's path, query and header parameters reach both handlers,
// through the operation middleware (Middleware given to the operation)
// of the GET and PUT registered on pattern before the PATCH. opts
// describe the PATCH and set how it reads (ID, Summary, Tags, BodyLimit,
// Middleware …), after the options of r's router and groups. The document
// lists the PATCH with both media types and the answers of get and put,
// 409 and 412.
func MergePatch[GI, GO, PI, PO any](r *Router, pattern string,
	get func(context.Context, *GI) (*GO, error), put func(context.Context, *PI) (*PO, error), opts ...Option) {
	if get == nil || put == nil {
		panic("vane: MergePatch " + pattern + " with a nil handler")
	}
	fail := func(msg string) { panic("vane: MergePatch " + pattern + ": " + msg) }
	hasCond, required := conditionalOf(reflect.TypeFor[PI]())
	if !hasCond {
		fail("the put handler's input must embed vane.Conditional and write with Conditional.Write, so that a patch is written only over the version it was applied to")
	}
	op := r.spec(http.MethodPatch, pattern, opts)
	maxOps := op.MaxPatchOperations
	switch {
	case maxOps == 0:
		maxOps = jsonpatch.DefaultMaxOperations
	case maxOps < 0:
		maxOps = math.MaxInt // no cap
	}
	// The GET and PUT as MergePatch calls them (never published): the
	// PUT reads the patched resource as the PATCH's body, under the
	// PATCH's limit, codec and policy for unknown members, and records
	// the PATCH's outcome under its idempotency key.
	getOp := spec{Method: http.MethodGet, Path: pattern, ID: "merge-patch-get"}
	putOp := spec{Method: http.MethodPut, Path: pattern, ID: "merge-patch-put", BodyLimit: op.BodyLimit, Codec: op.Codec,
		UnknownProperties: op.UnknownProperties, Idempotency: op.Idempotency}
	gh, gd, err := compileOperation[GI, GO](r, &getOp)
	if err != nil {
		fail(err.Error())
	}
	ph, pd, err := compileOperation[PI, PO](r, &putOp)
	if err != nil {
		fail(err.Error())
	}
	if pd.RequestBody == nil || len(pd.RequestBody.Content) == 0 || pd.RequestBody.Content[0].MediaType != "application/json" {
		fail("the put handler's input needs a JSON Body")
	}
	if !setsHeader(gd, "ETag") {
		fail("the get handler's output must set an ETag header field: the patch is written only over the version it read")
	}
	gh.fn, ph.fn = get, put

	d := *pd
	d.Method, d.ID, d.Summary, d.Description = http.MethodPatch, op.ID, op.Summary, op.Description
	d.Tags, d.Deprecated, d.Hidden, d.Security, d.Extensions = op.Tags, op.Deprecated, op.Hidden, op.security(), op.Extensions
	if d.ID == "" {
		d.ID = operation.DefaultID(http.MethodPatch, d.Pattern)
	}
	putBody := pd.RequestBody.Content[0].Schema
	name := describeRef(putBody)
	d.RequestBody = &operation.RequestBody{
		Required: true,
		Description: "A patch of the resource: a JSON merge patch (RFC 7396; members to set, members set to null to remove) " +
			"or a JSON Patch (RFC 6902; a list of operations). The patched resource must satisfy the PUT body's schema.",
		Content: []operation.Content{
			{MediaType: MergePatchType, Schema: mergePatchSchema(r.api.registry(), putBody, name)},
			{MediaType: JSONPatchType, Schema: jsonPatchSchema(name, maxOps)},
		},
	}
	mergeCheck, err := validate.NewInstanceValidator(r.api.registry(), d.RequestBody.Content[0].Schema)
	if err != nil {
		fail(err.Error())
	}
	// The answers of the GET and PUT as registered (what their Responds
	// and Problems say), else as compiled here, and the PATCH's own.
	putDoc, getDoc := pd.Responses, gd.Responses
	for _, o := range r.api.ops {
		switch {
		case o.Pattern != d.Pattern:
		case o.Method == http.MethodPut:
			putDoc = o.Responses
		case o.Method == http.MethodGet:
			getDoc = o.Responses
		}
	}
	extra := map[int]string{
		http.StatusConflict:           "Conflict: a JSON Patch test operation failed (the resource is not as the patch expects), or the resource kept changing while the patch was applied.",
		http.StatusPreconditionFailed: "Precondition Failed: the resource's current version does not match If-Match, If-Unmodified-Since or If-None-Match.",
	}
	for status, desc := range op.Responses {
		extra[status] = desc
	}
	d.Responses = mergeResponses(putDoc, getDoc, extra)
	if d.Responses, err = documentProblems(d.Responses, append(slices.Clip(r.problems), op.Problems...), r.api.registry()); err != nil {
		fail(err.Error())
	}
	ph2 := wrap(ph, r.api.middleware[http.MethodPut+" "+d.Pattern])
	gh2 := wrap(gh, r.api.middleware[http.MethodGet+" "+d.Pattern])
	reg := r.api.registry()
	keyed, err := keyedPatch[PI](r, &op, &d, d.BodyLimit, &patchHandler{router: r, get: gh2, put: ph2, limit: d.BodyLimit, mergeCheck: mergeCheck, codec: ph.enc.Default(),
		declared: declaredMembers(reg, putBody), readOnly: readOnlyMembers(reg, putBody, successSchema(gd)),
		required: required, maxOps: maxOps})
	if err != nil {
		fail(err.Error())
	}
	r.add(&op, &d, keyed)
}

// setsHeader reports whether d's success response documents header name.
func setsHeader(d *operation.Description, name string) bool {
	for _, resp := range d.Responses {
		if resp.Status == d.Status {
			for _, h := range resp.Headers {
				if strings.EqualFold(h.Name, name) {
					return true
				}
			}
		}
	}
	return false
}

// declaredMembers is the set of top-level members of the object schema s,
// or nil when s is not an object with a fixed set of them.
func declaredMembers(reg *schema.Registry, s *schema.Schema) map[string]bool {
	if s != nil && s.Ref != "" {
		s = reg.Resolve(s)
	}
	if s == nil || len(s.Properties) == 0 {
		return nil
	}
	if ap := s.AdditionalProperties; ap != nil && !ap.False {
		return nil
	}
	m := make(map[string]bool, len(s.Properties))
	for k := range s.Properties {
		m[k] = true
	}
	return m
}

// readOnlyMembers is the set of top-level members that the object
// schemas mark readOnly.
func readOnlyMembers(reg *schema.Registry, schemas ...*schema.Schema) map[string]bool {
	m := map[string]bool{}
	for _, s := range schemas {
		if s != nil && s.Ref != "" {
			s = reg.Resolve(s)
		}
		if s == nil {
			continue
		}
		for k, p := range s.Properties {
			if p != nil && p.ReadOnly {
				m[k] = true
			}
		}
	}
	return m
}

// successSchema is the body schema of d's success response, or nil.
func successSchema(d *operation.Description) *schema.Schema {
	for _, resp := range d.Responses {
		if resp.Status == d.Status && len(resp.Content) > 0 {
			return resp.Content[0].Schema
		}
	}
	return nil
}

// mergePatchSchema is the schema of a merge patch of the object schema
// put: its members, none required, each nullable (null removes it), and
// put's rule for other members.
func mergePatchSchema(reg *schema.Registry, put *schema.Schema, of string) *schema.Schema {
	s := &schema.Schema{Type: schema.TypeObject, Description: "A merge patch (RFC 7396) of " + of + ": the members to set, and null for those to remove."}
	body := reg.Resolve(put)
	if body == nil || len(body.Properties) == 0 {
		s.AdditionalProperties = &schema.Schema{}
		return s
	}
	s.Properties = make(map[string]*schema.Schema, len(body.Properties))
	for k, p := range body.Properties {
		if p.ReadOnly {
			continue
		}
		c := *p
		c.Nullable, c.Default = true, nil
		if len(c.Enum) > 0 {
			c.Enum = append(slices.Clip(c.Enum), nil)
		}
		s.Properties[k] = &c
	}
	for _, k := range body.PropertyOrder {
		if s.Properties[k] != nil {
			s.PropertyOrder = append(s.PropertyOrder, k)
		}
	}
	s.AdditionalProperties = body.AdditionalProperties
	return s
}

// jsonPatchSchema is the schema of an RFC 6902 JSON Patch document: a
// list of at most maxOps operations, each of one of the six kinds with the
// members that kind needs.
func jsonPatchSchema(of string, maxOps int) *schema.Schema {
	var maxItems *int
	limit := ", of any number of operations"
	if maxOps < math.MaxInt {
		maxItems, limit = &maxOps, ", of at most "+strconv.Itoa(maxOps)+" operations"
	}
	pointer := func(desc string) *schema.Schema {
		return &schema.Schema{Type: schema.TypeString, Pattern: `^(/([^~/]|~[01])*)*$`, Description: desc + " (a JSON Pointer, RFC 6901)."}
	}
	kind := func(ops []any, members ...string) *schema.Schema {
		s := &schema.Schema{Type: schema.TypeObject, Required: append([]string{"op", "path"}, members...),
			Properties: map[string]*schema.Schema{
				"op":   {Type: schema.TypeString, Enum: ops},
				"path": pointer("The member to change"),
			}, PropertyOrder: append([]string{"op", "path"}, members...)}
		for _, m := range members {
			switch m {
			case "from":
				s.Properties[m] = pointer("The member to take")
			case "value":
				s.Properties[m] = &schema.Schema{Description: "The value."}
			}
		}
		return s
	}
	return &schema.Schema{
		Type: schema.TypeArray, Description: "A JSON Patch (RFC 6902) of " + of + limit + ".",
		MaxItems: maxItems,
		Items: &schema.Schema{OneOf: []*schema.Schema{
			kind([]any{"add", "replace", "test"}, "value"),
			kind([]any{"remove"}),
			kind([]any{"move", "copy"}, "from"),
		}},
	}
}

func describeRef(s *schema.Schema) string {
	if s != nil && s.Ref != "" {
		return s.Ref[strings.LastIndexByte(s.Ref, '/')+1:]
	}
	return "the PUT body"
}

// mergeResponses is put's responses with those of get's errors it lacks
// (a 404) and the problems of extra it lacks, in status order after the
// success response.
func mergeResponses(put, get []operation.Response, extra map[int]string) []operation.Response {
	out := append([]operation.Response(nil), put...)
	has := func(status int) bool {
		for _, p := range out {
			if p.Status == status {
				return true
			}
		}
		return false
	}
	var template *operation.Response
	for i := range put {
		if put[i].Status >= 400 && len(put[i].Content) > 0 {
			template = &put[i]
			break
		}
	}
	for _, g := range get {
		if g.Status >= 400 && !has(g.Status) {
			out = append(out, g)
		}
	}
	for status, desc := range extra {
		switch i := slices.IndexFunc(out, func(r operation.Response) bool { return r.Status == status }); {
		case i < 0 && template != nil:
			resp := *template
			resp.Status, resp.Description, resp.Headers = status, desc, nil
			out = append(out, resp)
		case i >= 0 && !strings.Contains(out[i].Description, desc):
			out[i].Description += " Or: " + desc // put answers this status too, for its own reason
		}
	}
	sort.SliceStable(out[1:], func(i, j int) bool {
		a, b := out[1+i].Status, out[1+j].Status
		return a != 0 && (b == 0 || a < b)
	})
	return out
}

// patchHandler serves a PATCH registered by MergePatch.
type patchHandler struct {
	router     *Router
	get        http.Handler
	put        http.Handler
	limit      int64
	codec      interface{ Unmarshal([]byte, any) error }
	declared   map[string]bool // the PUT body's members; nil: any member
	readOnly   map[string]bool // members either body's schema marks readOnly
	mergeCheck *validate.InstanceValidator
	required   bool // the PUT's Conditional is required:"true"
	maxOps     int  // the most operations of a JSON Patch
}

// patchKind is the kind of patch a request sends.
type patchKind int

const (
	mergePatch patchKind = iota + 1
	jsonPatch
)

// patchDoc is a patch decoded: a merge patch's value, or a JSON Patch.
type patchDoc struct {
	kind  patchKind
	merge any
	ops   jsonpatch.Patch
}

func (h *patchHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	kind, prob := patchKindOf(req.Header.Get("Content-Type"))
	if prob != nil {
		w.Header().Set("Accept-Patch", acceptPatch)
		h.router.WriteError(w, req, prob)
		return
	}
	cond := Conditional{
		IfMatch:           strings.Join(req.Header.Values("If-Match"), ", "),
		IfNoneMatch:       strings.Join(req.Header.Values("If-None-Match"), ", "),
		IfUnmodifiedSince: req.Header.Get("If-Unmodified-Since"),
		required:          h.required,
	}
	if h.required && !cond.guarded() {
		h.router.WriteError(w, req, missingPrecondition())
		return
	}
	body, prob := h.read(w, req)
	if prob != nil {
		h.router.WriteError(w, req, prob)
		return
	}

	// The current resource, as GET answers it in JSON, and its
	// modification time at the precision the GET's output holds it.
	var modified time.Time
	getReq := req.Clone(respond.WithModTime(req.Context(), &modified))
	getReq.Method, getReq.Body, getReq.ContentLength = http.MethodGet, http.NoBody, 0
	for _, k := range []string{"Accept", "Content-Type", "Content-Length", "Content-Encoding", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"} {
		getReq.Header.Del(k)
	}
	var patch *patchDoc
	for range MaxWriteAttempts {
		if req.Context().Err() != nil {
			return // the client has gone
		}
		cur := newCaptured()
		modified = time.Time{}
		h.get.ServeHTTP(cur, getReq)
		if cur.status != http.StatusOK {
			cur.copyTo(w)
			return
		}
		etag := cur.header.Get("ETag")
		if etag == "" {
			h.router.WriteError(w, req, errors.New("vane: MergePatch: the GET answered without an ETag"))
			return
		}
		if patch == nil {
			// Only now, with the resource there, is the patch read at
			// length; a patch that is not valid is a 422 whatever the
			// preconditions say, as a PUT's body is.
			if patch, prob = h.decode(kind, body); prob != nil {
				h.router.WriteError(w, req, prob)
				return
			}
		}
		if modified.IsZero() {
			modified, _ = http.ParseTime(cur.header.Get("Last-Modified"))
		}
		if err := cond.evaluate(Version{ETag: etag, LastModified: modified, Exists: true}); err != nil {
			h.router.WriteError(w, req, err)
			return
		}
		current, err := jsonpatch.Unmarshal(cur.body.Bytes())
		if err != nil {
			h.router.WriteError(w, req, fmt.Errorf("vane: MergePatch: the GET's body is not JSON: %w", err))
			return
		}
		before := jsonpatch.Clone(current)
		var patched any
		if patch.kind == mergePatch {
			patched = jsonpatch.Merge(current, patch.merge)
		} else if patched, err = jsonpatch.Apply(current, patch.ops); err != nil {
			h.router.WriteError(w, req, patchProblem(err, "the patch could not be applied"))
			return
		}
		if prob := h.readOnlyChanged(before, patched, patch); prob != nil {
			h.router.WriteError(w, req, prob)
			return
		}
		if jsonpatch.Equal(before, patched) {
			// Nothing changes: no write, no new version.
			if len(req.Header["Accept"]) == 0 {
				cur.copyTo(w)
				return
			}
			again := getReq.Clone(req.Context())
			again.Header["Accept"] = req.Header["Accept"]
			h.get.ServeHTTP(w, again)
			return
		}
		putBody, err := json.Marshal(h.forPut(before, patched))
		if err != nil {
			h.router.WriteError(w, req, fmt.Errorf("vane: MergePatch: encoding the patched resource: %w", err))
			return
		}

		putReq := req.Clone(req.Context())
		putReq.Method = http.MethodPut
		putReq.Body, putReq.ContentLength = io.NopCloser(bytes.NewReader(putBody)), int64(len(putBody))
		putReq.Header.Set("Content-Type", "application/json")
		putReq.Header.Del("Content-Encoding")
		putReq.Header.Del("If-None-Match")
		putReq.Header.Del("If-Unmodified-Since")
		putReq.Header["If-Match"] = []string{etag}
		res := newCaptured()
		h.put.ServeHTTP(res, putReq)
		if res.status == http.StatusPreconditionFailed {
			continue // another writer came first: apply the patch to its version
		}
		res.copyTo(w)
		return
	}
	h.router.WriteError(w, req, problem.New(http.StatusConflict,
		"the resource kept changing while the patch was applied; read it again and retry"))
}

// patchKindOf is the kind of patch a Content-Type names, or a 415.
func patchKindOf(ct string) (patchKind, *problem.Details) {
	mt, params, err := mime.ParseMediaType(ct)
	if err == nil {
		if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
			return 0, problem.New(http.StatusUnsupportedMediaType, "charset "+strconv.Quote(cs)+" is not supported; a patch is sent in UTF-8")
		}
		switch mt {
		case MergePatchType:
			return mergePatch, nil
		case JSONPatchType:
			return jsonPatch, nil
		}
	}
	return 0, problem.New(http.StatusUnsupportedMediaType, "send the patch as "+MergePatchType+" or "+JSONPatchType)
}

// read reads the patch's bytes within the body limit.
func (h *patchHandler) read(w http.ResponseWriter, req *http.Request) ([]byte, *problem.Details) {
	req, prob := bind.DecodeBody(req, h.limit)
	if prob != nil {
		return nil, prob
	}
	var body io.Reader = http.NoBody
	if req.Body != nil {
		body = req.Body
		if h.limit > 0 {
			body = http.MaxBytesReader(w, req.Body, h.limit)
		}
	}
	patch, err := io.ReadAll(body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, problem.New(http.StatusRequestEntityTooLarge, "the patch is larger than the limit of "+strconv.FormatInt(h.limit, 10)+" bytes")
		}
		return nil, problem.New(http.StatusBadRequest, "the patch could not be read: "+err.Error())
	}
	if len(bytes.TrimSpace(patch)) == 0 {
		return nil, problem.New(http.StatusBadRequest, "the patch is empty")
	}
	return patch, nil
}

// decode checks that the patch is JSON as strict as any request body's
// (well-formed UTF-8, no duplicate keys: 400) and a valid patch of its
// kind (422), and decodes it.
func (h *patchHandler) decode(kind patchKind, body []byte) (*patchDoc, *problem.Details) {
	var v any
	if err := h.codec.Unmarshal(body, &v); err != nil {
		return nil, problem.New(http.StatusBadRequest, "the patch is not well-formed JSON: "+err.Error())
	}
	if kind == jsonPatch {
		ops, err := jsonpatch.Decode(body, h.maxOps)
		if err != nil {
			return nil, patchProblem(err, "the patch is not a valid JSON Patch")
		}
		return &patchDoc{kind: kind, ops: ops}, nil
	}
	if errs := h.mergeCheck.Validate(body, "body"); errs != nil {
		return nil, problem.New(http.StatusUnprocessableEntity, "the patch does not match its schema", errs...)
	}
	m, err := jsonpatch.Unmarshal(body)
	if _, ok := m.(map[string]any); err != nil || !ok {
		return nil, problem.New(http.StatusUnprocessableEntity, "a merge patch is a JSON object")
	}
	return &patchDoc{kind: kind, merge: m}, nil
}

// readOnlyChanged is the 422 of a patch whose result differs from the
// resource before it in a read-only member: one the resource has and the
// PUT body does not declare, or one a schema marks readOnly. It names
// each such member where the patch touched it.
func (h *patchHandler) readOnlyChanged(before, after any, patch *patchDoc) *problem.Details {
	b, ok := before.(map[string]any)
	if !ok {
		return nil
	}
	a, _ := after.(map[string]any) // nil when the result is no object: every member of before is gone
	var names []string
	check := func(k string) {
		if !h.readOnly[k] && (h.declared == nil || h.declared[k]) {
			return
		}
		if _, had := b[k]; !had && !h.readOnly[k] {
			return // a member the resource does not have: the PUT's rules judge it
		}
		bv, inB := b[k]
		av, inA := a[k]
		if inA != inB || !jsonpatch.Equal(bv, av) {
			names = append(names, k)
		}
	}
	for k := range b {
		check(k)
	}
	for k := range a {
		if _, seen := b[k]; !seen {
			check(k)
		}
	}
	if names == nil {
		return nil
	}
	sort.Strings(names)
	errs := make([]problem.FieldError, 0, len(names))
	for _, k := range names {
		msg := "read-only: a patch cannot change it"
		if patch.kind == mergePatch {
			errs = append(errs, problem.FieldError{Location: problem.Location("body").Field(k).String(), Message: msg})
			continue
		}
		i, member, ptr := touching(patch.ops, k)
		loc := "body"
		if i >= 0 {
			loc = problem.Location("body").Index(i).Field(member).String()
		}
		errs = append(errs, problem.FieldError{Location: loc, Message: strconv.Quote(k) + " is " + msg, Value: ptr})
	}
	return problem.New(http.StatusUnprocessableEntity, "the patch changes read-only members of the resource", errs...)
}

// touching finds the first operation of ops that changes the top-level
// member k (or the whole document): its index, which of its members
// names the place, and that pointer; -1 for none.
func touching(ops jsonpatch.Patch, k string) (int, string, string) {
	for i, op := range ops {
		if op.Op == "test" {
			continue
		}
		if len(op.Path) == 0 || op.Path[0] == k {
			return i, "path", op.Path.String()
		}
		if op.Op == "move" && (len(op.From) == 0 || op.From[0] == k) {
			return i, "from", op.From.String()
		}
	}
	return -1, "", ""
}

// forPut is the patched resource as put receives it: without the
// members the PUT body does not declare that the resource had (read-only,
// and unchanged by now); members it did not have are left to the PUT's
// rules.
func (h *patchHandler) forPut(before, after any) any {
	a, ok := after.(map[string]any)
	b, _ := before.(map[string]any)
	if !ok || h.declared == nil {
		return after
	}
	for k := range a {
		if _, had := b[k]; had && !h.declared[k] {
			delete(a, k)
		}
	}
	return a
}

// patchProblem is the answer to a JSON Patch that is not valid or does
// not apply: 409 for a test operation that failed (the resource is not in
// the state the client expected; RFC 5789 section 2.2), else 422 with
// detail, naming the operation and member.
func patchProblem(err error, detail string) *problem.Details {
	var pe *jsonpatch.Error
	if !errors.As(err, &pe) {
		return problem.New(http.StatusUnprocessableEntity, detail)
	}
	loc := problem.Location("body")
	if pe.Index >= 0 {
		loc = loc.Index(pe.Index)
		if pe.Member != "" {
			loc = loc.Field(pe.Member)
		}
	}
	fe := problem.FieldError{Location: loc.String(), Message: pe.Reason}
	if pe.Member == "path" || pe.Member == "from" {
		fe.Value = pe.Pointer
	}
	switch {
	case pe.Test:
		return problem.New(http.StatusConflict, "a test operation of the patch failed: the resource is not as the patch expects", fe)
	case errors.Is(err, jsonpatch.ErrTooCostly):
		return problem.New(http.StatusUnprocessableEntity, "the patch takes more work than its size allows", fe)
	case pe.Index < 0:
		return problem.New(http.StatusUnprocessableEntity, detail+": "+pe.Reason)
	}
	return problem.New(http.StatusUnprocessableEntity, detail, fe)
}

// captured is a response kept in memory: the GET's, to be patched, or
// the PUT's, to be retried on a 412.
type captured struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newCaptured() *captured { return &captured{header: http.Header{}} }

func (c *captured) Header() http.Header { return c.header }
func (c *captured) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}
func (c *captured) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.body.Write(b)
}

// SetWriteDeadline lets a handler behind a captured response set write
// deadlines through http.ResponseController without failing.
func (c *captured) SetWriteDeadline(time.Time) error { return nil }

func (c *captured) copyTo(w http.ResponseWriter) {
	for k, v := range c.header {
		w.Header()[k] = v
	}
	if c.status == 0 {
		c.status = http.StatusOK
	}
	w.WriteHeader(c.status)
	w.Write(c.body.Bytes()) //nolint:errcheck // the client went away
}
