package e2e

// Item is the response of the end-to-end service, GET /items/{id}: the
// service of the Huma seed report, every implementation answering the
// same JSON.
type Item struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Price   float64  `json:"price"`
	Tags    []string `json:"tags"`
	Verbose bool     `json:"verbose"`
}

// NewItem is the answer for id; verbose is the query parameter
// ?verbose=true. A request without an Authorization header gets 401.
func NewItem(id string, verbose bool) Item {
	return Item{ID: id, Name: "Item " + id, Price: 9.99, Tags: []string{"a", "b"}, Verbose: verbose}
}

// Path and Auth are what wrk requests.
const (
	Path = "/items/123?verbose=true"
	Auth = "bearer 123"
)
