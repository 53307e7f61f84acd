-- Pages by key under a filter: (species, id) and (status, id) give the
-- pets of one species or status already in ID order, so that a page of a
-- rare value reads the page, not every pet of the value, then a sort.
-- (SQLite's indexes end with the rowid, which is the ID: its pets_species
-- and pets_status already do this.)

-- +goose Up
CREATE INDEX pets_species_id ON pets (species, id);
CREATE INDEX pets_status_id ON pets (status, id);
DROP INDEX pets_species;
DROP INDEX pets_status;

-- +goose Down
CREATE INDEX pets_species ON pets (species);
CREATE INDEX pets_status ON pets (status);
DROP INDEX pets_status_id;
DROP INDEX pets_species_id;
