package actions

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"sync"
)

// DefaultVersion numbers what the default classifier answers. Bump it with
// any change to the default rules or to Classify's code that changes the
// class of some call: DefaultFingerprint changes with it, and classes
// stored with an older fingerprint (ingest records each tool call's class,
// events.action_class) are then classified again rather than read back.
// TestDefaultVersion pins the class of every tool call of the shared
// corpus to this number.
const DefaultVersion = 1

var defaultClassifier = sync.OnceValues(func() (*Classifier, error) { return New(nil) })

// Default returns the classifier of the default rules alone, compiled once
// per process. A Classifier is read-only once built: it may be used from
// several goroutines.
func Default() (*Classifier, error) { return defaultClassifier() }

// DefaultFingerprint names the default classifier's answers:
// "v<DefaultVersion>-" and 12 hex digits of the SHA-256 of the default
// rules as JSON, so that an edit of the rules changes it even when the
// version is not bumped. Two processes with the same fingerprint classify
// every call alike.
var DefaultFingerprint = sync.OnceValue(func() string {
	rules, err := compiledDefaults()
	if err != nil {
		return "v" + strconv.Itoa(DefaultVersion) + "-invalid"
	}
	b, _ := json.Marshal(rules) // Rule's exported fields, in order
	sum := sha256.Sum256(b)
	return "v" + strconv.Itoa(DefaultVersion) + "-" + hex.EncodeToString(sum[:6])
})
