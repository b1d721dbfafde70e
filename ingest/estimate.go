package ingest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// Estimator estimates the tokens of a text. Implementations must be safe for
// concurrent use and deterministic.
type Estimator interface {
	Name() string
	Count(text string) int64
}

// CharsPerToken is the DTOC heuristic: ceil(chars/4).
type CharsPerToken struct{}

// Name returns "chars4".
func (CharsPerToken) Name() string { return "chars4" }

// Count returns ceil(runes/4).
func (c CharsPerToken) Count(text string) int64 {
	return c.ofRunes(int64(utf8.RuneCountInString(text)))
}

// ofRunes is Count of a text of n runes.
func (CharsPerToken) ofRunes(n int64) int64 { return (n + 3) / 4 }

// validRuneCount is utf8.RuneCountInString of s, which must be valid
// UTF-8: in valid UTF-8 every rune has exactly one byte that is not a
// continuation byte (10xxxxxx), so the count is the bytes less the
// continuation bytes, found eight at a time (a byte is one when its top
// bit is set and the next one down is not). RuneCountInString decodes rune
// by rune (~6× slower on ASCII); on invalid UTF-8 the two differ (it
// counts each byte of an invalid sequence as a rune), so the caller must
// know s is valid.
func validRuneCount(s string) int {
	const hi = 0x8080808080808080
	cont := 0
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		cont += bits.OnesCount64(w &^ (w << 1) & hi)
	}
	for ; i < len(s); i++ {
		if s[i]&0xc0 == 0x80 {
			cont++
		}
	}
	return len(s) - cont
}

// BPE counts tokens exactly with an OpenAI encoding (vocabulary embedded in
// the binary, no download).
type BPE struct {
	name string
	enc  tokenizer.Codec
	err  error
}

// NewBPE returns an exact counter for "o200k_base" or "cl100k_base".
func NewBPE(encoding string) (*BPE, error) {
	var id tokenizer.Encoding
	switch encoding {
	case "o200k_base", "o200k":
		id = tokenizer.O200kBase
	case "cl100k_base", "cl100k":
		id = tokenizer.Cl100kBase
	default:
		return nil, fmt.Errorf("unknown BPE encoding %q (want o200k_base or cl100k_base)", encoding)
	}
	b := &BPE{name: string(id)}
	b.enc, b.err = tokenizer.Get(id)
	if b.err != nil {
		return nil, fmt.Errorf("load %s: %w", id, b.err)
	}
	return b, nil
}

// Name returns the encoding name.
func (b *BPE) Name() string { return b.name }

// Count returns the exact number of BPE tokens of text.
func (b *BPE) Count(text string) int64 {
	if text == "" {
		return 0
	}
	n, err := b.enc.Count(text)
	if err != nil { // cannot happen for valid encodings; fall back rather than lose the row
		return CharsPerToken{}.Count(text)
	}
	return int64(n)
}

// Calibrated scales a base estimator by a per-model factor fitted on logged
// usage (see trajmine calibrate). Models without a factor use 1.
type Calibrated struct {
	Base    Estimator
	Factors map[string]float64 // model family → factor
	Family  string             // family of the run being estimated
}

// Name returns "calibrated(<base>)".
func (c *Calibrated) Name() string { return "calibrated(" + c.Base.Name() + ")" }

// Count returns round(factor × base count).
func (c *Calibrated) Count(text string) int64 {
	f, ok := c.Factors[c.Family]
	if !ok {
		f = 1
	}
	return int64(math.Round(f * float64(c.Base.Count(text))))
}

// EstimatorByName returns the estimator named by a --tokenizer flag value:
// chars4 (default), o200k_base, cl100k_base.
func EstimatorByName(name string) (Estimator, error) {
	switch strings.ToLower(name) {
	case "", "chars4", "chars/4":
		return CharsPerToken{}, nil
	case "o200k_base", "o200k", "cl100k_base", "cl100k":
		return NewBPE(strings.ToLower(name))
	}
	return nil, fmt.Errorf("unknown tokenizer %q (want chars4, o200k_base or cl100k_base)", name)
}
