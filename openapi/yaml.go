package openapi

import (
	"encoding/json"
	"errors"
)

// JSONToYAML converts a JSON text to YAML, keeping the key order of the
// JSON text (so that a document's YAML reads in the same order as its
// JSON) and every number exactly as written. Strings that YAML would read
// as another type ("true", "1.0", "null", "2026-01-01") are quoted.
func JSONToYAML(data []byte) ([]byte, error) {
	if !json.Valid(data) {
		return nil, errors.New("openapi: reading JSON: the text is not one valid JSON value")
	}
	var w yamlWriter
	replayJSON(&w, data)
	return w.bytes(), nil
}
