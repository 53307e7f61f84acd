package replica

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// A history of every request the replica test's recorded clients sent
// and every answer they got, with call and return times read from a
// monotonic clock, checked at the end against the model of the pet store
// (model_test.go) by porcupine, and, for the listings, by checkWalks.
//
// The recorded clients run beside each fault's own load: a few writers
// of creates, reads, PUTs, merge patches and DELETEs, with and without
// If-Match, on a small pool of pets that they share, so that their
// requests on one pet overlap; and a walker, which lists the pets page
// after page, following the next links.

// The workload's bounds, which keep the check small: porcupine's search
// grows with the operations of one pet that overlap, and an operation of
// unknown outcome overlaps every later one of its pet.
const (
	recordedWriters = 4    // clients of single pets, besides the walker
	poolSize        = 5    // pets the writers share at a time
	opsPerPet       = 40   // requests on a pet before it leaves the pool
	unknownsPerPet  = 2    // writes of unknown outcome before it leaves the pool
	opsPerRun       = 4000 // requests of single pets in one run (one fault)
	walksPerRun     = 60   // listings walked in one run
)

// history is what the recorded clients sent and were answered.
type history struct {
	start time.Time // the origin of call and return times
	c     *client

	mu  sync.Mutex
	ops []porcupine.Operation
	// lost are the creates of unknown outcome, by the unique name they
	// asked for: their ID is unknown until a listing shows the pet.
	lost         map[string]porcupine.Operation
	walks        []walk
	unexpected   []string       // answers the contract does not allow
	answers      map[string]int // "PUT 412" → how many
	unknownReads int            // reads of unknown outcome, left out (a read changes nothing)

	pool []*livePet // the pets the writers share
	seq  atomic.Int64
}

// livePet is a pet of the writers' pool; its counts are guarded by
// history.mu.
type livePet struct {
	id       int64
	ops      int
	unknowns int
	deleted  int // ops when a DELETE was answered 204; 0 before
}

// walk is a listing read page after page, following the next links.
type walk struct {
	Species  string // the filter, "" for none
	Pages    []page
	Complete bool // the last page had no next link
}

// page is one answer of GET /pets in a walk.
type page struct {
	Call, Return int64
	After        int64    // the ID the page starts after: the previous page's last, 0 for the first
	Items        []listed // in the order of the page
	More         bool     // the page has a next link
}

type listed struct {
	ID  int64
	Pet fields
}

// covers reports whether the page's range of IDs holds id: the IDs after
// After up to its last item's when a page follows, else all of them.
func (p page) covers(id int64) bool {
	if id <= p.After {
		return false
	}
	return !p.More || len(p.Items) > 0 && id <= p.Items[len(p.Items)-1].ID
}

func newHistory(c *client) *history {
	return &history{start: time.Now(), c: c, lost: map[string]porcupine.Operation{}, answers: map[string]int{}}
}

// now is the time since the history began, from the monotonic clock.
func (h *history) now() int64 { return int64(time.Since(h.start)) }

// run starts the recorded clients on the base URLs (client w on
// bases[w%len(bases)]) and returns the function that stops them and
// waits for them, which is called at the end of t too. They stop sending
// by themselves after opsPerRun requests and walksPerRun walks.
func (h *history) run(t *testing.T, bases ...string) (stop func()) {
	var ops, walks atomic.Int64
	seen := make([]map[int64]int64, recordedWriters+1) // per client: the last version it saw of each pet
	for i := range seen {
		seen[i] = map[int64]int64{}
	}
	stop = sync.OnceFunc(load(recordedWriters+1, func(w, i int) {
		base := bases[w%len(bases)]
		switch {
		case w == 0 && walks.Add(1) <= walksPerRun:
			if i%4 == 3 {
				h.walk(base, "", 100) // every fourth walk lists every pet
			} else {
				h.walk(base, "rabbit", 7) // the others only the workload's, in short pages
			}
			time.Sleep(20 * time.Millisecond)
		case w != 0 && ops.Add(1) <= opsPerRun:
			if h.request(w, base, seen[w]) {
				time.Sleep(100 * time.Millisecond) // as a client backs off after a 503
			}
			time.Sleep(2 * time.Millisecond)
		default:
			time.Sleep(10 * time.Millisecond)
		}
	}))
	t.Cleanup(stop)
	return stop
}

// request sends one request of client w on a pet of the pool, or creates
// one when the pool is short, and records it. It reports whether the
// outcome was unknown.
func (h *history) request(w int, base string, seen map[int64]int64) (unknownOutcome bool) {
	h.mu.Lock()
	var p *livePet
	if len(h.pool) >= poolSize {
		p = h.pool[rand.IntN(len(h.pool))]
	}
	h.mu.Unlock()
	if p == nil {
		return h.create(w, base)
	}
	id := strconv.FormatInt(p.id, 10)
	in := input{Pet: p.id}
	ifMatch := func() []string {
		if rand.IntN(2) == 0 {
			return nil
		}
		in.IfMatch = max(seen[p.id], 1)
		return []string{"If-Match", `"` + strconv.FormatInt(in.IfMatch, 10) + `"`}
	}
	seq := h.seq.Add(1)
	var method, ctype, body string
	var headers []string
	switch r := rand.IntN(100); {
	case r < 30:
		in.Kind, method = opRead, "GET"
	case r < 50:
		in.Kind, method, ctype = opPut, "PUT", "application/json"
		in.Body = fields{Name: fmt.Sprintf("P%d-%d", w, seq), Species: "rabbit", Status: "available"}
		doc := map[string]any{"name": in.Body.Name, "species": "rabbit"}
		if rand.IntN(2) == 0 {
			in.Body.Status = statuses[rand.IntN(len(statuses))]
			doc["status"] = in.Body.Status
		}
		if rand.IntN(2) == 0 {
			in.Body.Owner, in.Body.HasOwner = fmt.Sprintf("O%d-%d", w, seq), true
			doc["owner"] = in.Body.Owner
		}
		body, headers = jsonString(doc), ifMatch()
	case r < 96:
		in.Kind, method, ctype = opPatch, "PATCH", "application/merge-patch+json"
		doc := map[string]any{}
		switch k := rand.IntN(100); {
		case k < 30:
			in.Patch.Name = fmt.Sprintf("M%d-%d", w, seq)
			doc["name"] = in.Patch.Name
		case k < 70: // one of three: often a patch that changes nothing
			in.Patch.Status = statuses[rand.IntN(len(statuses))]
			doc["status"] = in.Patch.Status
		case k < 85:
			in.Patch.Owner, in.Patch.SetOwner = fmt.Sprintf("O%d-%d", w, seq), true
			doc["owner"] = in.Patch.Owner
		default: // removes the owner, or changes nothing when there is none
			in.Patch.RemoveOwner = true
			doc["owner"] = nil
		}
		body, headers = jsonString(doc), ifMatch()
		if !in.Patch.RemoveOwner && rand.IntN(3) == 0 { // the same as a JSON Patch
			in.Patch.JSONPatch, ctype = true, "application/json-patch+json"
			var ops []map[string]any
			for member, value := range doc {
				ops = append(ops, map[string]any{"op": "add", "path": "/" + member, "value": value})
			}
			body = jsonString(ops)
		}
	default:
		in.Kind, method = opDelete, "DELETE"
		headers = ifMatch()
	}
	_, out := h.send(w, base, in, method, "/pets/"+id, ctype, body, headers...)
	if out.Version != 0 {
		seen[p.id] = out.Version
	}
	unknownWrite := out.Status == unknown && in.Kind != opRead
	h.mu.Lock()
	defer h.mu.Unlock()
	p.ops++
	if unknownWrite {
		p.unknowns++
	}
	if out.Status == 204 && p.deleted == 0 {
		p.deleted = p.ops
	}
	// A deleted pet stays for a few requests, which must find it gone.
	if p.ops >= opsPerPet || p.unknowns >= unknownsPerPet || p.deleted > 0 && p.ops >= p.deleted+3 {
		h.pool = slices.DeleteFunc(h.pool, func(q *livePet) bool { return q == p })
	}
	return out.Status == unknown
}

// statuses are the values of a pet's status.
var statuses = []string{"available", "pending", "adopted"}

// create sends a POST /pets of a new pet with a unique name, and adds the
// pet to the pool if it was created.
func (h *history) create(w int, base string) (unknownOutcome bool) {
	in := input{Kind: opCreate, Body: fields{Name: fmt.Sprintf("L%d-%d", w, h.seq.Add(1)), Species: "rabbit", Status: "available"}}
	doc := map[string]any{"name": in.Body.Name, "species": "rabbit"}
	if rand.IntN(3) == 0 {
		in.Body.Status = "pending"
		doc["status"] = "pending"
	}
	in, out := h.send(w, base, in, "POST", "/pets", "application/json", jsonString(doc))
	if out.Status == 201 {
		h.mu.Lock()
		h.pool = append(h.pool, &livePet{id: in.Pet})
		h.mu.Unlock()
	}
	return out.Status == unknown
}

// expected lists the statuses the contract allows each kind of request
// of the workload, besides those of an unknown outcome (none, 5xx).
var expected = map[opKind][]int{
	opCreate: {201},
	opRead:   {200, 404},
	opPut:    {200, 404, 409, 412},
	opPatch:  {200, 404, 409, 412},
	opDelete: {204, 404, 409, 412},
}

// send sends a request of client w and records it in the history: a read
// of unknown outcome is left out, a create of unknown outcome waits in
// h.lost until a listing shows its ID, and an answer the contract does
// not allow is noted in h.unexpected and recorded as unknown. It returns
// the input as recorded (a create's with the new pet's ID) and the output.
func (h *history) send(w int, base string, in input, method, path, ctype, body string, headers ...string) (input, output) {
	call := h.now()
	r := h.c.try(method, base+path, ctype, body, headers...)
	ret := h.now()
	out := output{Status: r.status}
	problem := ""
	switch {
	case r.status == 0 || r.status >= 500:
		out.Status = unknown
	case !slices.Contains(expected[in.Kind], r.status):
		problem = "a status the contract does not allow"
	case r.status == 200 || r.status == 201:
		var err error
		if out.Version, err = versionOf(r.header.Get("ETag"), r.status == 201); err != nil {
			problem = err.Error()
		}
		var p struct {
			ID int64
			petJSON
		}
		if err := json.Unmarshal(r.body, &p); err != nil {
			problem = "a body that is not a pet: " + err.Error()
		}
		out.Pet = p.fields()
		if in.Kind == opCreate {
			in.Pet = p.ID
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.answers[fmt.Sprintf("%v %d", in.Kind, r.status)]++
	if problem != "" {
		h.unexpected = append(h.unexpected, fmt.Sprintf("%s %s%s %v: %d %.200s: %s", method, base, path, headers, r.status, r.body, problem))
		out = output{Status: unknown}
	}
	op := porcupine.Operation{ClientId: w, Input: in, Call: call, Output: out, Return: ret, Metadata: method + " " + base + path}
	if out.Status == unknown {
		op.ClientId, op.Return = w+recordedWriters+1, never // a row of its own in the visualization
	}
	switch {
	case out.Status == unknown && in.Kind == opRead:
		h.unknownReads++
	case out.Status == unknown && in.Kind == opCreate:
		h.lost[in.Body.Name] = op
	default:
		h.ops = append(h.ops, op)
	}
	return in, out
}

// versionOf reads the version an ETag names ("7" is version 7). A 201
// may have none.
func versionOf(etag string, optional bool) (int64, error) {
	if etag == "" && optional {
		return 0, nil
	}
	v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(etag, `"`), `"`), 10, 64)
	if err != nil || v < 1 || etag != `"`+strconv.FormatInt(v, 10)+`"` {
		return 0, fmt.Errorf("ETag %q does not name a version", etag)
	}
	return v, nil
}

// petJSON is a pet's members that fields holds, as the service writes
// them.
type petJSON struct {
	Name, Species, Status string
	Owner                 *string
}

func (p petJSON) fields() fields {
	f := fields{Name: p.Name, Species: p.Species, Status: p.Status}
	if p.Owner != nil {
		f.Owner, f.HasOwner = *p.Owner, true
	}
	return f
}

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// walk lists the pets (of species, if not "") limit at a time, from the
// first page to the last or to an answer of unknown outcome, and records
// the pages.
func (h *history) walk(base, species string, limit int) walk {
	wk := walk{Species: species}
	next := "/pets?limit=" + strconv.Itoa(limit)
	if species != "" {
		next += "&species=" + species
	}
	var after int64
	for {
		call := h.now()
		r := h.c.try("GET", base+next, "", "")
		ret := h.now()
		var body struct {
			Items []struct {
				ID int64
				petJSON
			}
			Next *string
		}
		if r.status == 0 || r.status >= 500 {
			break
		}
		if err := json.Unmarshal(r.body, &body); r.status != 200 || err != nil {
			h.mu.Lock()
			h.unexpected = append(h.unexpected, fmt.Sprintf("GET %s%s: %d %.200s", base, next, r.status, r.body))
			h.mu.Unlock()
			break
		}
		p := page{Call: call, Return: ret, After: after, More: body.Next != nil}
		for _, it := range body.Items {
			p.Items = append(p.Items, listed{ID: it.ID, Pet: it.fields()})
		}
		wk.Pages = append(wk.Pages, p)
		if !p.More {
			wk.Complete = true
			break
		}
		if len(p.Items) == 0 {
			h.mu.Lock()
			h.unexpected = append(h.unexpected, fmt.Sprintf("GET %s%s: an empty page with a next link", base, next))
			h.mu.Unlock()
			break
		}
		after, next = p.Items[len(p.Items)-1].ID, *body.Next
	}
	h.mu.Lock()
	h.walks = append(h.walks, wk)
	h.mu.Unlock()
	return wk
}

// workloadName matches the names the workload gives its pets: L for a
// create, P for a PUT, M for a patch, then the client and a sequence
// number. (The seed has a rabbit too.)
var workloadName = regexp.MustCompile(`^[LPM][0-9]+-[0-9]+$`)

// finish ends the history once the faults are over: a walk of every
// rabbit through base finds the creates of unknown outcome that committed
// (by their unique names), and a GET of every pet reads its final state,
// so that a lost write cannot hide behind the end of the history.
func (h *history) finish(t *testing.T, base string) (committed int) {
	t.Helper()
	final := h.walk(base, "rabbit", 100)
	if !final.Complete {
		t.Errorf("the final walk of the rabbits did not complete")
	}
	h.mu.Lock()
	created := map[string]int64{} // acknowledged creates: name → ID
	known := map[int64]bool{}
	for _, op := range h.ops {
		in := op.Input.(input)
		known[in.Pet] = true
		if in.Kind == opCreate {
			created[in.Body.Name] = in.Pet
		}
	}
	for _, pg := range final.Pages {
		for _, it := range pg.Items {
			op, lost := h.lost[it.Pet.Name]
			switch {
			case known[it.ID] || !workloadName.MatchString(it.Pet.Name):
			case lost:
				in := op.Input.(input)
				in.Pet = it.ID
				op.Input = in
				h.ops = append(h.ops, op)
				delete(h.lost, it.Pet.Name)
				known[it.ID] = true
				committed++
			case created[it.Pet.Name] != 0:
				h.unexpected = append(h.unexpected, fmt.Sprintf("pet %d has the name of pet %d's create: one request created two pets", it.ID, created[it.Pet.Name]))
			default:
				h.unexpected = append(h.unexpected, fmt.Sprintf("pet %d %v: a pet of the workload's that no request created", it.ID, it.Pet))
			}
		}
	}
	ids := slices.Sorted(maps.Keys(known))
	h.mu.Unlock()
	for _, id := range ids {
		h.send(2*recordedWriters+2, base, input{Pet: id, Kind: opRead}, "GET", "/pets/"+strconv.FormatInt(id, 10), "", "")
	}
	return committed
}

// listOps turns the pages of walks into operations of the model: each
// page is a read, at one moment between its call and its return (one SQL
// statement), of every pet whose ID its range covers, listed or not. born
// gives each pet's first call; a page that returned before it says
// nothing of the pet and is left out.
func listOps(walks []walk, born map[int64]int64) []porcupine.Operation {
	var ops []porcupine.Operation
	for _, wk := range walks {
		for _, pg := range wk.Pages {
			items := map[int64]fields{}
			for _, it := range pg.Items {
				items[it.ID] = it.Pet
			}
			for id, first := range born {
				if first > pg.Return || !pg.covers(id) {
					continue
				}
				pet, ok := items[id]
				ops = append(ops, porcupine.Operation{
					Input: input{Pet: id, Kind: opList, Species: wk.Species}, Call: pg.Call,
					Output: output{Status: 200, Listed: ok, Pet: pet}, Return: pg.Return,
					Metadata: "GET /pets page after " + strconv.FormatInt(pg.After, 10),
				})
			}
		}
	}
	return ops
}

// A violation is a part of the history the pet store's specification does
// not allow.
type violation struct {
	pet    int64
	reason string
	ops    []porcupine.Operation // the pet's operations, by call time
	model  bool                  // porcupine found no order of ops that the model allows
	until  int64                 // the time after which ops say nothing of it; 0: all of them do
}

// checkBudget bounds porcupine's search. The workload's bounds keep each
// pet's history small enough to be checked in well under a second; the
// budget is there only so that a check that cannot decide ends, with an
// error, rather than running to the test binary's timeout.
const checkBudget = 5 * time.Minute

// check checks a history: ops against the model, with the walks' pages
// added as reads (listOps), and the complete walks by checkWalks.
func check(ops []porcupine.Operation, walks []walk) []violation {
	born := map[int64]int64{}
	for _, op := range ops {
		id := op.Input.(input).Pet
		if first, ok := born[id]; !ok || op.Call < first {
			born[id] = op.Call
		}
	}
	all := append(slices.Clip(ops), listOps(walks, born)...)
	var vs []violation
	switch porcupine.CheckOperationsTimeout(petModel, all, checkBudget) {
	case porcupine.Illegal:
		for _, part := range byPet(all) {
			if !porcupine.CheckOperations(petModel, part) {
				slices.SortStableFunc(part, byCall)
				vs = append(vs, violation{pet: part[0].Input.(input).Pet, reason: "no order of its operations agrees with the model (a lost update, a stale read, or a listing that missed it)", ops: part, model: true})
			}
		}
	case porcupine.Unknown:
		vs = append(vs, violation{reason: fmt.Sprintf("porcupine did not decide within %v", checkBudget)})
	}
	return append(vs, checkWalks(all, walks)...)
}

// checkWalks checks the listings as a client reads them, page after page:
// a complete walk lists IDs in increasing order, each once; lists every
// pet that was present throughout the walk (its create acknowledged
// before the walk's first call, no DELETE that may have taken effect
// called before its last return, and of the walk's species); and lists no
// pet whose DELETE was acknowledged before its first call.
func checkWalks(ops []porcupine.Operation, walks []walk) []violation {
	type life struct {
		created, deleted int64 // when a create, a delete was acknowledged; never if not
		mayDelete        int64 // the first call of a delete that may have taken effect
		species          map[string]bool
		ops              []porcupine.Operation
	}
	pets := map[int64]*life{}
	for _, op := range ops {
		in, out := op.Input.(input), op.Output.(output)
		l := pets[in.Pet]
		if l == nil {
			l = &life{created: never, deleted: never, mayDelete: never, species: map[string]bool{}}
			pets[in.Pet] = l
		}
		l.ops = append(l.ops, op)
		switch {
		case in.Kind == opCreate && out.Status == 201:
			l.created = min(l.created, op.Return)
		case in.Kind == opDelete && out.Status == 204:
			l.deleted = min(l.deleted, op.Return)
			l.mayDelete = min(l.mayDelete, op.Call)
		case in.Kind == opDelete && out.Status == unknown:
			l.mayDelete = min(l.mayDelete, op.Call)
		}
		if in.Kind == opCreate || in.Kind == opPut {
			l.species[in.Body.Species] = true
		}
	}
	var vs []violation
	for i, wk := range walks {
		if !wk.Complete || len(wk.Pages) == 0 {
			continue
		}
		start, end := wk.Pages[0].Call, wk.Pages[len(wk.Pages)-1].Return
		seen := map[int64]bool{}
		var last int64
		for _, pg := range wk.Pages {
			for _, it := range pg.Items {
				if it.ID <= last {
					vs = append(vs, violation{pet: it.ID, reason: fmt.Sprintf("walk %d (species %q) listed pet %d after pet %d", i, wk.Species, it.ID, last)})
				}
				last = it.ID
				seen[it.ID] = true
			}
		}
		for id, l := range pets {
			ofSpecies := wk.Species == "" || len(l.species) == 1 && l.species[wk.Species]
			switch {
			case l.created < start && l.mayDelete > end && ofSpecies && !seen[id]:
				vs = append(vs, violation{pet: id, reason: fmt.Sprintf("walk %d (species %q, %s to %s) missed pet %d, present throughout", i, wk.Species, ms(start), ms(end), id), ops: sorted(l.ops), until: end})
			case l.deleted < start && seen[id]:
				vs = append(vs, violation{pet: id, reason: fmt.Sprintf("walk %d (species %q, %s to %s) listed pet %d, whose delete was acknowledged before", i, wk.Species, ms(start), ms(end), id), ops: sorted(l.ops), until: end})
			}
		}
	}
	return vs
}

func sorted(ops []porcupine.Operation) []porcupine.Operation {
	ops = slices.Clone(ops)
	slices.SortStableFunc(ops, byCall)
	return ops
}

// ms renders a time of the history in milliseconds.
func ms(t int64) string {
	if t == never {
		return "never"
	}
	return fmt.Sprintf("%.3fms", float64(t)/1e6)
}

// report fails t with each violation (the first five in full).
func report(t *testing.T, vs []violation) {
	t.Helper()
	const most = 5
	for i, v := range vs {
		if i == most {
			t.Errorf("… and %d more violations", len(vs)-most)
			break
		}
		text, _ := v.render(t.ArtifactDir())
		t.Error(text)
	}
}

// render describes a violation: its reason and its operations as text,
// up to where it shows, and, for the model's, the longest order of them
// that the model allows and porcupine's visualization of the pet's whole
// history in an HTML file in dir, whose path it returns.
func (v violation) render(dir string) (text, file string) {
	var b strings.Builder
	fmt.Fprintf(&b, "pet %d: %s\n", v.pet, v.reason)
	until := v.until
	var info porcupine.LinearizationInfo
	var longest []int
	if v.model {
		_, info = porcupine.CheckOperationsVerbose(petModel, v.ops, checkBudget)
		for _, part := range info.PartialLinearizations() {
			for _, order := range part {
				if len(order) > len(longest) {
					longest = order
				}
			}
		}
		// What cannot follow the longest order is where the history
		// breaks: by the first return of an operation left out of it.
		until = never
		for i, op := range v.ops {
			if !slices.Contains(longest, i) {
				until = min(until, op.Return)
			}
		}
	}
	left := 0
	for i, op := range v.ops {
		if until != 0 && op.Call > until {
			left++
			continue
		}
		fmt.Fprintf(&b, "  #%d [%s, %s] %s\n", i, ms(op.Call), ms(op.Return), describe(op.Input.(input), op.Output.(output)))
	}
	if left > 0 {
		fmt.Fprintf(&b, "  (%d later operations left out)\n", left)
	}
	if v.model {
		fmt.Fprintf(&b, "  the longest order the model allows (%d of %d operations):", len(longest), len(v.ops))
		for _, i := range longest {
			fmt.Fprintf(&b, " #%d", i)
		}
		b.WriteString("\n")
		file = filepath.Join(dir, fmt.Sprintf("pet-%d.html", v.pet))
		if err := porcupine.VisualizePath(petModel, info, file); err != nil {
			fmt.Fprintf(&b, "  (no visualization: %v)\n", err)
			file = ""
		} else {
			fmt.Fprintf(&b, "  porcupine's visualization of all of them (kept with go test -artifacts): %s\n", file)
		}
	}
	return b.String(), file
}

// check ends the history (finish) and checks it, failing t with every
// violation and every answer the contract does not allow; it logs the
// history's figures.
func (h *history) check(t *testing.T, base string) {
	t.Helper()
	committed := h.finish(t, base)
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, u := range h.unexpected {
		if i == 10 {
			t.Errorf("… and %d more", len(h.unexpected)-10)
			break
		}
		t.Errorf("unexpected: %s", u)
	}
	began := time.Now()
	vs := check(h.ops, h.walks)
	took := time.Since(began)
	report(t, vs)

	acked, unknowns, pets := 0, len(h.lost)+committed, map[int64]bool{}
	for _, op := range h.ops {
		pets[op.Input.(input).Pet] = true
		switch s := op.Output.(output).Status; {
		case s == unknown && op.Input.(input).Kind != opCreate:
			unknowns++
		case s == 200 && op.Input.(input).Kind != opRead, s == 201, s == 204:
			acked++
		}
	}
	complete, pages := 0, 0
	for _, wk := range h.walks {
		pages += len(wk.Pages)
		if wk.Complete {
			complete++
		}
	}
	// A history too small proves little: the faults must have met writes.
	if acked < 50 || complete < 3 {
		t.Errorf("the history holds %d acknowledged writes and %d complete walks; want at least 50 and 3", acked, complete)
	}
	var answers []string
	for _, k := range slices.Sorted(maps.Keys(h.answers)) {
		answers = append(answers, fmt.Sprintf("%s:%d", k, h.answers[k]))
	}
	t.Logf("history of %d requests on %d pets (%d writes acknowledged, %d of unknown outcome, %d reads of unknown outcome left out; %d of %d creates of unknown outcome committed) and %d walks (%d complete, %d pages); porcupine and the walk check took %v; %d violations",
		len(h.ops), len(pets), acked, unknowns, h.unknownReads, committed, len(h.lost)+committed, len(h.walks), complete, pages, took.Round(time.Millisecond), len(vs))
	t.Logf("answers: %s", strings.Join(answers, " "))
}
