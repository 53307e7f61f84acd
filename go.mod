module github.com/vane-http/vane

go 1.26

require go.yaml.in/yaml/v3 v3.0.6

require github.com/goccy/go-json v0.12.0
