-- Name search on an index: an FTS5 table of the folded names with the
-- trigram tokenizer, kept in step with pets by triggers. A search of three
-- characters or more finds the names containing it through the index
-- instead of reading every name.

-- +goose Up
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

-- +goose Down
DROP TRIGGER pets_fts_update;
DROP TRIGGER pets_fts_delete;
DROP TRIGGER pets_fts_insert;
DROP TABLE pets_fts;
