package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane/validate"
)

// TestSeed: Seed adds n pets that keep the documented contract, the same
// for the same n, found by every filter and the search index, with IDs
// after the store's own, and later creates continue after them.
func TestSeed(t *testing.T) {
	const n = 1234 // three INSERT batches, the last one short
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.freshStore(t)
		var progress bytes.Buffer
		if err := s.Seed(ctx, n, &progress); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(progress.String(), "seeded 1234 of 1234 pets") {
			t.Errorf("progress: %q", progress.String())
		}
		all, more, total, err := s.ListAfter(ctx, Filter{}, 0, 0, 2*n, true)
		if err != nil || more || total != 7+n || len(all) != 7+n {
			t.Fatalf("%d pets listed (of %d, more %v): %v", len(all), total, more, err)
		}
		check, err := validate.Compile(reflect.TypeFor[PetInput](), nil, "body")
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range all[7:] {
			if p.ID != int64(8+i) || p.Version != 1 {
				t.Fatalf("pet %d: id %d version %d", i, p.ID, p.Version)
			}
			raw, _ := json.Marshal(p.PetInput)
			if errs := check.Validate(ctx, &p.PetInput, raw); errs != nil {
				t.Fatalf("pet %d breaks the contract: %v: %s", p.ID, errs, raw)
			}
			if (p.Status == "adopted") != (p.Owner != nil) {
				t.Fatalf("pet %d: status %s, owner %v", p.ID, p.Status, p.Owner)
			}
		}
		// Every filter sees them: a species, a tag, a search.
		for _, f := range []Filter{{Species: "rabbit"}, {Tags: []string{"senior"}}, {Query: strings.ToUpper(strings.Fields(all[100].Name)[1])}} {
			pets, _, total, err := s.ListAfter(ctx, f, 0, 0, 5, true)
			if err != nil || total < 5 || len(pets) != 5 {
				t.Errorf("%+v: %d of %d: %v", f, len(pets), total, err)
			}
		}
		created, err := s.Create(ctx, PetInput{Name: "After", Species: "dog"})
		if err != nil || created.ID != 8+n {
			t.Errorf("created after the seed: id %d, %v", created.ID, err)
		}

		again := db.freshStore(t)
		if err := again.Seed(ctx, n, nil); err != nil {
			t.Fatal(err)
		}
		twice, _, _, err := again.ListAfter(ctx, Filter{}, 0, 0, 2*n, false)
		if err != nil || !slices.EqualFunc(all, twice, func(a, b Pet) bool { return a.Name == b.Name && slices.Equal(a.Tags, b.Tags) }) {
			t.Errorf("the same n seeded other pets (%v)", err)
		}
	})
}

// TestSeedCommand: `petstore seed N` seeds the store and exits; a count
// that is not a positive number is refused before anything is opened.
func TestSeedCommand(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-data", dir, "seed", "30"}, noEnv, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "seeded 30 of 30 pets") {
		t.Errorf("printed %q", out.String())
	}
	s := testDBs[0].openStore(t, dir)
	if _, _, total, err := s.ListAfter(context.Background(), Filter{}, 0, 0, 1, true); err != nil || total != 37 {
		t.Errorf("%d pets after seeding 30: %v", total, err)
	}
	for _, bad := range []string{"", "0", "-5", "many"} {
		if err := run(context.Background(), []string{"-data", t.TempDir(), "seed", bad}, noEnv, io.Discard, io.Discard); err == nil {
			t.Errorf("seed %q accepted", bad)
		}
	}
}

// TestSearchPagesMatchAScan: paging through a search by key gives exactly
// the pets whose names contain it, in ID order, on both stores, for a term
// that fills pages from the first pets (PostgreSQL's window), one too rare
// for the window (the trigram index) and one found nowhere.
func TestSearchPagesMatchAScan(t *testing.T) {
	defer func(w int) { searchWindow = w }(searchWindow)
	searchWindow = 100
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.freshStore(t)
		if err := s.Seed(ctx, 1500, nil); err != nil {
			t.Fatal(err)
		}
		all, _, _, err := s.ListAfter(ctx, Filter{}, 0, 0, 2000, false)
		if err != nil {
			t.Fatal(err)
		}
		rare := strings.ToLower(all[1000].Name)
		for _, term := range []string{"bell", "ash", strings.ToUpper(rare), "zzqx"} {
			var want, got []int64
			for _, p := range all {
				if strings.Contains(strings.ToLower(p.Name), strings.ToLower(term)) {
					want = append(want, p.ID)
				}
			}
			after, pages := int64(0), 0
			for more := true; more; pages++ {
				var page []Pet
				page, more, _, err = s.ListAfter(ctx, Filter{Query: term}, after, 0, 7, false)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range page {
					got = append(got, p.ID)
				}
				if more {
					after = page[len(page)-1].ID
				}
				if pages > 400 {
					t.Fatalf("%q: no end", term)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q: paged %d pets %v…, a scan finds %d %v…", term, len(got), head(got), len(want), head(want))
			}
		}
	})
}

func head(ids []int64) []int64 { return ids[:min(len(ids), 8)] }

// TestSQLiteWritersWaitInTurn: on SQLite a write waits for the one in
// progress in the process, and gives up when its context ends rather
// than waiting on.
func TestSQLiteWritersWaitInTurn(t *testing.T) {
	s := testDBs[0].freshStore(t)
	s.writer <- struct{}{} // a write in progress
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := s.Create(ctx, PetInput{Name: "Waiting", Species: "cat"})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a write beside another: %v, want the context's deadline", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a write whose context ended still waits")
	}
	<-s.writer
	if _, err := s.Create(context.Background(), PetInput{Name: "Next", Species: "cat"}); err != nil {
		t.Fatal(err)
	}
}
