package peers

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// User is the small JSON payload of the JSONBind workload.
type User struct {
	Name  string   `json:"name"`
	Email string   `json:"email"`
	Age   int      `json:"age"`
	Tags  []string `json:"tags"`
}

// UserJSON is the request body of JSONBind.
const UserJSON = `{"name":"Gordon","email":"gordon@example.com","age":42,"tags":["admin","ops"]}`

// Item is one element of the JSONList response.
type Item struct {
	ID       int      `json:"id"`
	Name     string   `json:"name"`
	Price    float64  `json:"price"`
	InStock  bool     `json:"in_stock"`
	Tags     []string `json:"tags"`
	Category string   `json:"category"`
}

// Items are the 100 items JSONList answers.
var Items = func() []Item {
	items := make([]Item, 100)
	for i := range items {
		items[i] = Item{
			ID:       i + 1,
			Name:     "Item " + strconv.Itoa(i+1),
			Price:    float64(i)*1.25 + 0.99,
			InStock:  i%3 != 0,
			Tags:     []string{"tag-a", "tag-b"},
			Category: "category-" + strconv.Itoa(i%7),
		}
	}
	return items
}()

// GreetingBody is the request body of the greeting operation; Suffix has
// the rule maxLength 5.
type GreetingBody struct {
	Suffix string `json:"suffix" maxLength:"5"`
}

// GreetingReply is the response body of the greeting operation.
type GreetingReply struct {
	Greeting    string `json:"greeting"`
	Suffix      string `json:"suffix"`
	Length      int    `json:"length"`
	ContentType string `json:"content_type"`
	Num         int    `json:"num"`
}

// The greeting request and its expected answer.
const (
	GreetingPath    = "/greeting/123?num=5"
	GreetingJSON    = `{"suffix":"!"}`
	GreetingETag    = "abc123"
	GreetingMaxSufx = 5
)

// LastModified is the fixed Last-Modified header of the greeting operation.
var LastModified = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// LastModifiedText is LastModified in the HTTP header format.
var LastModifiedText = LastModified.Format(http.TimeFormat)

// Greet computes the reply every implementation must produce.
func Greet(id, suffix, contentType string, num int) GreetingReply {
	g := "Hello, " + id + suffix
	return GreetingReply{Greeting: g, Suffix: suffix, Length: len(g), ContentType: contentType, Num: num}
}

// IDReply is the response of TypedParam.
type IDReply struct {
	ID int64 `json:"id"`
}

// StdJSONBind is the JSON-bind workload as a plain net/http handler, shared
// by the peers that serve net/http handlers: decode a User, answer its name.
func StdJSONBind(w http.ResponseWriter, req *http.Request) {
	var u User
	if err := json.NewDecoder(req.Body).Decode(&u); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte(u.Name))
}

// StdJSONList is the JSON-list workload as a plain net/http handler: the
// 100 items, encoded by encoding/json.
func StdJSONList(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(Items)
}
