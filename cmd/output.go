package cmd

import (
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
