// Package ops holds what the generated programs of the large-API workload
// (package largeapi) need of it: the operations' input, their answer's
// time, and how a type's operations are registered. It changes seldom, so
// that the programs, which take minutes to compile, stay in the Go build
// cache while package largeapi changes.
package ops

import (
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/vane-http/vane"
)

// Input is every operation's input: the same tags read by vane and Huma.
type Input struct {
	ID     int64  `path:"id" minimum:"1"`
	Limit  int    `query:"limit" minimum:"1" maximum:"100" default:"20"`
	Sort   string `query:"sort" enum:"asc,desc"`
	Tenant string `header:"X-Tenant"`
}

// Created is every answer's creation time.
var Created = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// Registrar registers an operation of an API with the output type of its
// variant, in each framework.
type Registrar struct {
	Vane func(r *vane.Router, method, pattern string, opts ...vane.Option)
	Huma func(api huma.API, op huma.Operation)
}
