package cmd

import (
	"encoding/json"
	"io"

	"github.com/trajmine/trajmine/internal/textfmt"
)

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func writeJSONCompact(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// The formats shared with the page and the verdicts (internal/textfmt).
var (
	humanBytes = textfmt.Bytes
	thousands  = textfmt.Thousands
	snippet    = textfmt.Line // one line, control characters as "?"
	countOf    = textfmt.CountOf
	pct        = textfmt.Pct
	orDash     = textfmt.OrDash
)
