-- The search index compares the folded names byte for byte: names and
-- searches are folded once, in Go (foldName), and the index folds nothing
-- more. (FTS5 folds case by default, in its own way, which a search
-- answered without the index would not: Σ, σ and ς, for one.)

-- +goose Up
DROP TRIGGER pets_fts_update;
DROP TRIGGER pets_fts_delete;
DROP TRIGGER pets_fts_insert;
DROP TABLE pets_fts;
CREATE VIRTUAL TABLE pets_fts USING fts5(name_folded, content='pets', content_rowid='id', tokenize='trigram case_sensitive 1');
INSERT INTO pets_fts (pets_fts) VALUES ('rebuild');

-- +goose StatementBegin
CREATE TRIGGER pets_fts_insert AFTER INSERT ON pets BEGIN
    INSERT INTO pets_fts (rowid, name_folded) VALUES (new.id, new.name_folded);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER pets_fts_delete AFTER DELETE ON pets BEGIN
    INSERT INTO pets_fts (pets_fts, rowid, name_folded) VALUES ('delete', old.id, old.name_folded);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER pets_fts_update AFTER UPDATE OF name_folded ON pets BEGIN
    INSERT INTO pets_fts (pets_fts, rowid, name_folded) VALUES ('delete', old.id, old.name_folded);
    INSERT INTO pets_fts (rowid, name_folded) VALUES (new.id, new.name_folded);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER pets_fts_update;
DROP TRIGGER pets_fts_delete;
DROP TRIGGER pets_fts_insert;
DROP TABLE pets_fts;
CREATE VIRTUAL TABLE pets_fts USING fts5(name_folded, content='pets', content_rowid='id', tokenize='trigram');
INSERT INTO pets_fts (pets_fts) VALUES ('rebuild');

-- +goose StatementBegin
CREATE TRIGGER pets_fts_insert AFTER INSERT ON pets BEGIN
    INSERT INTO pets_fts (rowid, name_folded) VALUES (new.id, new.name_folded);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER pets_fts_delete AFTER DELETE ON pets BEGIN
    INSERT INTO pets_fts (pets_fts, rowid, name_folded) VALUES ('delete', old.id, old.name_folded);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER pets_fts_update AFTER UPDATE OF name_folded ON pets BEGIN
    INSERT INTO pets_fts (pets_fts, rowid, name_folded) VALUES ('delete', old.id, old.name_folded);
    INSERT INTO pets_fts (rowid, name_folded) VALUES (new.id, new.name_folded);
END;
-- +goose StatementEnd
