package vane

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// MergePatchType is the media type of a JSON merge patch (RFC 7396).
const MergePatchType = "application/merge-patch+json"

// MergePatch registers PATCH pattern as a JSON merge patch (RFC 7396) of
// the resource that get reads and put replaces, both typed handlers of
// the same pattern (usually those of the GET and PUT operations). A PATCH
// request's body must be sent as application/merge-patch+json (else 415)
// and be a JSON object. vane reads the resource with get (an answer other
// than 200, such as a 404, is the PATCH's answer), applies the patch (a
// member set to null removes it), and calls put with the result as its
// body: the PUT input's rules validate the patched resource (a 422 names
// what the patch broke, and put is not called), and the PUT's answer is
// the PATCH's. The request's path, query and header parameters reach both;
// preconditions (If-Match) reach put, so a PUT input that embeds
// Conditional makes the PATCH conditional too. The patch algorithm is
// github.com/evanphx/json-patch/v5's.
//
// opts adjust the PATCH's Op (its ID, Summary, Tags, Middleware …). The
// document lists the PATCH with its merge-patch body and the answers of
// get and put.
func MergePatch[GI, GO, PI, PO any](r *Router, pattern string,
	get func(context.Context, *GI) (*GO, error), put func(context.Context, *PI) (*PO, error), opts ...func(*Op)) {
	if get == nil || put == nil {
		panic("vane: MergePatch " + pattern + " with a nil handler")
	}
	op := newOp(http.MethodPatch, pattern, opts)
	getOp, putOp := newOp(http.MethodGet, pattern, nil), newOp(http.MethodPut, pattern, nil)
	getOp.ID, putOp.ID = "merge-patch-get", "merge-patch-put" // never published
	gh, gd, err := compileOperation[GI, GO](r, &getOp)
	if err != nil {
		panic("vane: MergePatch " + pattern + ": " + err.Error())
	}
	ph, pd, err := compileOperation[PI, PO](r, &putOp)
	if err != nil {
		panic("vane: MergePatch " + pattern + ": " + err.Error())
	}
	if pd.RequestBody == nil || len(pd.RequestBody.Content) == 0 || pd.RequestBody.Content[0].MediaType != "application/json" {
		panic("vane: MergePatch " + pattern + ": the put handler's input needs a JSON Body")
	}
	gh.fn, ph.fn = get, put

	d := *pd
	d.Method, d.ID, d.Summary, d.Description = http.MethodPatch, op.ID, op.Summary, op.Description
	d.Tags, d.Deprecated, d.Hidden, d.Security, d.Extensions = op.Tags, op.Deprecated, op.Hidden, op.Security, op.Extensions
	if d.ID == "" {
		d.ID = operation.DefaultID(http.MethodPatch, d.Pattern)
	}
	putBody := pd.RequestBody.Content[0].Schema
	d.RequestBody = &operation.RequestBody{
		Required:    true,
		Description: "A JSON merge patch (RFC 7396) of the resource: members to set, members set to null to remove. The patched resource must satisfy the PUT body's schema.",
		Content: []operation.Content{{MediaType: MergePatchType, Schema: &schema.Schema{
			Type: schema.TypeObject, Description: "A merge patch of " + describeRef(putBody) + ".",
		}}},
	}
	d.Responses = mergeResponses(pd.Responses, gd.Responses)
	for _, other := range r.api.ops {
		if other.ID == d.ID {
			panic("vane: operation ID " + strconv.Quote(d.ID) + " of PATCH " + d.Pattern + " is already used by " + other.Method + " " + other.Pattern)
		}
	}
	var h http.Handler = &mergePatchHandler{get: gh, put: ph, limit: d.BodyLimit}
	for i := len(op.Middleware) - 1; i >= 0; i-- {
		h = op.Middleware[i](h)
	}
	r.Handle(http.MethodPatch, pattern, h)
	r.api.ops = append(r.api.ops, &d)
}

func describeRef(s *schema.Schema) string {
	if s != nil && s.Ref != "" {
		return s.Ref[strings.LastIndexByte(s.Ref, '/')+1:]
	}
	return "the PUT body"
}

// mergeResponses is put's responses with those of get's errors it lacks
// (a 404), in status order after the success response.
func mergeResponses(put, get []operation.Response) []operation.Response {
	out := append([]operation.Response(nil), put...)
	for _, g := range get {
		if g.Status < 400 {
			continue
		}
		found := false
		for _, p := range out {
			found = found || p.Status == g.Status
		}
		if !found {
			out = append(out, g)
		}
	}
	sort.SliceStable(out[1:], func(i, j int) bool { return out[1+i].Status < out[1+j].Status })
	return out
}

type mergePatchHandler struct {
	get   http.Handler
	put   http.Handler
	limit int64
}

func (h *mergePatchHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if mt, _, _ := strings.Cut(req.Header.Get("Content-Type"), ";"); !strings.EqualFold(strings.TrimSpace(mt), MergePatchType) {
		problem.Write(w, problem.New(http.StatusUnsupportedMediaType, "send the patch as "+MergePatchType))
		return
	}
	body := io.Reader(req.Body)
	if req.Body == nil {
		body = http.NoBody
	}
	if h.limit > 0 {
		body = http.MaxBytesReader(w, req.Body, h.limit)
	}
	patch, err := io.ReadAll(body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			problem.Write(w, problem.New(http.StatusRequestEntityTooLarge, "the patch is larger than the limit of "+strconv.FormatInt(h.limit, 10)+" bytes"))
			return
		}
		problem.Write(w, problem.New(http.StatusBadRequest, "the patch could not be read: "+err.Error()))
		return
	}
	if t := bytes.TrimLeft(patch, " \t\r\n"); len(t) == 0 || t[0] != '{' || !json.Valid(patch) {
		problem.Write(w, problem.New(http.StatusBadRequest, "a merge patch is a JSON object"))
		return
	}

	// The current resource, as GET answers it in JSON.
	getReq := req.Clone(req.Context())
	getReq.Method, getReq.Body, getReq.ContentLength = http.MethodGet, http.NoBody, 0
	for _, k := range []string{"Accept", "Content-Type", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since"} {
		getReq.Header.Del(k)
	}
	cur := &captured{header: http.Header{}}
	h.get.ServeHTTP(cur, getReq)
	if cur.status != http.StatusOK {
		cur.copyTo(w)
		return
	}
	patched, err := jsonpatch.MergePatch(cur.body.Bytes(), patch)
	if err != nil {
		problem.Write(w, problem.New(http.StatusBadRequest, "the patch could not be applied: "+err.Error()))
		return
	}

	putReq := req.Clone(req.Context())
	putReq.Method = http.MethodPut
	putReq.Body, putReq.ContentLength = io.NopCloser(bytes.NewReader(patched)), int64(len(patched))
	putReq.Header.Set("Content-Type", "application/json")
	h.put.ServeHTTP(w, putReq)
}

// captured is the response of the GET, kept to be patched.
type captured struct {
	header http.Header
	status int
	body   bytes.Buffer
}

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

func (c *captured) copyTo(w http.ResponseWriter) {
	for k, v := range c.header {
		w.Header()[k] = v
	}
	w.WriteHeader(c.status)
	w.Write(c.body.Bytes()) //nolint:errcheck // the client went away
}
