package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// JSONToYAML converts a JSON document to YAML, keeping the key order of the
// JSON text (so a document's YAML reads in the same order as its JSON) and
// every number exactly as written. Strings that YAML would read as another
// type ("true", "1.0", "null", "2026-01-01") are quoted by the encoder.
//
// The document is marshalled once, by encoding/json, so the JSON and YAML
// forms can never disagree: YAML is a rendering of the JSON text, not a
// second marshalling of the Go values.
func JSONToYAML(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	node, err := yamlValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("openapi: trailing data after JSON value")
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{node}}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// yamlValue reads one JSON value from dec and returns it as a YAML node.
func yamlValue(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("openapi: reading JSON: %w", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("openapi: reading JSON: %w", err)
				}
				key, _ := k.(string)
				v, err := yamlValue(dec)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, yamlString(key), v)
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, fmt.Errorf("openapi: reading JSON: %w", err)
			}
			if len(n.Content) == 0 {
				n.Style = yaml.FlowStyle // {}
			}
			return n, nil
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				v, err := yamlValue(dec)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, v)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, fmt.Errorf("openapi: reading JSON: %w", err)
			}
			if len(n.Content) == 0 {
				n.Style = yaml.FlowStyle // []
			}
			return n, nil
		}
		return nil, fmt.Errorf("openapi: unexpected JSON delimiter %q", t)
	case string:
		return yamlString(t), nil
	case json.Number:
		tag := "!!int"
		if bytes.ContainsAny([]byte(t), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(t)}, nil
	case bool:
		v := "false"
		if t {
			v = "true"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("openapi: unexpected JSON token %v", tok)
}

// yamlString is a string scalar. Tagging it !!str makes the encoder quote
// any value that would otherwise be read back as a number, bool or null.
// A string with U+0085, U+2028 or U+2029 is double-quoted, where they are
// escaped (\N, \L, \P): YAML 1.1 breaks lines at them and YAML 1.2 does
// not, so written as themselves they are read as two different strings.
func yamlString(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	switch {
	case strings.ContainsAny(s, "\u0085\u2028\u2029"):
		n.Style = yaml.DoubleQuotedStyle
	case strings.IndexByte(s, '\n') >= 0:
		n.Style = yaml.LiteralStyle
	}
	return n
}
