package replica

import (
	"os"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
)

// The checker itself, on histories made by hand: it must reject a lost
// update, a stale read, a definite answer that is false, and a listing
// that misses a pet present throughout or shows a deleted one, and must
// accept a correct history whose requests overlap and whose outcomes are
// sometimes unknown. These run without PostgreSQL or HAProxy, under
// -short too.

// The pets of the hand-made histories.
var (
	rex     = fields{Name: "Rex", Species: "rabbit", Status: "available"}
	rexPut  = fields{Name: "Rex 2", Species: "rabbit", Status: "pending"}
	rexAway = fields{Name: "Rex", Species: "rabbit", Status: "adopted"}
	bun     = fields{Name: "Bun", Species: "rabbit", Status: "available"}
)

// at is an operation of pet in [call, ret] (ret never: unknown outcome).
func at(call, ret int64, in input, out output) porcupine.Operation {
	return porcupine.Operation{Input: in, Call: call, Output: out, Return: ret}
}

func created(id int64, f fields, call, ret int64) porcupine.Operation {
	return at(call, ret, input{Pet: id, Kind: opCreate, Body: f}, output{Status: 201, Pet: f})
}

func read(id int64, call, ret int64, version int64, f fields) porcupine.Operation {
	if version == 0 {
		return at(call, ret, input{Pet: id, Kind: opRead}, output{Status: 404})
	}
	return at(call, ret, input{Pet: id, Kind: opRead}, output{Status: 200, Version: version, Pet: f})
}

func TestCheckerAcceptsACorrectConcurrentHistory(t *testing.T) {
	ops := []porcupine.Operation{
		created(1, rex, 0, 10),
		// Two writers hold version 1: the PUT wins, the PATCH gets 412.
		// A read between them may see either version.
		at(20, 40, input{Pet: 1, Kind: opPut, IfMatch: 1, Body: rexPut}, output{Status: 200, Version: 2, Pet: rexPut}),
		at(22, 45, input{Pet: 1, Kind: opPatch, IfMatch: 1, Patch: petPatch{Status: "adopted"}}, output{Status: 412}),
		read(1, 25, 30, 1, rex),
		read(1, 35, 50, 2, rexPut),
		// A patch that changes nothing: the version kept, or moved on.
		at(60, 70, input{Pet: 1, Kind: opPatch, Patch: petPatch{Status: "pending"}}, output{Status: 200, Version: 2, Pet: rexPut}),
		at(72, 74, input{Pet: 1, Kind: opPatch, Patch: petPatch{RemoveOwner: true}}, output{Status: 200, Version: 3, Pet: rexPut}),
		// A merge patch without If-Match, overlapping a PUT: applied to the
		// PUT's result (which it was ordered after), owner kept.
		at(80, 95, input{Pet: 1, Kind: opPut, Body: rexPut}, output{Status: 200, Version: 4, Pet: rexPut}),
		at(81, 99, input{Pet: 1, Kind: opPatch, Patch: petPatch{Owner: "Ann", SetOwner: true}},
			output{Status: 200, Version: 5, Pet: fields{Name: "Rex 2", Species: "rabbit", Status: "pending", Owner: "Ann", HasOwner: true}}),
		// A PUT whose answer was lost (a 503): reads before it took effect
		// see the old pet, reads after see the new one.
		at(100, never, input{Pet: 1, Kind: opPut, IfMatch: 5, Body: rexAway}, output{Status: unknown}),
		read(1, 110, 120, 5, fields{Name: "Rex 2", Species: "rabbit", Status: "pending", Owner: "Ann", HasOwner: true}),
		read(1, 130, 140, 6, rexAway),
		at(150, 160, input{Pet: 1, Kind: opDelete, IfMatch: 6}, output{Status: 204}),
		at(150, 165, input{Pet: 1, Kind: opDelete}, output{Status: 404}),
		read(1, 170, 180, 0, fields{}),
		at(175, 185, input{Pet: 1, Kind: opPatch, IfMatch: 6, Patch: petPatch{Name: "Ghost"}}, output{Status: 404}),
		at(175, 185, input{Pet: 1, Kind: opPut, IfMatch: 6, Body: rex}, output{Status: 412}),

		// Pet 2: a create of unknown outcome that committed (a listing
		// showed it); a write of unknown outcome that never took effect.
		at(0, never, input{Pet: 2, Kind: opCreate, Body: bun}, output{Status: unknown}),
		created(3, rex, 5, 15),
		at(20, never, input{Pet: 3, Kind: opDelete}, output{Status: unknown}),
		read(3, 200, 210, 1, rex),
	}
	walks := []walk{{
		Species: "rabbit", Complete: true,
		Pages: []page{
			{Call: 50, Return: 55, Items: []listed{{1, rexPut}, {2, bun}}, More: true},
			{Call: 56, Return: 58, After: 2, Items: []listed{{3, rex}}, More: false},
		},
	}, {
		// After pet 1's delete: pets 2 and 3 only.
		Complete: true,
		Pages:    []page{{Call: 190, Return: 195, Items: []listed{{2, bun}, {3, rex}}}},
	}}
	if vs := check(ops, walks); len(vs) > 0 {
		for _, v := range vs {
			text, _ := v.render(t.TempDir())
			t.Error(text)
		}
	}
}

// Each of these histories breaks the specification once; the checker
// must say so, naming the pet.
func TestCheckerRejects(t *testing.T) {
	for _, c := range []struct {
		name  string
		ops   []porcupine.Operation
		walks []walk
		pet   int64
		model bool // porcupine finds it (else the walk check alone)
	}{{
		name: "a lost update: a patch that overwrote a PUT it did not see",
		ops: []porcupine.Operation{
			created(1, rex, 0, 10),
			at(20, 30, input{Pet: 1, Kind: opPut, Body: rexPut}, output{Status: 200, Version: 2, Pet: rexPut}),
			// Applied to version 1 as read before the PUT: the name reverts.
			at(25, 40, input{Pet: 1, Kind: opPatch, Patch: petPatch{Status: "adopted"}}, output{Status: 200, Version: 3, Pet: rexAway}),
		},
		pet: 1, model: true,
	}, {
		name: "a lost update: two writers with one If-Match both succeed",
		ops: []porcupine.Operation{
			created(1, rex, 0, 10),
			at(20, 30, input{Pet: 1, Kind: opPut, IfMatch: 1, Body: rexPut}, output{Status: 200, Version: 2, Pet: rexPut}),
			at(20, 30, input{Pet: 1, Kind: opPut, IfMatch: 1, Body: rexAway}, output{Status: 200, Version: 2, Pet: rexAway}),
		},
		pet: 1, model: true,
	}, {
		name: "a lost update: an acknowledged write the final read does not show",
		ops: []porcupine.Operation{
			created(1, rex, 0, 10),
			at(20, 30, input{Pet: 1, Kind: opPatch, Patch: petPatch{Status: "adopted"}}, output{Status: 200, Version: 2, Pet: rexAway}),
			read(1, 100, 110, 1, rex),
		},
		pet: 1, model: true,
	}, {
		name: "a stale read after an acknowledged write",
		ops: []porcupine.Operation{
			created(1, rex, 0, 10),
			at(20, 30, input{Pet: 1, Kind: opPut, Body: rexPut}, output{Status: 200, Version: 2, Pet: rexPut}),
			read(1, 40, 50, 1, rex),
			read(1, 60, 70, 2, rexPut),
		},
		pet: 1, model: true,
	}, {
		name: "a read of a pet whose delete was acknowledged",
		ops: []porcupine.Operation{
			created(1, rex, 0, 10),
			at(20, 30, input{Pet: 1, Kind: opDelete}, output{Status: 204}),
			read(1, 40, 50, 1, rex),
		},
		pet: 1, model: true,
	}, {
		name: "a 412 to an If-Match that held: the write was refused for nothing",
		ops: []porcupine.Operation{
			created(1, rex, 0, 10),
			at(20, 30, input{Pet: 1, Kind: opPut, IfMatch: 1, Body: rexPut}, output{Status: 412}),
			read(1, 40, 50, 1, rex),
		},
		pet: 1, model: true,
	}, {
		name: "a lost update: a PUT over a version its If-Match did not name",
		ops: []porcupine.Operation{
			created(1, rex, 0, 10),
			at(12, 15, input{Pet: 1, Kind: opPatch, Patch: petPatch{Status: "adopted"}}, output{Status: 200, Version: 2, Pet: rexAway}),
			at(20, 30, input{Pet: 1, Kind: opPut, IfMatch: 1, Body: rexPut}, output{Status: 200, Version: 3, Pet: rexPut}),
		},
		pet: 1, model: true,
	}, {
		name: "a DELETE whose If-Match did not hold",
		ops: []porcupine.Operation{
			created(1, rex, 0, 10),
			at(12, 15, input{Pet: 1, Kind: opPut, Body: rexPut}, output{Status: 200, Version: 2, Pet: rexPut}),
			at(20, 30, input{Pet: 1, Kind: opDelete, IfMatch: 1}, output{Status: 204}),
		},
		pet: 1, model: true,
	}, {
		name: "a 409 (kept changing) to an If-Match that never held",
		ops: []porcupine.Operation{
			created(1, rex, 0, 10),
			at(12, 15, input{Pet: 1, Kind: opPut, Body: rexPut}, output{Status: 200, Version: 2, Pet: rexPut}),
			at(20, 30, input{Pet: 1, Kind: opPatch, IfMatch: 1, Patch: petPatch{Name: "Rex 3"}}, output{Status: 409}),
		},
		pet: 1, model: true,
	}, {
		name: "a write applied twice: one PUT moved the version by two",
		ops: []porcupine.Operation{
			created(1, rex, 0, 10),
			at(20, 30, input{Pet: 1, Kind: opPut, Body: rexPut}, output{Status: 200, Version: 3, Pet: rexPut}),
		},
		pet: 1, model: true,
	}, {
		name: "a write of unknown outcome cannot explain a value nobody wrote",
		ops: []porcupine.Operation{
			created(1, rex, 0, 10),
			at(20, never, input{Pet: 1, Kind: opPut, Body: rexPut}, output{Status: unknown}),
			read(1, 40, 50, 2, rexAway),
		},
		pet: 1, model: true,
	}, {
		name: "a page that misses a pet present throughout",
		ops: []porcupine.Operation{
			created(1, rex, 0, 10),
			created(2, bun, 0, 10),
			created(3, rex, 0, 10),
			read(2, 100, 110, 1, bun),
		},
		walks: []walk{{Species: "rabbit", Complete: true, Pages: []page{
			{Call: 20, Return: 25, Items: []listed{{1, rex}}, More: true},
			{Call: 26, Return: 30, After: 1, Items: []listed{{3, rex}}, More: false}, // pet 2 is in its range
		}}},
		pet: 2, model: true,
	}, {
		name: "a page that shows a pet whose delete was acknowledged",
		ops: []porcupine.Operation{
			created(1, rex, 0, 10),
			at(12, 15, input{Pet: 1, Kind: opDelete}, output{Status: 204}),
		},
		walks: []walk{{Complete: true, Pages: []page{{Call: 20, Return: 25, Items: []listed{{1, rex}}}}}},
		pet:   1, model: true,
	}, {
		name: "a walk that lists a pet twice",
		ops: []porcupine.Operation{
			created(1, rex, 0, 10),
			created(2, bun, 0, 10),
		},
		walks: []walk{{Complete: true, Pages: []page{
			{Call: 20, Return: 25, Items: []listed{{1, rex}, {2, bun}}, More: true},
			{Call: 26, Return: 30, After: 1, Items: []listed{{2, bun}}}, // the cursor went back
		}}},
		pet: 2,
	}} {
		t.Run(c.name, func(t *testing.T) {
			vs := check(c.ops, c.walks)
			found := false
			for _, v := range vs {
				if v.pet != c.pet {
					continue
				}
				found = found || v.model == c.model
				text, file := v.render(t.TempDir())
				if !strings.Contains(text, "pet ") || len(text) < 40 {
					t.Errorf("the violation's text says too little: %q", text)
				}
				if v.model {
					// The visualization is written, and draws the pet's history.
					html, err := os.ReadFile(file)
					if err != nil || !strings.Contains(string(html), "<title>Porcupine</title>") ||
						!strings.Contains(string(html), describe(v.ops[0].Input.(input), v.ops[0].Output.(output))) {
						t.Errorf("no visualization of pet %d: %v", v.pet, err)
					}
				}
			}
			if !found {
				t.Errorf("the checker accepted the history; want a violation of pet %d (porcupine's: %v), got %d: %+v", c.pet, c.model, len(vs), vs)
			}
		})
	}
}

// The walk check alone (without porcupine) finds a missed pet and a
// deleted one listed, so that its message names the walk.
func TestCheckWalks(t *testing.T) {
	ops := []porcupine.Operation{
		created(1, rex, 0, 10),
		created(2, bun, 0, 10),
		at(5, 8, input{Pet: 3, Kind: opCreate, Body: rex}, output{Status: 201, Pet: rex}),
		at(11, 12, input{Pet: 3, Kind: opDelete}, output{Status: 204}),
		created(4, rex, 30, 40), // created after the walk began: not required
		at(0, never, input{Pet: 5, Kind: opCreate, Body: rex}, output{Status: unknown}), // not acknowledged: not required
		created(6, rex, 0, 10),
		at(24, never, input{Pet: 6, Kind: opDelete}, output{Status: unknown}), // maybe deleted during the walk: not required
	}
	w := walk{Species: "rabbit", Complete: true, Pages: []page{{Call: 20, Return: 25, Items: []listed{{1, rex}, {3, rex}}}}}
	vs := checkWalks(ops, []walk{w})
	var got []string
	for _, v := range vs {
		got = append(got, v.reason)
	}
	if len(vs) != 2 || !strings.Contains(got[0]+got[1], "missed pet 2") || !strings.Contains(got[0]+got[1], "listed pet 3, whose delete") {
		t.Errorf("violations %q; want pet 2 missed and pet 3 listed after its delete", got)
	}
	w.Complete = false // an incomplete walk promises nothing
	if vs := checkWalks(ops, []walk{w}); len(vs) != 0 {
		t.Errorf("an incomplete walk: %d violations", len(vs))
	}
}
