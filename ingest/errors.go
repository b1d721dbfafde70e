package ingest

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// SyntaxError is a positioned input problem; Error returns "file:line: msg",
// or "file: where: msg" for a place that is not a line (a SQLite store's
// "table T row N").
type SyntaxError struct {
	File  string
	Line  int64
	Where string
	Msg   string
}

func (e *SyntaxError) Error() string {
	if e.Where != "" {
		return fmt.Sprintf("%s: %s: %s", e.File, e.Where, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// ErrUnknownFormat is returned (wrapped) when no importer recognises a file.
var ErrUnknownFormat = errors.New("unknown format")

// ErrAmbiguousFormat is returned (wrapped) when several importers recognise a file.
var ErrAmbiguousFormat = errors.New("ambiguous format")

// unknownFormatError names the formats that were tried.
func unknownFormatError(path string) error {
	return fmt.Errorf("%s: %w (tried: %s)", path, ErrUnknownFormat, strings.Join(FormatNames(), ", "))
}

// clipErr is err's text for a reject reason: a JSON decoder's words put
// plainly (jsonx.Explain: "field usage.input_tokens: a number was expected,
// got \"3\""), cut to 160 bytes (and "…") on a character boundary.
func clipErr(err error) string {
	s := jsonx.Explain(err, nil).Error()
	if len(s) > 160 {
		cut := 160
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// syntaxReason is clipErr for the error of splitting or validating a whole
// JSON document, where an unexpected EOF means the document is cut off.
func syntaxReason(err error) string {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return jsonx.CutOff
	}
	return clipErr(err)
}
