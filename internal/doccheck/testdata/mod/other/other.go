// Package other is the planted module's second package: stale's comments
// name its Thing, Thing.Size and NewThing.
package other

// Thing is a thing.
type Thing struct {
	Size int // its size
}

// NewThing returns a Thing.
func NewThing() *Thing { return &Thing{} }
