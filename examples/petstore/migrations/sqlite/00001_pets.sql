-- The pets, their tags (in order) and their photos. IDs are never reused
-- (AUTOINCREMENT), as with PostgreSQL's identity columns.

-- +goose Up
CREATE TABLE pets (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL,
    name_folded TEXT NOT NULL, -- lower-cased name, for the case-insensitive search
    species     TEXT NOT NULL,
    status      TEXT NOT NULL,
    birth_date  TEXT,
    owner       TEXT,
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);
CREATE INDEX pets_species ON pets (species);
CREATE INDEX pets_status ON pets (status);

CREATE TABLE pet_tags (
    pet_id   INTEGER NOT NULL REFERENCES pets (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    tag      TEXT NOT NULL,
    PRIMARY KEY (pet_id, position)
);
CREATE INDEX pet_tags_tag ON pet_tags (tag, pet_id);

CREATE TABLE pet_photos (
    pet_id       INTEGER PRIMARY KEY REFERENCES pets (id) ON DELETE CASCADE,
    content_type TEXT NOT NULL,
    data         BLOB NOT NULL
);

-- +goose Down
DROP TABLE pet_photos;
DROP TABLE pet_tags;
DROP TABLE pets;
