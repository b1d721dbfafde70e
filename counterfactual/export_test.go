package counterfactual

// SetReuse turns the replay of repeated outputs on or off and sets the
// shortest text replayed, for tests; it returns a function restoring both.
func SetReuse(on bool, min int) (restore func()) {
	oldOn, oldMin := reuse, reuseMin
	reuse, reuseMin = on, min
	return func() { reuse, reuseMin = oldOn, oldMin }
}

// SetReReadRule1 turns the first prediction and observation rules of
// OutputReReads on or off, for tests; it returns a function restoring them.
func SetReReadRule1(predict, observe bool) (restore func()) {
	oldP, oldO := predictRule1, observeRule1
	predictRule1, observeRule1 = predict, observe
	return func() { predictRule1, observeRule1 = oldP, oldO }
}

// SetUsesRules turns the echo rule (an output does not take over the words
// of its own call's arguments) and the summary rule (a compaction's summary
// passes its words to the agent) of Uses on or off, for tests; it returns a
// function restoring both.
func SetUsesRules(echo, summary bool) (restore func()) {
	oldE, oldS := echoRule, summaryRule
	echoRule, summaryRule = echo, summary
	return func() { echoRule, summaryRule = oldE, oldS }
}

// SetMinEvidence sets the fewest evidence words of a content use, for
// tests; it returns a function restoring it.
func SetMinEvidence(n int) (restore func()) {
	old := minEvidence
	minEvidence = n
	return func() { minEvidence = old }
}
