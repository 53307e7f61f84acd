-- Row versions, for compare-and-swap writes (UPDATE ... WHERE id = $1 AND
-- version = $2), and the events outbox: every change inserts its event in
-- the same transaction. An event's id is its place in the stream (the
-- Last-Event-ID of server-sent events); AUTOINCREMENT never reuses one.
-- events_pruned records the highest id that retention has deleted, so that
-- a client further behind is told.

-- +goose Up
ALTER TABLE pets ADD COLUMN version INTEGER NOT NULL DEFAULT 1;

CREATE TABLE events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL,
    payload    TEXT NOT NULL, -- the event's data, JSON
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE events_pruned (
    one     INTEGER PRIMARY KEY CHECK (one = 1),
    through INTEGER NOT NULL
);
INSERT INTO events_pruned (one, through) VALUES (1, 0);

-- +goose Down
DROP TABLE events_pruned;
DROP TABLE events;
ALTER TABLE pets DROP COLUMN version;
