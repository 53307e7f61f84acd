package vane_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/vane-http/vane"
)

type Transfer struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Amount int64  `json:"amount" minimum:"1"`
}

type CreateTransfer struct {
	vane.Idempotent // binds the Idempotency-Key header
	Body            Transfer
}

type TransferMade struct {
	Location string `header:"Location"`
	Body     struct {
		ID int `json:"id"`
		Transfer
	}
}

// An operation takes an Idempotency-Key when its input embeds
// vane.Idempotent and it is registered with vane.IdempotencyKeys. A
// retry of a request with its key is answered with the first outcome,
// marked Idempotent-Replayed, and does not write again. A service whose writes
// have transactions records the outcome in the write's own transaction
// (Idempotent.Outcome, see IdempotencyStore); this one keeps its
// transfers in memory, and vane saves the outcome after the handler.
func ExampleIdempotent() {
	var mu sync.Mutex
	var ledger []Transfer
	keys := &vane.Idempotency{
		Store:     vane.NewMemoryIdempotencyStore(),
		Principal: func(req *http.Request) string { return req.Header.Get("X-Account") }, // who the key belongs to
	}
	r := vane.New()
	vane.Post(r, "/transfers", func(ctx context.Context, in *CreateTransfer) (*TransferMade, error) {
		mu.Lock()
		defer mu.Unlock()
		ledger = append(ledger, in.Body)
		out := &TransferMade{Location: fmt.Sprintf("/transfers/%d", len(ledger))}
		out.Body.ID, out.Body.Transfer = len(ledger), in.Body
		return out, nil
	}, vane.IdempotencyKeys(*keys), vane.Status(http.StatusCreated))

	send := func(key, body string) {
		req := httptest.NewRequest("POST", "/transfers", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Account", "alice")
		req.Header.Set("Idempotency-Key", key)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Println(w.Code, w.Header().Get("Location"), w.Header().Get("Idempotent-Replayed"), strings.TrimSpace(w.Body.String()))
	}
	send(`"0b5c8e1e-2f1d-4c55-9a57-6f1f0c0f9e11"`, `{"from":"alice","to":"bob","amount":30}`)
	send(`"0b5c8e1e-2f1d-4c55-9a57-6f1f0c0f9e11"`, `{"amount":30,"to":"bob","from":"alice"}`)  // the retry: the same request
	send(`"0b5c8e1e-2f1d-4c55-9a57-6f1f0c0f9e11"`, `{"from":"alice","to":"bob","amount":300}`) // another request, the same key
	fmt.Println(len(ledger), "transfer")
	// Output:
	// 201 /transfers/1  {"id":1,"from":"alice","to":"bob","amount":30}
	// 201 /transfers/1 true {"id":1,"from":"alice","to":"bob","amount":30}
	// 422   {"type":"https://github.com/vane-http/vane/blob/main/docs/idempotency.md#key-reused","title":"Idempotency-Key reused","status":422,"detail":"this Idempotency-Key was used for another request (another method, path, parameters or body); use a new key for a new request"}
	// 1 transfer
}
