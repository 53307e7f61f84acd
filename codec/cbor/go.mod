module github.com/vane-http/vane/codec/cbor

go 1.26.0

require (
	github.com/fxamacker/cbor/v2 v2.10.0
	github.com/vane-http/vane v0.0.0
)

require (
	github.com/evanphx/json-patch/v5 v5.9.11 // indirect
	github.com/goccy/go-json v0.12.0 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)

replace github.com/vane-http/vane => ../..
