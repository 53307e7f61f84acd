// Command router is the smallest program that routes with vane's router:
// TestRouterOnlySize compares its size with servemux's.
package main

import (
	"io"
	"net/http"

	"github.com/vane-http/vane/router"
)

func main() {
	r := router.New()
	r.Get("/users/{id}", func(w http.ResponseWriter, req *http.Request) {
		io.WriteString(w, "user "+router.Param(req, "id"))
	})
	http.ListenAndServe("127.0.0.1:0", r)
}
