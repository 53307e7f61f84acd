package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/problem"
)

// Idempotency keys: POST /pets, PUT, PATCH and DELETE /pets/{id} take an
// Idempotency-Key. A client that got no answer (a timeout, a dropped
// connection, a 503) sends the request again with the same key, and gets
// the first answer instead of a second pet. The outcome of each keyed
// write is a row of idempotency_keys, inserted in the transaction of the
// write: the pet and its outcome are committed together or not at all,
// so that no crash between the two can make a retry write twice.

// idempotencyKeys is the operations' configuration of their keys: kept in
// the store's database for 24 hours, scoped to the bearer token's user.
func idempotencyKeys(store *Store) vane.Idempotency {
	return vane.Idempotency{
		Store:     keys{store},
		Principal: func(req *http.Request) string { return userOf(req.Context()) },
	}
}

// keys is the service's vane.IdempotencyStore, in the table
// idempotency_keys.
type keys struct{ s *Store }

// Lookup returns the outcome kept under key, unless it expired at now.
func (k keys) Lookup(ctx context.Context, key string, now time.Time) (*vane.IdempotencyRecord, error) {
	rec := vane.IdempotencyRecord{Key: key}
	var header []byte
	var created, expires int64
	err := k.s.db.QueryRowContext(ctx, `SELECT fingerprint, status, header, body, created_at, expires_at
		FROM idempotency_keys WHERE key = $1 AND expires_at > $2`, key, now.UnixMilli()).
		Scan(&rec.Fingerprint, &rec.Status, &header, &rec.Body, &created, &expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	}
	if err := json.Unmarshal(header, &rec.Header); err != nil {
		return nil, fmt.Errorf("idempotency key %s: its headers: %w", key, err)
	}
	rec.Created, rec.Expires = time.UnixMilli(created).UTC(), time.UnixMilli(expires).UTC()
	return &rec, nil
}

// Save keeps the outcome of a request whose handler wrote nothing, in a
// transaction of its own.
func (k keys) Save(ctx context.Context, rec *vane.IdempotencyRecord) error {
	return k.s.inTx(ctx, func(tx *sql.Tx) error { return insertOutcome(ctx, tx, k.s.d, rec) })
}

// insertOutcome inserts rec with tx. A record of its key that has not
// expired makes it fail with vane.ErrIdempotencyKeyInUse, failing the
// transaction: another request with the key committed first (on
// PostgreSQL, a second insert of a key waits for the first's transaction,
// and fails once it commits). It also deletes an expired record of the
// key, and a few other expired records, so that the table keeps what one
// retention period wrote.
func insertOutcome(ctx context.Context, tx *sql.Tx, d dialect, rec *vane.IdempotencyRecord) error {
	created := rec.Created.UnixMilli()
	if _, err := tx.ExecContext(ctx, "DELETE FROM idempotency_keys WHERE key = $1 AND expires_at <= $2", rec.Key, created); err != nil {
		return err
	}
	prune := `DELETE FROM idempotency_keys WHERE key IN
		(SELECT key FROM idempotency_keys WHERE expires_at <= $1 ORDER BY expires_at LIMIT 8)`
	if d.name == "postgres" {
		// Rows another writer is deleting are left to it, rather than
		// waited for.
		prune = `DELETE FROM idempotency_keys WHERE key IN
			(SELECT key FROM idempotency_keys WHERE expires_at <= $1 ORDER BY expires_at LIMIT 8 FOR UPDATE SKIP LOCKED)`
	}
	if _, err := tx.ExecContext(ctx, prune, created); err != nil {
		return err
	}
	header, err := json.Marshal(rec.Header)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO idempotency_keys (key, fingerprint, status, header, body, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, rec.Key, rec.Fingerprint, rec.Status, string(header), rec.Body, created, rec.Expires.UnixMilli())
	if uniqueViolation(err) {
		return fmt.Errorf("idempotency key %s: %w", rec.Key, vane.ErrIdempotencyKeyInUse)
	}
	return err
}

// uniqueViolation reports whether err is a unique constraint's: SQLSTATE
// 23505 on PostgreSQL, SQLITE_CONSTRAINT on SQLite.
func uniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505"
	}
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 19
}

// outcomeKey is the context key of the outcome a write records.
type outcomeKey struct{}

// pendingOutcome is what a write records in its transaction: the
// handler's output for the pet written, under the request's key.
type pendingOutcome struct {
	idem *vane.Idempotent
	of   func(Pet) any
}

// withOutcome returns ctx for a store write that records, in its
// transaction, the outcome of the keyed request idem: of(p), the
// handler's output for the pet p written. Without a key, ctx itself.
func withOutcome[O any](ctx context.Context, idem *vane.Idempotent, of func(Pet) *O) context.Context {
	if idem.Key() == "" {
		return ctx
	}
	return context.WithValue(ctx, outcomeKey{}, pendingOutcome{idem: idem, of: func(p Pet) any { return of(p) }})
}

// recordOutcome inserts, with tx, the outcome that ctx carries (see
// withOutcome) for the pet p just written; nothing when it carries none.
func (s *Store) recordOutcome(ctx context.Context, tx *sql.Tx, p Pet) error {
	po, ok := ctx.Value(outcomeKey{}).(pendingOutcome)
	if !ok {
		return nil
	}
	rec, err := po.idem.Outcome(po.of(p))
	if err != nil || rec == nil {
		return err
	}
	return insertOutcome(ctx, tx, s.d, rec)
}

// created is the answer to POST /pets that made p.
func created(p Pet) *Created {
	return &Created{Location: "/pets/" + strconv.FormatInt(p.ID, 10), Body: p}
}

// deleted is the answer to a DELETE: 204 No Content.
func deleted(Pet) *struct{} { return nil }

// commit commits tx. When the commit fails without the database's answer
// (the connection broke after COMMIT was sent), the write may or may not
// have been made, and the error is a lostCommit, answered 503 "outcome
// unknown" rather than a 503 that would let a client think nothing
// changed. An answer of the database's own (a refused commit) means
// nothing was written, and is returned as it is.
func (s *Store) commit(ctx context.Context, tx *sql.Tx) error {
	err := tx.Commit()
	if err == nil && s.commitFault != nil {
		err = s.commitFault(ctx)
	}
	if err == nil || answered(err) {
		return err
	}
	return &lostCommit{cause: err}
}

// answered reports whether err is the database's answer to a commit,
// which it refused: PostgreSQL's error (SQLSTATE), SQLite's (a result
// code), or a transaction that had ended already.
func answered(err error) bool {
	var pgErr *pgconn.PgError
	var coded interface{ Code() int }
	return errors.As(err, &pgErr) || errors.As(err, &coded) || errors.Is(err, sql.ErrTxDone)
}

// lostCommit is a commit whose answer never came. As a handler's error it
// is answered vane.OutcomeUnknown (a 503 with Retry-After of its own
// problem type), and its cause is logged; it does not unwrap to the
// cause, so that storeError does not take it for a database that is away
// (a 503 whose write was not made).
type lostCommit struct{ cause error }

func (e *lostCommit) Error() string {
	return "the answer to COMMIT was lost, the write may have been made: " + e.cause.Error()
}

// As makes the error a problem for vane.
func (e *lostCommit) As(target any) bool {
	p, ok := target.(**problem.Details)
	if ok {
		*p = vane.OutcomeUnknown(2*time.Second, "the database's answer to this write was lost: it may have been made. "+
			"Retry with the same Idempotency-Key to get its outcome, or read the pet.")
	}
	return ok
}
