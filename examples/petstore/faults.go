package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	moderncsqlite "modernc.org/sqlite"
)

// retryAfter is what a 503 for an unavailable database asks clients to
// wait before they retry.
const retryAfter = time.Second

// dbError is the error a handler returns for a failed database call: a
// 503 problem with Retry-After when the database is down, unreachable,
// timing out or busy (unavailable reports which), so that clients and
// load balancers retry; else err itself, a 500 whose cause is logged, not
// shown. nil stays nil. Every handler passes its store errors through it.
func dbError(err error) error {
	if err == nil || !unavailable(err) {
		return err
	}
	return unavailableProblem(retryAfter, "the database is unavailable; retry later")
}

// unavailable reports whether err says the database could not be reached
// or did not answer in time, rather than that the query was wrong:
//
//   - a connection refused, reset or closed, a network error, or
//     driver.ErrBadConn (the pool's own signal of a broken connection);
//   - the deadline of the call passing (context.DeadlineExceeded);
//   - a closed *sql.DB ("sql: database is closed") or connection;
//   - PostgreSQL errors of class 08 (connection exception) and 57P01,
//     57P02, 57P03 (admin shutdown, crash shutdown, cannot connect now);
//   - SQLite's SQLITE_BUSY and SQLITE_LOCKED (the busy timeout passed).
func unavailable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	var connErr *pgconn.ConnectError
	var netErr net.Error
	if errors.As(err, &connErr) || errors.As(err, &netErr) || pgconn.Timeout(err) {
		return true
	}
	var liteErr *moderncsqlite.Error
	if errors.As(err, &liteErr) {
		code := liteErr.Code() & 0xff // the primary result code
		return code == 5 || code == 6 // SQLITE_BUSY, SQLITE_LOCKED
	}
	return err.Error() == "sql: database is closed"
}
