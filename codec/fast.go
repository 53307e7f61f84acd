package codec

import (
	"encoding/json"
	"reflect"

	gojson "github.com/goccy/go-json"
)

// fastJSON is goccy/go-json with encoding/json as the judge of failures.
type fastJSON struct{}

func (fastJSON) Marshal(v any) (b []byte, err error) {
	defer func() {
		if recover() != nil {
			b, err = json.Marshal(v)
		}
	}()
	b, err = gojson.Marshal(v)
	if err != nil {
		// encoding/json's message and error types, for the same failure
		return json.Marshal(v)
	}
	return b, nil
}

// Unmarshal decodes with go-json. When go-json fails (or panics), the input
// is decoded again by encoding/json, into a fresh value so that what go-json
// half wrote does not mix in, and encoding/json's verdict stands: its value
// if it accepts the input, its error (with offset and field path) if not.
func (fastJSON) Unmarshal(data []byte, v any) (err error) {
	panicked := false
	func() {
		defer func() {
			if recover() != nil {
				panicked = true
			}
		}()
		err = gojson.Unmarshal(data, v) // copies data: strings may point into the copy, never into data
	}()
	if err == nil && !panicked {
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return json.Unmarshal(data, v)
	}
	fresh := reflect.New(rv.Type().Elem())
	if err := json.Unmarshal(data, fresh.Interface()); err != nil {
		return err
	}
	rv.Elem().Set(fresh.Elem())
	return nil
}
