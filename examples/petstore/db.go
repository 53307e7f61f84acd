package main

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL, as database/sql driver "pgx"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // SQLite in pure Go, as database/sql driver "sqlite"
)

// The schema, one directory per database: the SQL differs only in column
// types (BLOB or BYTEA, AUTOINCREMENT or an identity column).
//
//go:embed migrations
var migrationFiles embed.FS

// The pets the service starts with, inserted once by the second migration.
//
//go:embed pets.json
var seedPets []byte

// dialect is what differs between the databases in the store's queries.
type dialect struct {
	name string
	// tags is an expression giving the tags of the pet p as a JSON array,
	// in order.
	tags string
	// join joins a table after the ones before it, in that order: the
	// tables of a tag filter are read in the order written, each looked
	// up in its index for the rows of the ones before.
	join string
	// petOfTag joins the pet p of the tag row t0, read by its ID for each
	// row of t0 (never a walk of pets in step with t0's rows).
	petOfTag string
}

var (
	// SQLite keeps the order of a CROSS JOIN's tables.
	sqlite = dialect{
		name:     "sqlite",
		tags:     `(SELECT json_group_array(tag ORDER BY position) FROM pet_tags t WHERE t.pet_id = p.id)`,
		join:     "CROSS JOIN",
		petOfTag: "CROSS JOIN pets p ON p.id = t0.pet_id ",
	}
	// PostgreSQL plans the joins of the tags' lists itself (a merge of
	// lists in ID order, or lookups); a LATERAL subquery that it cannot
	// flatten (OFFSET 0) reads each pet by its ID.
	postgres = dialect{
		name:     "postgres",
		tags:     `(SELECT COALESCE(json_agg(tag ORDER BY position), '[]'::json) FROM pet_tags t WHERE t.pet_id = p.id)`,
		join:     "JOIN",
		petOfTag: "CROSS JOIN LATERAL (SELECT * FROM pets WHERE pets.id = t0.pet_id OFFSET 0) p ",
	}
)

// OpenSQLite opens (creating it if need be) the SQLite database pets.db in
// dir, brings its schema up to date, and returns a store on it.
//
// The database runs in WAL mode, so that reads go on while a write
// commits; writes take the database's write lock when they begin
// (BEGIN IMMEDIATE), and wait up to 10s for it rather than fail.
func OpenSQLite(ctx context.Context, dir string, logger *slog.Logger) (*Store, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	path := filepath.Join(dir, "pets.db")
	dsn := "file:" + filepath.ToSlash(path) +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)" +
		"&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	return open(ctx, db, sqlite, goose.DialectSQLite3, nil, "", logger)
}

// OpenPostgres connects to the PostgreSQL database at url (a URL or a
// keyword/value string, as libpq takes), brings its schema up to date, and
// returns a store on it. Several processes may open the same database at
// once: migrations run under an advisory lock, one process at a time.
func OpenPostgres(ctx context.Context, url string, logger *slog.Logger) (*Store, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(10)
	db.SetConnMaxIdleTime(5 * time.Minute)
	// A connection that broke (the server restarted) is discarded by
	// database/sql on its next use (driver.ErrBadConn) and a new one
	// dialled, so the pool recovers by itself; bounded lifetimes also
	// move connections to a server that came back elsewhere.
	db.SetConnMaxLifetime(30 * time.Minute)
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300)) // retry each second, 5 minutes
	if err != nil {
		db.Close()
		return nil, err
	}
	return open(ctx, db, postgres, goose.DialectPostgres, locker, url, logger)
}

// open migrates db and returns a store on it, with its event feed
// (listening on listenURL, a PostgreSQL URL, if not empty); db is closed
// on failure.
func open(ctx context.Context, db *sql.DB, d dialect, gd goose.Dialect, locker lock.SessionLocker, listenURL string, logger *slog.Logger) (*Store, error) {
	if err := migrate(ctx, db, d, gd, locker, logger); err != nil {
		db.Close()
		return nil, err
	}
	s := &Store{db: db, d: d, now: time.Now}
	if d.name == "sqlite" {
		s.writer = make(chan struct{}, 1)
	}
	f, err := startFeed(s, listenURL, logger)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.feed = f
	return s, nil
}

// migrate applies the migrations db lacks: the SQL files of the dialect's
// directory, then the seed. goose records each in its version table
// (goose_db_version), in the same transaction as the migration itself.
func migrate(ctx context.Context, db *sql.DB, d dialect, gd goose.Dialect, locker lock.SessionLocker, logger *slog.Logger) error {
	p, err := migrations(db, d, gd, locker)
	if err != nil {
		return err
	}
	results, err := p.Up(ctx)
	for _, r := range results {
		source := filepath.Base(r.Source.Path)
		if r.Source.Type == goose.TypeGo {
			source = goMigrations[r.Source.Version]
		}
		logger.InfoContext(ctx, "migration applied", slog.Int64("version", r.Source.Version),
			slog.String("source", source), slog.Duration("duration", r.Duration))
	}
	if err != nil {
		return fmt.Errorf("migrating the %s database: %w", d.name, err)
	}
	return nil
}

// goMigrations name the migrations written in Go, by version, for the log.
var goMigrations = map[int64]string{2: "seed (pets.json)", 8: "names folded by foldName", 11: "photos hashed"}

// refoldNames stores foldName's folding of each name in name_folded where
// it differs from what is stored; the indexes on name_folded follow.
func refoldNames(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT id, name, name_folded FROM pets")
	if err != nil {
		return err
	}
	type refolded struct {
		id     int64
		folded string
	}
	var changed []refolded
	for rows.Next() {
		var r refolded
		var name string
		if err := rows.Scan(&r.id, &name, &r.folded); err != nil {
			rows.Close()
			return err
		}
		if f := foldName(name); f != r.folded {
			changed = append(changed, refolded{r.id, f})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range changed {
		if _, err := tx.ExecContext(ctx, "UPDATE pets SET name_folded = $1 WHERE id = $2", r.folded, r.id); err != nil {
			return err
		}
	}
	return nil
}

// hashPhotos stores the SHA-256 of each photo that has none.
func hashPhotos(ctx context.Context, tx *sql.Tx) error {
	var ids []int64
	rows, err := tx.QueryContext(ctx, "SELECT pet_id FROM pet_photos WHERE sha256 IS NULL")
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range ids {
		var data []byte
		if err := tx.QueryRowContext(ctx, "SELECT data FROM pet_photos WHERE pet_id = $1", id).Scan(&data); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE pet_photos SET sha256 = $1 WHERE pet_id = $2", photoHash(data), id); err != nil {
			return err
		}
	}
	return nil
}

// migrations returns the goose provider of db's migrations.
func migrations(db *sql.DB, d dialect, gd goose.Dialect, locker lock.SessionLocker) (*goose.Provider, error) {
	fsys, err := fs.Sub(migrationFiles, "migrations/"+d.name)
	if err != nil {
		return nil, err
	}
	opts := []goose.ProviderOption{
		goose.WithDisableGlobalRegistry(true),
		goose.WithGoMigrations(
			goose.NewGoMigration(2, &goose.GoFunc{RunTx: seed}, nil),
			goose.NewGoMigration(8, &goose.GoFunc{RunTx: refoldNames}, nil),
			goose.NewGoMigration(11, &goose.GoFunc{RunTx: hashPhotos}, nil),
		),
	}
	if locker != nil {
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	return goose.NewProvider(gd, db, fsys, opts...)
}

// seed inserts the pets of pets.json. It runs once per database, as a
// migration, so that replicas starting together do not each insert them.
func seed(ctx context.Context, tx *sql.Tx) error {
	var pets []PetInput
	if err := json.Unmarshal(seedPets, &pets); err != nil {
		return fmt.Errorf("pets.json: %w", err)
	}
	now := modTime(time.Now())
	for _, p := range pets {
		if _, err := insertPet(ctx, tx, p, now); err != nil {
			return err
		}
	}
	return nil
}

// errNotFound is returned by the store for an unknown ID.
var errNotFound = errors.New("no such pet")
