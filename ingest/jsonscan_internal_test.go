package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// TestJSONEachMember checks jsonEachField and jsonEachElem on whole, empty,
// cut-off and malformed objects and arrays: the members seen and the result.
func TestJSONEachMember(t *testing.T) {
	fields := []struct{ in, want string }{
		{` {"a": 1, "b": [2, 3] , "c":"x"}`, "a@7 b@15 c@28 true"},
		{`{}`, "true"},
		{`{"a": 1, "b": [2,`, "a@6 b@14 false"},
		{`{"a": 1 "b": 2}`, "a@6 false"},
		{`{"a" 1}`, "false"},
		{`[1]`, "false"},
		{`{`, "false"},
	}
	for _, tc := range fields {
		var seen []string
		ok := jsonEachField([]byte(tc.in), 0, func(key []byte, val int) bool {
			seen = append(seen, fmt.Sprintf("%s@%d", key, val))
			return true
		})
		if got := strings.TrimSpace(strings.Join(seen, " ") + fmt.Sprintf(" %v", ok)); got != tc.want {
			t.Errorf("jsonEachField(%s): %s, want %s", tc.in, got, tc.want)
		}
	}
	elems := []struct{ in, want string }{
		{`[1, {"a": 2} ,"x"]`, "1 4 14 true"},
		{` [ ]`, "true"},
		{`[1, 2`, "1 4 false"},
		{`[1 2]`, "1 false"},
		{`{}`, "false"},
	}
	for _, tc := range elems {
		var seen []string
		ok := jsonEachElem([]byte(tc.in), 0, func(val int) bool {
			seen = append(seen, fmt.Sprint(val))
			return true
		})
		if got := strings.TrimSpace(strings.Join(seen, " ") + fmt.Sprintf(" %v", ok)); got != tc.want {
			t.Errorf("jsonEachElem(%s): %s, want %s", tc.in, got, tc.want)
		}
	}
	// fn stopping early is not a malformed object
	stop := jsonEachField([]byte(`{"a": 1, "b": [`), 0, func(key []byte, _ int) bool { return string(key) != "b" })
	if !stop {
		t.Errorf("jsonEachField stopped by fn = false, want true")
	}
}
