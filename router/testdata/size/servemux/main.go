// Command servemux is router's program written with net/http.ServeMux.
package main

import (
	"io"
	"net/http"
)

func main() {
	r := http.NewServeMux()
	r.HandleFunc("GET /users/{id}", func(w http.ResponseWriter, req *http.Request) {
		io.WriteString(w, "user "+req.PathValue("id"))
	})
	http.ListenAndServe("127.0.0.1:0", r)
}
