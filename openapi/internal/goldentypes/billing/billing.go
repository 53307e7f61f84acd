// Package billing declares a type named Item, as package shop does, for the
// golden tests of component names that must stay unique across packages.
package billing

// Item is a line of an invoice.
type Item struct {
	SKU      string `json:"sku" pattern:"^[A-Z]{3}-[0-9]{4}$"`
	Quantity int    `json:"quantity" minimum:"1"`
}
