-- A deleted pet's data leaves the events with it: its created and updated
-- events become redacted events that hold its ID only (redactEvents, in
-- the transaction of the delete). pet_events_pet_id finds a pet's events;
-- the events of the pets deleted before are redacted here.

-- +goose Up
CREATE INDEX pet_events_pet_id ON pet_events (pet_id);
UPDATE pet_events SET kind = 'redacted', payload = '{"id":' || pet_id || '}'
WHERE kind IN ('created', 'updated') AND NOT EXISTS (SELECT 1 FROM pets WHERE pets.id = pet_events.pet_id);

-- +goose Down
DROP INDEX pet_events_pet_id;
