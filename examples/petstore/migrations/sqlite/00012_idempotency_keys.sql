-- The outcomes of writes sent with an Idempotency-Key: each row is
-- inserted in the transaction of its write, so that a write and its
-- outcome are committed together or not at all, and a retry with the key
-- is answered from here instead of writing again. key is vane's hash of
-- the client's key, the operation and the user; times are Unix
-- milliseconds.

-- +goose Up
CREATE TABLE idempotency_keys (
    key         TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,   -- the request's, for a 422 to another request with the key
    status      INTEGER NOT NULL,
    header      TEXT NOT NULL,   -- the answer's headers, a JSON object of lists
    body        BLOB,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
);
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);

-- +goose Down
DROP TABLE idempotency_keys;
