package stale

import "testing"

func TestNewPage(t *testing.T) {
	if NewPage("a", 1).Title != "a 1" {
		t.Fail()
	}
}
