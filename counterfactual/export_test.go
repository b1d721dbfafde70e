package counterfactual

// SetReuse turns the replay of repeated outputs on or off and sets the
// shortest text replayed, for tests; it returns a function restoring both.
func SetReuse(on bool, min int) (restore func()) {
	oldOn, oldMin := reuse, reuseMin
	reuse, reuseMin = on, min
	return func() { reuse, reuseMin = oldOn, oldMin }
}
