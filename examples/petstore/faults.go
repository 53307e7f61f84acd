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

	"github.com/jackc/pgx/v5/pgconn"
)

// unavailable reports whether err says the database could not be reached
// or could not serve the query for now, so that a retry may succeed: a
// connection refused, reset or broken, a server shutting down or starting
// (PostgreSQL's class 08 and 57P01–57P03, too many connections), SQLite's
// busy or locked database, a closed *sql.DB. Such a failure is answered 503 with
// Retry-After, not 500.
func unavailable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" ||
			pgErr.Code == "57P03" || pgErr.Code == "53300"
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connectErr), errors.As(err, &netErr),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, context.DeadlineExceeded):
		return true
	}
	if pgconn.SafeToRetry(err) || pgconn.Timeout(err) {
		return true
	}
	// A closed *sql.DB (the process is shutting down) has no exported
	// error of its own.
	if err.Error() == "sql: database is closed" {
		return true
	}
	// modernc.org/sqlite: SQLITE_BUSY (5) and SQLITE_LOCKED (6), past the
	// busy timeout.
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		code := coded.Code() & 0xff
		return code == 5 || code == 6
	}
	return false
}
