module github.com/vane-http/vane/fast

go 1.26.0

require (
	github.com/valyala/fasthttp v1.78.0
	github.com/vane-http/vane v0.0.0
)

require (
	github.com/goccy/go-json v0.12.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/molecule-man/go-brrr v1.3.1 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
)

replace github.com/vane-http/vane => ../
