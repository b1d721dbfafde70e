package cmd

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/spf13/cobra"
	"github.com/trajmine/trajmine/internal/textfmt"
)

// Terminal is where a command prints and how its tables fit there; the
// options of every command that prints tables embed it.
type Terminal struct {
	Out   io.Writer
	Width int  // fit tables to this many columns (0: no limit)
	Bold  bool // bold table headers (a terminal that wants them)
}

// setTerminal points t at c's standard output and d's terminal: its width
// and whether it takes bold.
func (t *Terminal) setTerminal(c *cobra.Command, d *Deps) {
	t.Out, t.Width, t.Bold = c.OutOrStdout(), d.width(), d.bold()
}

func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeC1(buf.Bytes()))
	return err
}

func writeJSONCompact(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(escapeC1(b))
	return err
}

// escapeC1 writes the C1 controls U+0080–U+009F of encoded JSON as \u00XX
// escapes. encoding/json escapes the C0 controls (ESC among them) but not
// these, and a terminal acts on them (U+009B is a CSI: issue 31.6); in
// valid JSON they can only stand inside strings, where the escape decodes
// to the same character, so the output means the same to any reader.
func escapeC1(b []byte) []byte {
	if !bytes.Contains(b, []byte{0xc2}) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); i++ {
		if b[i] == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f {
			out = append(out, '\\', 'u', '0', '0', hexDigit[b[i+1]>>4], hexDigit[b[i+1]&15])
			i++
			continue
		}
		out = append(out, b[i])
	}
	return out
}

const hexDigit = "0123456789abcdef"

// The formats shared with the page and the verdicts (internal/textfmt).
var (
	humanBytes = textfmt.Bytes
	thousands  = textfmt.Thousands
	snippet    = textfmt.Line // one line, control characters as "?"
	countOf    = textfmt.CountOf
	pct        = textfmt.Pct
	orDash     = textfmt.OrDash
)
