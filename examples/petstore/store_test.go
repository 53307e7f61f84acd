package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pressly/goose/v3/lock"

	"github.com/vane-http/vane/examples/internal/testtool"
)

// testDB is a database the tests run against: SQLite always, PostgreSQL
// when a server is available (else those subtests skip, saying how to get
// one, or fail under VANE_REQUIRE_TOOLS=1).
type testDB struct {
	name string
	// fresh returns the location of a new, empty database.
	fresh func(t *testing.T) string
	// open opens a store on the database at loc, as the service does at
	// start: migrating it, seeding it on first use.
	open func(ctx context.Context, loc string) (*Store, error)
}

var testDBs = []testDB{
	{
		name:  "sqlite",
		fresh: func(t *testing.T) string { return t.TempDir() },
		open: func(ctx context.Context, dir string) (*Store, error) {
			return OpenSQLite(ctx, dir, slog.New(slog.DiscardHandler))
		},
	},
	{
		name:  "postgres",
		fresh: func(t *testing.T) string { return testtool.PostgresSchema(t) },
		open: func(ctx context.Context, url string) (*Store, error) {
			return OpenPostgres(ctx, url, slog.New(slog.DiscardHandler))
		},
	},
}

// eachDB runs fn as a subtest for each database.
func eachDB(t *testing.T, fn func(t *testing.T, db testDB)) {
	for _, db := range testDBs {
		t.Run(db.name, func(t *testing.T) { fn(t, db) })
	}
}

// openStore opens a store on loc, closed when t ends.
func (db testDB) openStore(t *testing.T, loc string) *Store {
	t.Helper()
	s, err := db.open(context.Background(), loc)
	if err != nil {
		t.Fatalf("opening the %s store: %v", db.name, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// freshStore opens a store on a new database.
func (db testDB) freshStore(t *testing.T) *Store { return db.openStore(t, db.fresh(t)) }

func names(pets []Pet) string {
	var out []string
	for _, p := range pets {
		out = append(out, p.Name)
	}
	return strings.Join(out, ",")
}

func ptr[T any](v T) *T { return &v }

// seededStore opens a store on a new database with n generated pets
// besides the seed, and returns it with all its pets.
func seededStore(t *testing.T, db testDB, n int) (*Store, []Pet) {
	t.Helper()
	ctx := context.Background()
	s := db.freshStore(t)
	if err := s.Seed(ctx, n, nil); err != nil {
		t.Fatal(err)
	}
	all, _, _, err := s.ListAfter(ctx, Filter{}, 0, 0, n+100, false)
	if err != nil {
		t.Fatal(err)
	}
	return s, all
}

// pagedIDs pages through the pets that match f, size a page, from the
// first, and returns their IDs in the order the pages gave them.
func pagedIDs(t *testing.T, s *Store, f Filter, size int) []int64 {
	t.Helper()
	var ids []int64
	after := int64(0)
	for pages, more := 0, true; more; pages++ {
		if pages > 10_000 {
			t.Fatalf("%+v: no last page", f)
		}
		page, m, _, err := s.ListAfter(context.Background(), f, after, 0, size, false)
		if err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		for _, p := range page {
			ids = append(ids, p.ID)
			after = p.ID
		}
		more = m
	}
	return ids
}

func TestStoreStartsWithTheSeed(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s := db.freshStore(t)
		pets, total, err := s.List(context.Background(), Filter{}, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		if total != 7 || names(pets) != "Rex,Mittens,Captain,Bubbles,Luna,Biscuit,Shadow" {
			t.Errorf("%d pets: %s", total, names(pets))
		}
		luna := pets[4]
		if luna.ID != 5 || luna.Species != "cat" || luna.Status != "adopted" || luna.Owner == nil || *luna.Owner != "Ada" ||
			!reflect.DeepEqual(luna.Tags, []string{"indoor", "friendly"}) || luna.CreatedAt.IsZero() {
			t.Errorf("Luna: %+v", luna)
		}
	})
}

func TestStoreCreateUpdateDelete(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.freshStore(t)
		clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		s.now = func() time.Time { return clock }

		in := PetInput{Name: "Nemo", Species: "fish", Tags: []string{"orange", "brave", "small"}, BirthDate: "2020-02-29", Owner: ptr("Marlin")}
		created, err := s.Create(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		want := Pet{ID: 8, PetInput: in, CreatedAt: clock, UpdatedAt: clock, Version: 1}
		want.Status = "available"
		if !reflect.DeepEqual(created, want) {
			t.Errorf("created\n%+v\nwant\n%+v", created, want)
		}
		got, err := s.Get(ctx, 8)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("stored\n%+v, %v\nwant\n%+v", got, err, want)
		}
		in.Tags[0] = "changed by the caller"
		if got, _ := s.Get(ctx, 8); got.Tags[0] != "orange" {
			t.Error("the store keeps the caller's slice")
		}

		clock = clock.Add(time.Hour)
		upd := PetInput{Name: "Nemo", Species: "fish", Status: "adopted", Tags: []string{"small", "orange"}}
		updated, err := s.Update(ctx, 8, upd)
		if err != nil {
			t.Fatal(err)
		}
		want = Pet{ID: 8, PetInput: upd, CreatedAt: clock.Add(-time.Hour), UpdatedAt: clock, Version: 2}
		if !reflect.DeepEqual(updated, want) {
			t.Errorf("updated\n%+v\nwant\n%+v", updated, want)
		}
		if got, _ := s.Get(ctx, 8); !reflect.DeepEqual(got, want) {
			t.Errorf("stored after update\n%+v", got)
		}

		if err := s.Delete(ctx, 8); err != nil {
			t.Fatal(err)
		}
		for name, err := range map[string]error{
			"get":       second(s.Get(ctx, 8)),
			"update":    second(s.Update(ctx, 8, upd)),
			"delete":    s.Delete(ctx, 8),
			"set photo": second(s.SetPhoto(ctx, 8, Photo{ContentType: "image/png", Data: []byte("x")})),
			"photo":     second(s.Photo(ctx, 8)),
		} {
			if !errors.Is(err, errNotFound) {
				t.Errorf("%s of a deleted pet: %v", name, err)
			}
		}
		// IDs are not reused.
		if p, err := s.Create(ctx, PetInput{Name: "Dory", Species: "fish"}); err != nil || p.ID != 9 {
			t.Errorf("next pet: %+v, %v", p, err)
		}
	})
}

func second[T any](_ T, err error) error { return err }

// UpdateIf and DeleteIf write only at the version they are given; every
// change grows the version by one and adds its event, in order; the
// delete redacts the events before it.
func TestStoreCompareAndSwap(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.freshStore(t)
		p, err := s.Create(ctx, PetInput{Name: "Nemo", Species: "fish"})
		if err != nil || p.Version != 1 {
			t.Fatalf("created: %+v, %v", p, err)
		}
		upd := PetInput{Name: "Nemo", Species: "fish", Status: "pending"}
		if _, ok, err := s.UpdateIf(ctx, p.ID, 2, upd); ok || err != nil {
			t.Errorf("update at a future version: %v, %v", ok, err)
		}
		u, ok, err := s.UpdateIf(ctx, p.ID, 1, upd)
		if !ok || err != nil || u.Version != 2 || u.Status != "pending" {
			t.Fatalf("update at the current version: %+v, %v, %v", u, ok, err)
		}
		if _, ok, err := s.UpdateIf(ctx, p.ID, 1, PetInput{Name: "Lost", Species: "fish"}); ok || err != nil {
			t.Errorf("update at a stale version: %v, %v", ok, err)
		}
		if ph, err := s.SetPhoto(ctx, p.ID, Photo{ContentType: "image/png", Data: []byte("x")}); err != nil || ph.Version != 3 {
			t.Errorf("photo: %+v, %v", ph, err)
		}
		if ok, err := s.DeleteIf(ctx, p.ID, 2); ok || err != nil {
			t.Errorf("delete at a stale version: %v, %v", ok, err)
		}
		if got, err := s.Get(ctx, p.ID); err != nil || got.Name != "Nemo" || got.Version != 3 {
			t.Errorf("after the refused writes: %+v, %v", got, err)
		}
		if evs, err := s.EventsAfter(ctx, 0, 100); err != nil || len(evs) != 3 || evs[0].Kind != "created" || evs[1].Kind != "updated" || evs[2].Kind != "updated" {
			t.Errorf("events before the delete: %+v, %v", evs, err)
		}
		if ok, err := s.DeleteIf(ctx, p.ID, 3); !ok || err != nil {
			t.Errorf("delete at the current version: %v, %v", ok, err)
		}
		if _, ok, err := s.UpdateIf(ctx, p.ID, 4, upd); ok || err != nil {
			t.Errorf("update of a deleted pet: %v, %v", ok, err)
		}
		evs, err := s.EventsAfter(ctx, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for i, e := range evs {
			if e.ID != int64(i+1) {
				t.Errorf("event %d has id %d", i, e.ID)
			}
			kinds = append(kinds, e.Kind)
		}
		// The delete redacted the pet's earlier events, in their places.
		if got := strings.Join(kinds, ","); got != "redacted,redacted,redacted,deleted" {
			t.Errorf("events: %s", got)
		}
	})
}

func TestStoreList(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.freshStore(t)
		for _, in := range []PetInput{
			{Name: "Élodie", Species: "cat"},
			{Name: "100% Cat", Species: "cat"},
			{Name: "Under_score", Species: "dog"},
		} {
			if _, err := s.Create(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			f             Filter
			offset, limit int
			want          string
			total         int
		}{
			{Filter{Species: "cat"}, 0, 20, "Mittens,Luna,Élodie,100% Cat", 4},
			{Filter{Status: "pending"}, 0, 20, "Captain,Shadow", 2},
			{Filter{Tags: []string{"friendly"}}, 0, 20, "Rex,Luna,Biscuit", 3},
			{Filter{Tags: []string{"friendly", "indoor"}}, 0, 20, "Luna", 1},
			{Filter{Query: "BI"}, 0, 20, "Biscuit", 1},
			{Filter{Query: "élo"}, 0, 20, "Élodie", 1},
			{Filter{Query: "ÉLO"}, 0, 20, "Élodie", 1},
			{Filter{Query: "%"}, 0, 20, "100% Cat", 1},
			{Filter{Query: "_"}, 0, 20, "Under_score", 1},
			{Filter{Query: "r_x"}, 0, 20, "", 0},
			{Filter{Species: "dog", Status: "pending"}, 0, 20, "Shadow", 1},
			{Filter{}, 2, 3, "Captain,Bubbles,Luna", 10},
			{Filter{Species: "cat"}, 1, 2, "Luna,Élodie", 4},
			{Filter{Species: "cat"}, 10, 2, "", 4},
			{Filter{Species: "lizard"}, 0, 20, "", 0},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%+v/%d/%d", tt.f, tt.offset, tt.limit), func(t *testing.T) {
				pets, total, err := s.List(ctx, tt.f, tt.offset, tt.limit)
				if err != nil {
					t.Fatal(err)
				}
				if names(pets) != tt.want || total != tt.total {
					t.Errorf("%s (total %d), want %s (total %d)", names(pets), total, tt.want, tt.total)
				}
			})
		}
	})
}

func TestStorePhotos(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.freshStore(t)
		if _, err := s.Photo(ctx, 1); !errors.Is(err, errNotFound) {
			t.Errorf("photo before upload: %v", err)
		}
		png := []byte("\x89PNG\r\n\x1a\n\x00\xff binary")
		p, err := s.SetPhoto(ctx, 1, Photo{ContentType: "image/png", Data: png})
		if err != nil || !p.HasPhoto || p.Name != "Rex" {
			t.Fatalf("%+v, %v", p, err)
		}
		if ph, err := s.Photo(ctx, 1); err != nil || ph.ContentType != "image/png" || string(ph.Data) != string(png) {
			t.Errorf("%q %q %v", ph.ContentType, ph.Data, err)
		}
		if _, err := s.SetPhoto(ctx, 1, Photo{ContentType: "image/gif", Data: []byte("GIF89a")}); err != nil {
			t.Fatal(err)
		}
		if ph, _ := s.Photo(ctx, 1); ph.ContentType != "image/gif" || string(ph.Data) != "GIF89a" {
			t.Errorf("replaced photo: %q %q", ph.ContentType, ph.Data)
		}
		if pets, _, _ := s.List(ctx, Filter{}, 0, 2); !pets[0].HasPhoto || pets[1].HasPhoto {
			t.Errorf("hasPhoto in the list: %v %v", pets[0].HasPhoto, pets[1].HasPhoto)
		}
		// Deleting the pet deletes its tags and photo.
		if err := s.Delete(ctx, 1); err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"pet_tags", "pet_photos"} {
			var n int
			if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table+" WHERE pet_id = 1").Scan(&n); err != nil || n != 0 {
				t.Errorf("%s rows of the deleted pet: %d, %v", table, n, err)
			}
		}
	})
}

// Every query runs with the context it is given: a cancelled context stops
// each method with its error.
func TestStoreQueriesUseTheContext(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s := db.freshStore(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		in := PetInput{Name: "Nemo", Species: "fish", Tags: []string{"a"}}
		for name, call := range map[string]func() error{
			"List":     func() error { _, _, err := s.List(ctx, Filter{Tags: []string{"a"}, Query: "x"}, 0, 10); return err },
			"Get":      func() error { return second(s.Get(ctx, 1)) },
			"Create":   func() error { return second(s.Create(ctx, in)) },
			"Update":   func() error { return second(s.Update(ctx, 1, in)) },
			"Delete":   func() error { return s.Delete(ctx, 1) },
			"SetPhoto": func() error { return second(s.SetPhoto(ctx, 1, Photo{ContentType: "image/png", Data: []byte("x")})) },
			"Photo":    func() error { return second(s.Photo(ctx, 1)) },
			"Ping":     func() error { return s.Ping(ctx) },
		} {
			t.Run(name, func(t *testing.T) {
				if err := call(); !errors.Is(err, context.Canceled) {
					t.Errorf("with a cancelled context: %v", err)
				}
			})
		}
		// Nothing was changed.
		if p, err := s.Get(context.Background(), 1); err != nil || p.Name != "Rex" || p.HasPhoto {
			t.Errorf("pet 1 after the cancelled calls: %+v, %v", p, err)
		}
		if _, total, _ := s.List(context.Background(), Filter{}, 0, 1); total != 7 {
			t.Errorf("%d pets after the cancelled calls", total)
		}
	})
}

// A store reopened on the same database, as after a restart, has the same
// pets; the seed is not applied again.
func TestStoreSurvivesReopening(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		loc := db.fresh(t)
		s, err := db.open(ctx, loc)
		if err != nil {
			t.Fatal(err)
		}
		nemo, err := s.Create(ctx, PetInput{Name: "Nemo", Species: "fish", Tags: []string{"orange"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetPhoto(ctx, nemo.ID, Photo{ContentType: "image/png", Data: []byte("png")}); err != nil {
			t.Fatal(err)
		}
		s.Close()

		s = db.openStore(t, loc)
		got, err := s.Get(ctx, nemo.ID)
		if err != nil || got.Name != "Nemo" || !got.HasPhoto || !reflect.DeepEqual(got.Tags, []string{"orange"}) {
			t.Errorf("after reopening: %+v, %v", got, err)
		}
		if _, total, _ := s.List(ctx, Filter{}, 0, 1); total != 8 {
			t.Errorf("%d pets after reopening, want 8 (the seed once, and Nemo)", total)
		}
	})
}

func TestStoreConcurrentWrites(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.freshStore(t)
		var wg sync.WaitGroup
		ids := make(chan int64, 80)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 10 {
					p, err := s.Create(ctx, PetInput{Name: fmt.Sprintf("pet %d-%d", w, i), Species: "dog", Tags: []string{"t"}})
					if err != nil {
						t.Error(err)
						return
					}
					ids <- p.ID
					if _, err := s.Update(ctx, p.ID, PetInput{Name: p.Name, Species: "cat"}); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		close(ids)
		seen := map[int64]bool{}
		for id := range ids {
			if seen[id] {
				t.Errorf("ID %d given twice", id)
			}
			seen[id] = true
		}
		if _, total, _ := s.List(ctx, Filter{Species: "cat"}, 0, 1); total != 2+80 {
			t.Errorf("%d cats, want 82", total)
		}
	})
}

// Replicas starting together on a new PostgreSQL database migrate and seed
// it once: the migrations run under goose's advisory lock. While the test
// holds that lock, no replica gets past its migrations.
func TestStoreReplicasStartTogether(t *testing.T) {
	url := testtool.PostgresSchema(t)
	ctx := context.Background()
	admin, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	conn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", lock.DefaultLockID); err != nil {
		t.Fatal(err)
	}

	const replicas = 4
	var wg sync.WaitGroup
	var opened atomic.Int32
	stores := make([]*Store, replicas)
	errs := make([]error, replicas)
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = OpenPostgres(ctx, url, slog.New(slog.DiscardHandler))
			opened.Add(1)
		}()
	}
	time.Sleep(500 * time.Millisecond)
	if n := opened.Load(); n != 0 {
		t.Errorf("%d replicas started while another held the migration lock", n)
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_unlock($1)", lock.DefaultLockID); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	if _, total, err := stores[replicas-1].List(ctx, Filter{}, 0, 1); err != nil || total != 7 {
		t.Errorf("%d pets, %v; want the seed's 7, once", total, err)
	}
	// What one replica writes, another reads.
	p, err := stores[0].Create(ctx, PetInput{Name: "Nemo", Species: "fish"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := stores[2].Get(ctx, p.ID); err != nil || got.Name != "Nemo" {
		t.Errorf("another replica reads %+v, %v", got, err)
	}
}

// A pet's times are kept to the microsecond: two writes within one second
// have different modification times, read back as written, so that a
// date precondition can tell them apart.
func TestStoreKeepsSubSecondTimes(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.freshStore(t)
		at := time.Date(2026, 11, 27, 12, 0, 0, 100_000_999, time.UTC)
		s.now = func() time.Time { return at }
		p, err := s.Create(ctx, PetInput{Name: "Quick", Species: "cat"})
		if err != nil {
			t.Fatal(err)
		}
		at = at.Add(300 * time.Millisecond)
		u, err := s.Update(ctx, p.ID, PetInput{Name: "Quicker", Species: "cat"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := time.Date(2026, 11, 27, 12, 0, 0, 400_000_000, time.UTC)
		if !p.UpdatedAt.Equal(time.Date(2026, 11, 27, 12, 0, 0, 100_000_000, time.UTC)) || !u.UpdatedAt.Equal(want) ||
			!got.UpdatedAt.Equal(want) || !got.CreatedAt.Equal(p.CreatedAt) {
			t.Errorf("created %v, updated %v, read back %v (created %v); want the microseconds kept",
				p.UpdatedAt, u.UpdatedAt, got.UpdatedAt, got.CreatedAt)
		}
	})
}
