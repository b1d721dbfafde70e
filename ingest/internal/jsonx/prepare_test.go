package jsonx

import (
	"bytes"
	"reflect"
	"sync"
	"testing"
	"time"
)

type prepA struct {
	A int64 `json:"a"`
}
type prepB struct {
	B []string `json:"b"`
}
type prepC struct {
	C map[string]int `json:"c"`
}
type prepAllocs struct{ N int }
type prepD struct {
	D *prepA `json:"d"`
}

func isPrepared(v any, enc bool) bool {
	i := 0
	if enc {
		i = 1
	}
	_, ok := prepared[i].Load(reflect.TypeOf(v))
	return ok
}

// TestPrepareAllocs: once a type is prepared, the guard allocates nothing.
func TestPrepareAllocs(t *testing.T) {
	var a prepAllocs
	prepare(&a, false)
	if n := testing.AllocsPerRun(100, func() { prepare(&a, false) }); n != 0 {
		t.Errorf("prepare of a prepared type: %v allocations, want 0", n)
	}
}

// TestPrepare: every entry point compiles the type under the lock before
// goccy uses it (the guard against goccy/go-json#495, see the package
// doc): after Unmarshal, Decoder.Decode, Marshal and Encoder.Encode of a
// type not met before, the type is prepared for that direction, and the
// value decoded or encoded is still right.
func TestPrepare(t *testing.T) {
	var a prepA
	if isPrepared(&a, false) {
		t.Fatal("prepA prepared before its first use")
	}
	if err := Unmarshal([]byte(`{"a":7}`), &a); err != nil || a.A != 7 || !isPrepared(&a, false) {
		t.Errorf("Unmarshal: %v, %+v, prepared %v", err, a, isPrepared(&a, false))
	}
	var b prepB
	if err := NewDecoder(bytes.NewReader([]byte(`{"b":["x"]}`))).Decode(&b); err != nil || len(b.B) != 1 || !isPrepared(&b, false) {
		t.Errorf("Decode: %v, %+v, prepared %v", err, b, isPrepared(&b, false))
	}
	c := prepC{C: map[string]int{"k": 1}}
	if out, err := Marshal(c); err != nil || string(out) != `{"c":{"k":1}}` || !isPrepared(c, true) {
		t.Errorf("Marshal: %s, %v, prepared %v", out, err, isPrepared(c, true))
	}
	var buf bytes.Buffer
	d := prepD{D: &prepA{A: 2}}
	if err := NewEncoder(&buf).Encode(d); err != nil || buf.String() != "{\"d\":{\"a\":2}}\n" || !isPrepared(d, true) {
		t.Errorf("Encode: %q, %v, prepared %v", buf.String(), err, isPrepared(d, true))
	}
	if isPrepared(d, false) {
		t.Error("encoding prepared the decoder too")
	}
}

type race1 struct{ X, Y int64 }
type race2 struct{ S []race1 }
type race3 struct{ M map[string]race2 }
type race4 struct {
	P *race3
	Q string
}

// TestPrepareConcurrent decodes types not met before from many goroutines
// released at once, the pattern of the importers' workers; each value must
// decode whole.
func TestPrepareConcurrent(t *testing.T) {
	doc := []byte(`{"P":{"M":{"k":{"S":[{"X":1,"Y":2}]}}},"Q":"q"}`)
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan string, 64)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var v race4
			if err := Unmarshal(doc, &v); err != nil || v.Q != "q" || v.P == nil || v.P.M["k"].S[0].Y != 2 {
				errs <- "decoded wrong"
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// prepNested decodes itself with Unmarshal, as ingest's ohInt does.
type prepNested struct{ N int64 }

func (p *prepNested) UnmarshalJSON(b []byte) error {
	var inner struct {
		N int64 `json:"n"`
	}
	if err := Unmarshal(b, &inner); err != nil {
		return err
	}
	p.N = inner.N
	return nil
}

type prepOuter struct {
	X prepNested `json:"x"`
}

// TestPrepareNestedUnmarshal: a type met for the first time whose
// UnmarshalJSON calls Unmarshal decodes, and does not wait forever for the
// guard's lock (an OpenHands import hung on its first ohInt: prepare ran
// the UnmarshalJSON under the lock, and the inner Unmarshal asked for it).
func TestPrepareNestedUnmarshal(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		v    any // a type not decoded before
	}{
		{"the type itself", `{"n":7}`, new(prepNested)},
		{"as a field", `{"x":{"n":7}}`, new(prepOuter)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- Unmarshal([]byte(tc.in), tc.v) }()
			select {
			case err := <-done:
				var n int64
				switch v := tc.v.(type) {
				case *prepNested:
					n = v.N
				case *prepOuter:
					n = v.X.N
				}
				if err != nil || n != 7 {
					t.Fatalf("Unmarshal: %v, N = %d; want nil, 7", err, n)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Unmarshal of a type whose UnmarshalJSON calls Unmarshal did not return in 10 s (deadlock)")
			}
		})
	}
}
