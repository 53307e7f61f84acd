package replica

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
)

// The sequential specification of the pet store that a recorded history
// is checked against (docs/design/2026-11-27-linearizability.md). Each pet
// is a register with a version: created at version 1, moved on by one by
// every write that changes it, gone after a delete, its ID never reused.
// Pets are independent, so the history is checked one pet at a time
// (porcupine's Partition), which keeps the search small.

// opKind is what an operation of the history does to one pet.
type opKind uint8

const (
	opCreate opKind = iota // POST /pets
	opRead                 // GET /pets/{id}
	opPut                  // PUT /pets/{id}
	opPatch                // PATCH /pets/{id}, a merge patch or a JSON Patch
	opDelete               // DELETE /pets/{id}
	opList                 // a page of GET /pets whose range of IDs covers the pet
)

func (k opKind) String() string {
	return [...]string{"POST", "GET", "PUT", "PATCH", "DELETE", "list"}[k]
}

// fields are the members of a pet that the recorded clients write and
// read. Every write of the workload keeps the species rabbit (no other
// test makes rabbits), so that a listing filtered by species lists
// exactly the workload's pets.
type fields struct {
	Name, Species, Status string
	Owner                 string
	HasOwner              bool
}

func (f fields) String() string {
	owner := "-"
	if f.HasOwner {
		owner = f.Owner
	}
	return fmt.Sprintf("{%s %s %s owner=%s}", f.Name, f.Species, f.Status, owner)
}

// petPatch is a patch of some of the fields: a member left "" is absent
// from the patch (names and statuses are never empty). It is sent as a
// JSON merge patch, or as a JSON Patch of replace and add operations
// (JSONPatch), which mean the same.
type petPatch struct {
	Name, Status string
	Owner        string
	SetOwner     bool // "owner": Owner
	RemoveOwner  bool // "owner": null (merge patches only)
	JSONPatch    bool
}

// apply returns f patched as RFC 7396 (and RFC 6902) say.
func (p petPatch) apply(f fields) fields {
	if p.Name != "" {
		f.Name = p.Name
	}
	if p.Status != "" {
		f.Status = p.Status
	}
	switch {
	case p.SetOwner:
		f.Owner, f.HasOwner = p.Owner, true
	case p.RemoveOwner:
		f.Owner, f.HasOwner = "", false
	}
	return f
}

func (p petPatch) String() string {
	var parts []string
	if p.Name != "" {
		parts = append(parts, "name="+p.Name)
	}
	if p.Status != "" {
		parts = append(parts, "status="+p.Status)
	}
	switch {
	case p.SetOwner:
		parts = append(parts, "owner="+p.Owner)
	case p.RemoveOwner:
		parts = append(parts, "owner=null")
	}
	if p.JSONPatch {
		return "json-patch{" + strings.Join(parts, " ") + "}"
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// input is a request of the history, as the model reads it.
type input struct {
	Pet     int64
	Kind    opKind
	IfMatch int64    // the version If-Match named; 0: no If-Match
	Body    fields   // POST, PUT: the pet the body describes, its status defaulted
	Patch   petPatch // PATCH
	Species string   // list: the walk's species filter; "" for none
}

// unknown is the Status of an answer whose outcome the client cannot
// know: no answer (a timeout, a reset connection) or any 5xx, a 503
// included, since a commit whose reply was lost is answered 503 too. Such
// an operation returns at the end of the history (never): it may have
// taken effect at any moment after its call, or not at all.
const unknown = 0

// never is the return time of an operation whose outcome is unknown.
const never = math.MaxInt64

// output is the answer to a request, as the model reads it.
type output struct {
	Status  int    // the HTTP status; unknown (0) for no answer or a 5xx
	Version int64  // the version the ETag names; 0 when the answer has none
	Pet     fields // 200, 201: the pet in the body; list: the item, when Listed
	Listed  bool   // list: the page has the pet
}

// petState is one pet in the model.
type petState struct {
	Exists  bool
	Version int64 // 0: never created; a deleted pet keeps its last version
	Pet     fields
}

func (s petState) String() string {
	switch {
	case s.Version == 0:
		return "none"
	case !s.Exists:
		return fmt.Sprintf("deleted at v%d", s.Version)
	}
	return fmt.Sprintf("v%d %v", s.Version, s.Pet)
}

// writes returns the states a write that makes the pet to (from s, which
// exists) may leave: the next version; and, when to changes nothing, s
// itself too, for a write that changes nothing may keep the version
// (docs/design/2026-11-27-linearizability.md).
func (s petState) writes(to fields) []petState {
	next := []petState{{Exists: true, Version: s.Version + 1, Pet: to}}
	if to == s.Pet {
		next = append(next, s)
	}
	return next
}

// stepPet is the model's step: the states pet s may be left in by the
// request in answered out, none if that answer is impossible from s.
func stepPet(s petState, in input, out output) []petState {
	if out.Status == unknown && in.Kind != opCreate && in.Kind != opList && in.Kind != opRead {
		// A write that may or may not have taken effect: the model applies
		// it. That it did not is the same as its taking effect after every
		// other operation, which its return at the end allows.
		return applyUnknown(s, in)
	}
	// matches reports whether the If-Match (if any) holds.
	matches := in.IfMatch == 0 || s.Exists && s.Version == in.IfMatch
	// noEffect is the answer of a write that changed nothing, if the
	// status is one a write that changed nothing may give in s.
	noEffect := func() []petState {
		switch {
		case out.Status == 404 && !s.Exists:
		case out.Status == 412 && in.IfMatch != 0 && !matches:
		case out.Status == 409 && s.Exists && matches: // held, and lost the compare-and-swap every time
		default:
			return nil
		}
		return []petState{s}
	}
	switch in.Kind {
	case opCreate:
		next := petState{Exists: true, Version: 1, Pet: in.Body}
		if s.Version != 0 {
			return nil // an ID is never given twice
		}
		if out.Status == unknown || out.Status == 201 && out.Pet == in.Body && (out.Version == 0 || out.Version == 1) {
			return []petState{next}
		}
	case opRead:
		if out.Status == 200 && s.Exists && out.Version == s.Version && out.Pet == s.Pet ||
			out.Status == 404 && !s.Exists {
			return []petState{s}
		}
	case opList:
		listable := s.Exists && (in.Species == "" || s.Pet.Species == in.Species)
		if out.Listed == listable && (!out.Listed || out.Pet == s.Pet) {
			return []petState{s}
		}
	case opPut, opPatch:
		if out.Status != 200 {
			return noEffect()
		}
		if !s.Exists || !matches {
			return nil
		}
		to := in.Body
		if in.Kind == opPatch {
			to = in.Patch.apply(s.Pet)
		}
		for _, n := range s.writes(to) {
			if out.Version == n.Version && out.Pet == n.Pet {
				return []petState{n}
			}
		}
	case opDelete:
		if out.Status != 204 {
			return noEffect()
		}
		if s.Exists && matches {
			return []petState{{Exists: false, Version: s.Version}}
		}
	}
	return nil
}

// applyUnknown returns the states a write of unknown outcome leaves s in,
// applied at this point.
func applyUnknown(s petState, in input) []petState {
	if !s.Exists || in.IfMatch != 0 && s.Version != in.IfMatch {
		return []petState{s} // a 404 or a 412: nothing changed
	}
	switch in.Kind {
	case opPut:
		return s.writes(in.Body)
	case opPatch:
		return s.writes(in.Patch.apply(s.Pet))
	case opDelete:
		return []petState{{Exists: false, Version: s.Version}}
	}
	return nil
}

// byPet partitions a history by pet, in the order of the pets' IDs.
func byPet(history []porcupine.Operation) [][]porcupine.Operation {
	parts := map[int64][]porcupine.Operation{}
	for _, op := range history {
		id := op.Input.(input).Pet
		parts[id] = append(parts[id], op)
	}
	ids := slices.Sorted(maps.Keys(parts))
	out := make([][]porcupine.Operation, 0, len(ids))
	for _, id := range ids {
		out = append(out, parts[id])
	}
	return out
}

// petModel is the model porcupine checks a history against. Its states
// are sets of petStates (porcupine's power-set construction), since a
// write that may change nothing has two possible next versions.
var petModel = (&porcupine.NondeterministicModel{
	Partition: byPet,
	Init:      func() []any { return []any{petState{}} },
	Step: func(state, in, out any) []any {
		var next []any
		for _, s := range stepPet(state.(petState), in.(input), out.(output)) {
			next = append(next, s)
		}
		return next
	},
	DescribeOperation: func(in, out any) string { return describe(in.(input), out.(output)) },
	DescribeState:     func(state any) string { return state.(petState).String() },
}).ToModel()

// describe renders an operation as a line of text:
//
//	pet 12 PATCH If-Match "3" {status=pending} → 200 "4" {L1-7 rabbit pending owner=-}
func describe(in input, out output) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pet %d %v", in.Pet, in.Kind)
	if in.IfMatch != 0 {
		fmt.Fprintf(&b, ` If-Match "%d"`, in.IfMatch)
	}
	switch in.Kind {
	case opCreate, opPut:
		fmt.Fprintf(&b, " %v", in.Body)
	case opPatch:
		fmt.Fprintf(&b, " %v", in.Patch)
	case opList:
		if in.Species != "" {
			fmt.Fprintf(&b, " species=%s", in.Species)
		}
	}
	b.WriteString(" → ")
	switch {
	case in.Kind == opList && out.Listed:
		fmt.Fprintf(&b, "listed %v", out.Pet)
	case in.Kind == opList:
		b.WriteString("not listed")
	case out.Status == unknown:
		b.WriteString("unknown (no answer or 5xx)")
	default:
		fmt.Fprintf(&b, "%d", out.Status)
		if out.Version != 0 {
			fmt.Fprintf(&b, ` "%d"`, out.Version)
		}
		if out.Status == 200 || out.Status == 201 {
			fmt.Fprintf(&b, " %v", out.Pet)
		}
	}
	return b.String()
}

// byCall sorts operations by call time.
func byCall(a, b porcupine.Operation) int { return cmp.Compare(a.Call, b.Call) }
