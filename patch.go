package vane

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/vane-http/vane/bind"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
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
// PATCH's answer), evaluates the request's preconditions (If-Match,
// If-None-Match, If-Unmodified-Since) against the ETag and Last-Modified
// that get answered (a 412 when they fail), applies the patch, and calls
// put with the result as its body and If-Match set to get's ETag, so that
// put writes only over the version the patch was applied to. put's input
// must embed Conditional and write with Conditional.Write (a
// compare-and-swap); get's output must set an ETag header field; MergePatch
// panics otherwise. When put answers 412 (another writer came between the
// read and the write), the patch is applied again to the newer version, up
// to MaxWriteAttempts times, then answered 409 Conflict; a client's own
// stale If-Match is a 412. The PUT input's rules validate the patched
// resource (a 422 names what the patch broke, and nothing is written), and
// the PUT's answer is the PATCH's.
//
// Members of the current resource that the PUT body does not declare
// (read-only ones such as an id) are left out of what put receives, unless
// the patch sets them, so that a PUT that refuses unknown members
// (UnknownProperties(RefuseUnknown)) accepts the patched resource.
//
// When put's input embeds Idempotent, the PATCH takes an Idempotency-Key
// under the Op.Idempotency that opts give it: its requests are told
// apart by the patch (its media type, and the patch as decoded) and the
// PATCH's parameters, and put records the PATCH's outcome under the key
// (Idempotent.Outcome), so that a retried patch is answered with the
// first outcome and applied once.
//
// The request's path, query and header parameters reach both handlers,
// through the Op.Middleware of the GET and PUT operations registered on
// pattern before the PATCH. opts adjust the PATCH's Op (its ID, Summary,
// Tags, Middleware …). The document lists the PATCH with both media types
// and the answers of get and put, 409 and 412. The patch algorithms are
// github.com/evanphx/json-patch/v5's.
func MergePatch[GI, GO, PI, PO any](r *Router, pattern string,
	get func(context.Context, *GI) (*GO, error), put func(context.Context, *PI) (*PO, error), opts ...func(*Op)) {
	if get == nil || put == nil {
		panic("vane: MergePatch " + pattern + " with a nil handler")
	}
	fail := func(msg string) { panic("vane: MergePatch " + pattern + ": " + msg) }
	if !hasConditional(reflect.TypeFor[PI]()) {
		fail("the put handler's input must embed vane.Conditional and write with Conditional.Write, so that a patch is written only over the version it was applied to")
	}
	op := newOp(http.MethodPatch, pattern, opts)
	getOp, putOp := newOp(http.MethodGet, pattern, nil), newOp(http.MethodPut, pattern, nil)
	getOp.ID, putOp.ID = "merge-patch-get", "merge-patch-put" // never published
	putOp.Idempotency = op.Idempotency                        // put records the PATCH's outcome under its key
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
	d.Tags, d.Deprecated, d.Hidden, d.Security, d.Extensions = op.Tags, op.Deprecated, op.Hidden, op.Security, op.Extensions
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
			{MediaType: JSONPatchType, Schema: jsonPatchSchema(name)},
		},
	}
	var checks [2]*validate.InstanceValidator
	for i, c := range d.RequestBody.Content {
		if checks[i], err = validate.NewInstanceValidator(r.api.registry(), c.Schema); err != nil {
			fail(err.Error())
		}
	}
	// The answers of the GET and PUT as registered (their Op.Responses
	// and Op.Problems), else as compiled here, and the PATCH's own.
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
		http.StatusConflict:           "Conflict: the resource kept changing while the patch was applied, or a JSON Patch test operation failed.",
		http.StatusPreconditionFailed: "Precondition Failed: the resource's current version does not match If-Match, If-Unmodified-Since or If-None-Match.",
	}
	for status, desc := range op.Responses {
		extra[status] = desc
	}
	d.Responses = mergeResponses(putDoc, getDoc, extra)
	if d.Responses, err = documentProblems(d.Responses, append(slices.Clip(r.problems), op.Problems...), r.api.registry()); err != nil {
		fail(err.Error())
	}
	for _, other := range r.api.ops {
		if other.ID == d.ID {
			panic("vane: operation ID " + strconv.Quote(d.ID) + " of PATCH " + d.Pattern + " is already used by " + other.Method + " " + other.Pattern)
		}
	}
	ph2 := wrap(ph, r.api.middleware[http.MethodPut+" "+d.Pattern])
	gh2 := wrap(gh, r.api.middleware[http.MethodGet+" "+d.Pattern])
	keyed, err := keyedPatch[PI](r, &op, &d, d.BodyLimit, &patchHandler{router: r, get: gh2, put: ph2, limit: d.BodyLimit, checks: checks, codec: ph.enc.Default(), declared: declaredMembers(r.api.registry(), putBody)})
	if err != nil {
		fail(err.Error())
	}
	h := wrap(keyed, op.Middleware)
	r.Handle(http.MethodPatch, pattern, h)
	r.api.ops = append(r.api.ops, &d)
}

// wrap returns h inside mw, the first outermost.
func wrap(h http.Handler, mw []func(http.Handler) http.Handler) http.Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
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
// list of operations, each of one of the six kinds with the members that
// kind needs.
func jsonPatchSchema(of string) *schema.Schema {
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
		Type: schema.TypeArray, Description: "A JSON Patch (RFC 6902) of " + of + ".",
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
	router   *Router
	get      http.Handler
	put      http.Handler
	limit    int64
	codec    interface{ Unmarshal([]byte, any) error }
	declared map[string]bool                // the PUT body's members; nil: keep every member
	checks   [2]*validate.InstanceValidator // the merge patch's and JSON Patch's schemas
}

// patchKind is the kind of patch a request sends.
type patchKind int

const (
	mergePatch patchKind = iota + 1
	jsonPatch
)

func (h *patchHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	kind, prob := patchKindOf(req.Header.Get("Content-Type"))
	if prob != nil {
		w.Header().Set("Accept-Patch", acceptPatch)
		h.router.WriteError(w, req, prob)
		return
	}
	patch, prob := h.read(w, req)
	if prob != nil {
		h.router.WriteError(w, req, prob)
		return
	}
	if errs := h.checks[kind-1].Validate(patch, "body"); errs != nil {
		h.router.WriteError(w, req, problem.New(http.StatusUnprocessableEntity, "the patch does not match its schema", errs...))
		return
	}
	var ops jsonpatch.Patch
	var sent map[string]json.RawMessage // the merge patch's top-level members
	if kind == mergePatch {
		if err := json.Unmarshal(patch, &sent); err != nil || sent == nil {
			h.router.WriteError(w, req, problem.New(http.StatusBadRequest, "a merge patch is a JSON object"))
			return
		}
	} else {
		var err error
		if ops, err = jsonpatch.DecodePatch(patch); err != nil {
			h.router.WriteError(w, req, problem.New(http.StatusBadRequest, "a JSON Patch is a list of operations, each with op and path: "+err.Error()))
			return
		}
	}
	cond := Conditional{
		IfMatch:           strings.Join(req.Header.Values("If-Match"), ", "),
		IfNoneMatch:       strings.Join(req.Header.Values("If-None-Match"), ", "),
		IfUnmodifiedSince: req.Header.Get("If-Unmodified-Since"),
	}

	// The current resource, as GET answers it in JSON.
	getReq := req.Clone(req.Context())
	getReq.Method, getReq.Body, getReq.ContentLength = http.MethodGet, http.NoBody, 0
	for _, k := range []string{"Accept", "Content-Type", "Content-Length", "Content-Encoding", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"} {
		getReq.Header.Del(k)
	}
	for range MaxWriteAttempts {
		if req.Context().Err() != nil {
			return // the client has gone
		}
		cur := newCaptured()
		h.get.ServeHTTP(cur, getReq)
		if cur.status != http.StatusOK {
			cur.copyTo(w)
			return
		}
		etag := cur.header.Get("ETag")
		lastModified, _ := http.ParseTime(cur.header.Get("Last-Modified"))
		if etag == "" {
			h.router.WriteError(w, req, errors.New("vane: MergePatch: the GET answered without an ETag"))
			return
		}
		if !cond.Matches(Version{ETag: etag, LastModified: lastModified, Exists: true}) {
			h.router.WriteError(w, req, preconditionFailed())
			return
		}
		doc := h.project(cur.body.Bytes(), sent, ops)
		var patched []byte
		var err error
		if kind == mergePatch {
			patched, err = jsonpatch.MergePatch(doc, patch)
		} else {
			o := jsonpatch.NewApplyOptions()
			o.SupportNegativeIndices = false
			o.AccumulatedCopySizeLimit = max(h.limit, 1)
			patched, err = ops.ApplyWithOptions(doc, o)
		}
		if err != nil {
			h.router.WriteError(w, req, applyProblem(err))
			return
		}

		putReq := req.Clone(req.Context())
		putReq.Method = http.MethodPut
		putReq.Body, putReq.ContentLength = io.NopCloser(bytes.NewReader(patched)), int64(len(patched))
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

// read reads the patch within the body limit and checks that it is JSON
// as strict as any request body's: well-formed UTF-8, no duplicate keys.
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
	var v any
	if err := h.codec.Unmarshal(patch, &v); err != nil {
		return nil, problem.New(http.StatusBadRequest, "the patch is not well-formed JSON: "+err.Error())
	}
	return patch, nil
}

// project returns the current resource without the members the PUT body
// does not declare, except those the patch names at the top level.
func (h *patchHandler) project(doc []byte, sent map[string]json.RawMessage, ops jsonpatch.Patch) []byte {
	if h.declared == nil {
		return doc
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(doc, &m) != nil {
		return doc
	}
	named := func(k string) bool {
		if _, ok := sent[k]; ok {
			return true
		}
		for _, o := range ops {
			if p, err := o.Path(); err == nil && strings.SplitN(strings.TrimPrefix(p, "/"), "/", 2)[0] == k {
				return true
			}
		}
		return false
	}
	dropped := false
	for k := range m {
		if !h.declared[k] && !named(k) {
			delete(m, k)
			dropped = true
		}
	}
	if !dropped {
		return doc
	}
	out, err := json.Marshal(m)
	if err != nil {
		return doc
	}
	return out
}

// applyProblem is the answer to a patch that does not apply: 409 for a
// JSON Patch test that failed (the resource is not in the state the
// client expected), else 422 (RFC 5789 section 2.2).
func applyProblem(err error) *problem.Details {
	if errors.Is(err, jsonpatch.ErrTestFailed) {
		return problem.New(http.StatusConflict, "a test operation of the patch failed: the resource is not as the patch expects")
	}
	return problem.New(http.StatusUnprocessableEntity, "the patch could not be applied: "+err.Error())
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
