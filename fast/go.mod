module github.com/vane-http/vane/fast

go 1.26

require (
	github.com/valyala/fasthttp v1.69.0
	github.com/vane-http/vane v0.0.0
)

require (
	github.com/andybalholm/brotli v1.2.0 // indirect
	github.com/goccy/go-json v0.12.0 // indirect
	github.com/klauspost/compress v1.18.2 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)

replace github.com/vane-http/vane => ../
