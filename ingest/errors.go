package ingest

import (
	"errors"
	"fmt"
	"strings"
)

// SyntaxError is a positioned input problem; Error returns "file:line: msg".
type SyntaxError struct {
	File string
	Line int64
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ErrUnknownFormat is returned (wrapped) when no importer recognises a file.
var ErrUnknownFormat = errors.New("unknown format")

// ErrAmbiguousFormat is returned (wrapped) when several importers recognise a file.
var ErrAmbiguousFormat = errors.New("ambiguous format")

// unknownFormatError names the formats that were tried.
func unknownFormatError(path string) error {
	return fmt.Errorf("%s: %w (tried: %s)", path, ErrUnknownFormat, strings.Join(FormatNames(), ", "))
}

// clipErr is err's text cut to 160 bytes (and "…"), for a reject reason.
func clipErr(err error) string {
	s := err.Error()
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
