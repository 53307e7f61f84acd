// Package shop declares a type named Item, as package billing does, for the
// golden tests of component names that must stay unique across packages.
package shop

// Item is a product on sale.
type Item struct {
	Name  string  `json:"name"`
	Price float64 `json:"price" exclusiveMinimum:"0"`
}
