package peers

import "net/http"

// vane's typed operations (vane.Register, vane.Get[I, O]) have not landed
// in the root module yet; until they do, their cells are reported as pending.
var (
	vaneGreeting   func() (http.Handler, error)
	vaneTypedParam func() (http.Handler, error)
)

func init() {
	const why = "pending: vane's typed operations (vane.Register) are not in the root module yet"
	vaneLacks["greeting"] = why
	vaneLacks["typedparam"] = why
}
