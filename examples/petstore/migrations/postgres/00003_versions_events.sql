-- Row versions, for compare-and-swap writes (UPDATE ... WHERE id = $1 AND
-- version = $2), and the events outbox: every change inserts its event in
-- the same transaction. An event's id is its place in the stream (the
-- Last-Event-ID of server-sent events); events_pruned records the highest
-- id that retention has deleted, so that a client further behind is told.

-- +goose Up
ALTER TABLE pets ADD COLUMN version BIGINT NOT NULL DEFAULT 1;

CREATE TABLE events (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind       TEXT NOT NULL,
    payload    TEXT NOT NULL, -- the event's data, JSON
    created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE events_pruned (
    one     INTEGER PRIMARY KEY CHECK (one = 1),
    through BIGINT NOT NULL
);
INSERT INTO events_pruned (one, through) VALUES (1, 0);

-- +goose Down
DROP TABLE events_pruned;
DROP TABLE events;
ALTER TABLE pets DROP COLUMN version;
