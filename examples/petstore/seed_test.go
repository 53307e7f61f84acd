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
	"unicode/utf8"

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
	if err := app.Run(context.Background(), []string{"-data", dir, "seed", "30"}, noEnv, &out, io.Discard); err != nil {
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
		if err := app.Run(context.Background(), []string{"-data", t.TempDir(), "seed", bad}, noEnv, io.Discard, io.Discard); err == nil {
			t.Errorf("seed %q accepted", bad)
		}
	}
}

// TestSearchPagesMatchAScan: paging through a search by key gives exactly
// the pets whose names contain it, in ID order, on both stores, for a term
// that fills pages from the first pets (PostgreSQL's window), one too rare
// for the window (the trigram index), searches of words (PostgreSQL's index
// of words, alone or after the window) and terms found nowhere.
func TestSearchPagesMatchAScan(t *testing.T) {
	defer func(w int) { searchWindow = w }(searchWindow)
	searchWindow = 100
	eachDB(t, func(t *testing.T, db testDB) {
		s, all := seededStore(t, db, 1500)
		rare := strings.ToLower(all[1000].Name)
		first, second, _ := strings.Cut(rare, " ")
		for _, term := range []string{
			"bell", "ash", "zzqx", // one word: the trigram index
			strings.ToUpper(rare), first + " ", " " + second, // words: the index of words
			first[len(first)-1:] + " " + second[:1], // a short word: the window first
			"zzq xx",
		} {
			var want, got []int64
			for _, p := range all {
				if strings.Contains(strings.ToLower(p.Name), strings.ToLower(term)) {
					want = append(want, p.ID)
				}
			}
			got = pagedIDs(t, s, Filter{Query: term}, 7)
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
	case <-time.After(time.Minute): // generous for a loaded machine; it ends at 50ms
		t.Fatal("a write whose context ended still waits")
	}
	<-s.writer
	if _, err := s.Create(context.Background(), PetInput{Name: "Next", Species: "cat"}); err != nil {
		t.Fatal(err)
	}
}

// TestSearchFindsEveryPart: every part of a name, words or not, with the
// white space around them or not, finds the pets whose names contain it
// and no others, and counts them (total=true), on both stores: every way
// of answering agrees with strings.Contains on the folded name and part,
// for names with doubled spaces, tabs, quotes, backslashes, a leading ~
// and letters beyond ASCII (a final sigma, ß).
func TestSearchFindsEveryPart(t *testing.T) {
	defer func(w int) { searchWindow = w }(searchWindow)
	searchWindow = 3
	names := []string{"Ölaf  O'Brien", `back\slash ~tilde`, "Tab\tName x", "a b c d", "Ab Ba", "Brie Olaf", " edge ", "ΣΊΣΥΦΟΣ ος", "Maß Straße"}
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.freshStore(t)
		start, _, _, err := s.ListAfter(ctx, Filter{}, 0, 0, 100, false)
		if err != nil {
			t.Fatal(err)
		}
		var pets []Pet
		for _, n := range names {
			p, err := s.Create(ctx, PetInput{Name: n, Species: "cat"})
			if err != nil {
				t.Fatal(err)
			}
			pets = append(pets, p)
		}
		pets = append(start, pets...)
		searched := map[string]bool{}
		for _, n := range names {
			r := []rune(n)
			for i := range r {
				for j := i + 1; j <= len(r); j++ {
					q := string(r[i:j])
					if searched[q] || strings.TrimSpace(q) == "" {
						continue
					}
					searched[q] = true
					var want, got []int64
					for _, p := range pets {
						if strings.Contains(foldName(p.Name), foldName(q)) {
							want = append(want, p.ID)
						}
					}
					got = pagedIDs(t, s, Filter{Query: q}, 2)
					if !slices.Equal(got, want) {
						t.Errorf("%q finds %v, want %v", q, got, want)
					}
					if _, _, total, err := s.ListAfter(ctx, Filter{Query: q}, 0, 0, 2, true); err != nil || total != len(want) {
						t.Errorf("%q: a total of %d (%v), want %d", q, total, err, len(want))
					}
				}
			}
		}
		if len(searched) < 200 {
			t.Fatalf("searched %d parts", len(searched))
		}
	})
}

func TestNameWordsQuery(t *testing.T) {
	for q, want := range map[string]string{
		"willow":            "",
		"  ":                "",
		"willow elderberry": `'>wolliw' & '<elderberry'`,
		"willow ":           `'>wolliw'`,
		" willow":           `'<willow'`,
		" willow ":          `'<willow' & '>wolliw'`,
		"a  bc\tcd e":       `'>a':* & '<bc' & '<cd' & '<e':*`,
		" ab ":              `'<ab'`,
		`o'b x\y`:           `'>b''o' & '<x\\y'`,
		"zoë ab":            `'>ëoz' & '<ab':*`,
	} {
		if got, _ := nameWordsQuery(q); got != want {
			t.Errorf("nameWordsQuery(%q) = %s, want %s", q, got, want)
		}
	}
	for q, want := range map[string]bool{"willow elderberry": true, "a elderberry": false, "willow e": false, "willow ": false, " willow ": true, "willow": false} {
		if _, got := nameWordsQuery(q); got != want {
			t.Errorf("nameWordsQuery(%q) selective %v, want %v", q, got, want)
		}
	}
}

func TestFTSMatch(t *testing.T) {
	for q, want := range map[string]string{
		"willow":              `"willow"`,
		"willow elderberry":   `"ow el"`,
		"a b":                 `"a b"`,
		"ab cd":               `"ab cd"`,
		" ab ":                `" ab "`,
		`say "hi"  there you`: `"ay ""h" AND "i""  th" AND "re yo"`,
		"zoë  äb":             `"oë  äb"`,
	} {
		match, whole := ftsMatch(q)
		if match != want || whole != (match == `"`+strings.ReplaceAll(q, `"`, `""`)+`"`) {
			t.Errorf("ftsMatch(%q) = %s, %v; want %s", q, match, whole, want)
		}
	}
}

// FuzzNameWordTerms: a name made of anything, the search and anything
// has lexemes (as pet_name_affixes makes them, modelled here) that meet
// every term of the search: the index never misses a name that contains
// the search. TestSearchFindsEveryPart holds the model to PostgreSQL.
func FuzzNameWordTerms(f *testing.F) {
	f.Add("wil", "low elder", "berry")
	f.Add("", " a  b ", "")
	f.Add("x~", "y\tz", "ë")
	f.Fuzz(func(t *testing.T, before, q, after string) {
		if !utf8.ValidString(before) || !utf8.ValidString(q) || !utf8.ValidString(after) {
			return // names and searches are UTF-8
		}
		terms := nameWordTerms(q)
		if !strings.ContainsFunc(q, isNameSpace) || strings.TrimFunc(q, isNameSpace) == "" {
			if terms != nil {
				t.Fatalf("%q: terms %v for a search without words apart", q, terms)
			}
			return
		}
		var lexemes []string // pet_name_affixes(before+q+after)
		for _, w := range strings.FieldsFunc(before+q+after, isNameSpace) {
			r := []rune(w)
			for k := min(3, len(r)); k <= len(r); k++ {
				rev := slices.Clone(r[len(r)-k:])
				slices.Reverse(rev)
				lexemes = append(lexemes, "<"+string(r[:k]), ">"+string(rev))
			}
		}
		for _, term := range terms {
			if !slices.ContainsFunc(lexemes, func(l string) bool {
				return l == term.lexeme || term.prefix && strings.HasPrefix(l, term.lexeme)
			}) {
				t.Fatalf("name %q, search %q: no word meets %+v (words %q)", before+q+after, q, term, lexemes)
			}
		}
	})
}
