module github.com/vane-http/vane

go 1.26
