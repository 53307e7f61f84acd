-- Each photo's SHA-256 (hex), its version: the ETag of GET
-- /pets/{id}/photo names it. The photos stored before are hashed by the
-- next migration (hashPhotos).

-- +goose Up
ALTER TABLE pet_photos ADD COLUMN sha256 TEXT;

-- +goose Down
ALTER TABLE pet_photos DROP COLUMN sha256;
