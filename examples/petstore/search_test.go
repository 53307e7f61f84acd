package main

import (
	"context"
	"strings"
	"testing"
)

// A search folds case the same way whatever answers it: a search of one
// or two characters (every name read), of three or more (SQLite's FTS5
// trigram index, PostgreSQL's trigram index), and of words (PostgreSQL's
// index of words). ος and φος both find ΣΊΣΥΦΟΣ, and so on through
// Unicode's case folding and canonical composition.
func TestSearchFoldsCaseAlike(t *testing.T) {
	finds := []struct {
		name    string
		queries []string
	}{
		{"ΣΊΣΥΦΟΣ", []string{"ος", "φος", "ΟΣ", "Σ", "ς", "σίσυφος", "Σίσυφος", "ΊΣΥ"}},
		{"Straße Nord", []string{"STRASSE", "ss", "straß", "aße", "SSE N", "strasse nord"}},
		{"\u212Aelvin", []string{"k", "kel", "KELVIN"}},
		{"ﬁsh", []string{"fi", "FISH", "ﬁ", "ﬁs"}},
		{"Café Noir", []string{"cafe\u0301", "CAFÉ", "é", "e\u0301 n", "fé noir"}},
	}
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.freshStore(t)
		ids := map[string]int64{}
		for _, f := range finds {
			p, err := s.Create(ctx, PetInput{Name: f.name, Species: "cat"})
			if err != nil {
				t.Fatal(err)
			}
			ids[f.name] = p.ID
		}
		for _, f := range finds {
			for _, q := range f.queries {
				pets, _, _, err := s.ListAfter(ctx, Filter{Query: q}, 0, 0, 100, false)
				if err != nil {
					t.Fatalf("%q: %v", q, err)
				}
				found := false
				for _, p := range pets {
					found = found || p.ID == ids[f.name]
				}
				if !found {
					t.Errorf("%q does not find %q (found %s)", q, f.name, names(pets))
				}
			}
		}
		// And nothing that does not fold to a part of the name.
		for _, q := range []string{"οσσ", "strase", "kelvinn", "cafe noir"} {
			if pets, _, _, err := s.ListAfter(ctx, Filter{Query: q}, 0, 0, 100, false); err != nil || len(pets) != 0 {
				t.Errorf("%q finds %s (%v), want none", q, names(pets), err)
			}
		}
	})
}

// foldName is one folding: folding again changes nothing, and names that
// differ in case or in the composition of their accents fold alike.
func TestFoldName(t *testing.T) {
	for _, same := range [][]string{
		{"ΣΊΣΥΦΟΣ", "σίσυφος", "Σίσυφοσ"},
		{"Straße", "STRASSE", "strasse"},
		{"\u212Aelvin", "Kelvin", "kelvin"},
		{"Café", "Cafe\u0301", "CAFÉ"},
		{"ﬁsh", "FISH"},
	} {
		want := foldName(same[0])
		if foldName(want) != want {
			t.Errorf("folding %q twice: %q, then %q", same[0], want, foldName(want))
		}
		for _, s := range same[1:] {
			if got := foldName(s); got != want {
				t.Errorf("foldName(%q) = %q, foldName(%q) = %q", s, got, same[0], want)
			}
		}
	}
	if got := foldName("Rex  O'Brien\t"); got != strings.ToLower("Rex  O'Brien\t") {
		t.Errorf("ASCII folds to %q", got)
	}
}

// The migration that folds the stored names with foldName rewrites those
// folded otherwise, and the search indexes follow.
func TestRefoldNames(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.freshStore(t)
		p, err := s.Create(ctx, PetInput{Name: "Große Straße", Species: "cat"})
		if err != nil {
			t.Fatal(err)
		}
		// As strings.ToLower folds, which keeps ß.
		if _, err := s.db.ExecContext(ctx, "UPDATE pets SET name_folded = $1 WHERE id = $2", strings.ToLower(p.Name), p.ID); err != nil {
			t.Fatal(err)
		}
		search := func(q string) int {
			pets, _, _, err := s.ListAfter(ctx, Filter{Query: q}, 0, 0, 10, false)
			if err != nil {
				t.Fatal(err)
			}
			return len(pets)
		}
		if search("strasse") != 0 {
			t.Fatal("the name folded by strings.ToLower is found by its folding")
		}
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := refoldNames(ctx, tx); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"strasse", "STRASSE", "ss", "große"} {
			if search(q) != 1 {
				t.Errorf("after refolding, %q does not find %q", q, p.Name)
			}
		}
	})
}
