package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pressly/goose/v3"
)

// A delete takes the pet's data out of the replayable events: a client
// that replays everything (Last-Event-ID: 0) after the delete gets the
// pet's created and updated events as redacted events, with its ID only,
// then its deleted event, and no event table row holds its name or owner.
func TestDeleteRedactsTheEvents(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		store := db.freshStore(t)
		c := startServiceOn(t, store)
		kept := newPet(t, c, `{"name":"Kept Kim","species":"cat","owner":"Open Owner"}`)
		id := newPet(t, c, `{"name":"Secret Sam","species":"dog","owner":"Alice Private"}`)
		if r := c.doHeaders("PUT", "/pets/"+id, "application/json", `{"name":"Secret Sam","species":"dog","owner":"Alice Private II"}`); r.status != 200 {
			t.Fatalf("PUT: %d %s", r.status, r.body)
		}
		if r := c.do("DELETE", "/pets/"+id, "", nil, testToken); r.status != 204 {
			t.Fatalf("DELETE: %d %s", r.status, r.body)
		}

		s := openStream(t, c.base, "0")
		defer s.close()
		var kinds []string
		for {
			e := s.next(t)
			if strings.Contains(e.Data, "Secret") || strings.Contains(e.Data, "Alice") {
				t.Errorf("event %s %s replays the deleted pet's data: %s", e.ID, e.Name, e.Data)
			}
			if petID(e) == kept && e.Name != "created" {
				t.Errorf("the pet that was not deleted: %s %s", e.Name, e.Data)
			}
			if petID(e) != id {
				continue
			}
			kinds = append(kinds, e.Name)
			if e.Name == "redacted" && e.Data != `{"id":`+id+`}` {
				t.Errorf("redacted event %s", e.Data)
			}
			if e.Name == "deleted" {
				break
			}
		}
		if strings.Join(kinds, ",") != "redacted,redacted,deleted" {
			t.Errorf("the deleted pet's events: %v, want redacted, redacted, deleted", kinds)
		}
		var n int
		if err := store.db.QueryRowContext(context.Background(),
			"SELECT COUNT(*) FROM pet_events WHERE payload LIKE '%Alice%' OR payload LIKE '%Secret%'").Scan(&n); err != nil || n != 0 {
			t.Errorf("%d event rows (%v) still hold the deleted pet's data", n, err)
		}
	})
}

// migrateDown undoes the migrations of s's database above version.
func migrateDown(t *testing.T, s *Store, version int64) {
	t.Helper()
	gd := goose.DialectSQLite3
	if s.d.name == "postgres" {
		gd = goose.DialectPostgres
	}
	p, err := migrations(s.db, s.d, gd, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(context.Background(), version); err != nil {
		t.Fatal(err)
	}
}

// The migration that brings redacted events redacts the events of the
// pets deleted before it.
func TestMigrationRedactsDeletedPetsEvents(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		loc := db.fresh(t)
		s := db.openStore(t, loc)
		p, err := s.Create(ctx, PetInput{Name: "Kept", Species: "cat"})
		if err != nil {
			t.Fatal(err)
		}
		migrateDown(t, s, 8)
		// A pet deleted while the events kept deleted pets' data.
		if _, err := s.db.ExecContext(ctx, "INSERT INTO pet_events (kind, pet_id, payload, created_at) VALUES ('created', 999, $1, $2)",
			`{"pet":{"id":999,"name":"Ghost","owner":"Gone Owner"}}`, time.Now().UTC()); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s = db.openStore(t, loc)
		var kind, payload string
		if err := s.db.QueryRowContext(ctx, "SELECT kind, payload FROM pet_events WHERE pet_id = 999").Scan(&kind, &payload); err != nil {
			t.Fatal(err)
		}
		if kind != "redacted" || payload != `{"id":999}` {
			t.Errorf("the event of a pet deleted before the migration: %s %s", kind, payload)
		}
		if err := s.db.QueryRowContext(ctx, "SELECT kind FROM pet_events WHERE pet_id = $1", p.ID).Scan(&kind); err != nil || kind != "created" {
			t.Errorf("the event of a pet still there: %s (%v)", kind, err)
		}
	})
}
