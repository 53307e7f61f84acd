-- Row versions, for compare-and-swap writes, and the events of every
-- change, written in the same transaction as the change (an outbox):
-- event IDs are the order of the changes.

-- +goose Up
ALTER TABLE pets ADD COLUMN version INTEGER NOT NULL DEFAULT 1;

CREATE TABLE pet_events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL,     -- created, updated, deleted
    pet_id     INTEGER NOT NULL,
    payload    TEXT NOT NULL,     -- the event's data, JSON
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX pet_events_created_at ON pet_events (created_at);

-- The highest event ID that retention has deleted: a client that last
-- saw an event before it has missed some.
CREATE TABLE pet_events_pruned (
    one     INTEGER PRIMARY KEY CHECK (one = 1),
    through INTEGER NOT NULL
);
INSERT INTO pet_events_pruned (one, through) VALUES (1, 0);

-- +goose Down
DROP TABLE pet_events_pruned;
DROP TABLE pet_events;
ALTER TABLE pets DROP COLUMN version;
