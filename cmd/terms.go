package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/internal/glossary"
)

// NewTermsCmd builds the help topic `trajmine help terms`: the glossary
// (internal/glossary), each term on its line and its definition under it,
// wrapped to the terminal.
func NewTermsCmd(d *Deps) *cobra.Command {
	c := &cobra.Command{
		Use:   "terms",
		Short: "Glossary: what the words in trajmine's output mean (as-logged, cost ×, CI, …)",
	}
	c.SetHelpFunc(func(c *cobra.Command, _ []string) { writeTerms(c.OutOrStdout(), d.width()) })
	return c
}

// writeTerms prints the glossary wrapped to width (≤ 0: one line a
// definition).
func writeTerms(w io.Writer, width int) {
	printWrapped(w, width, "Words with a meaning of their own in trajmine's output (the page's glossary says the same):")
	for _, t := range glossary.Terms {
		fmt.Fprintln(w)
		fmt.Fprintln(w, t.Name)
		printIndented(w, width, "  ", "  ", t.Definition)
	}
}
