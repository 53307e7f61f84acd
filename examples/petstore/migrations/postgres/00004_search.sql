-- Name search on an index: a trigram index (pg_trgm) on the folded names,
-- which LIKE '%…%' uses for a search of three characters or more instead
-- of reading every name.

-- +goose Up
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX pets_name_trgm ON pets USING gin (name_folded gin_trgm_ops);

-- +goose Down
DROP INDEX pets_name_trgm;
