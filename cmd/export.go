package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/redact"
	"github.com/trajmine/trajmine/schema"
)

// NewExportCmd builds `trajmine export`.
func NewExportCmd(d *Deps) *cobra.Command {
	c := &cobra.Command{
		Use:   "export",
		Short: "Export the tables to other formats",
		Args:  usageArgs(cobra.NoArgs),
	}
	c.AddCommand(newExportParquetCmd(d))
	return c
}

func newExportParquetCmd(d *Deps) *cobra.Command {
	var overwrite, noRedact bool
	c := &cobra.Command{
		Use:   "parquet [--overwrite] [--no-redact] DIR",
		Short: "Write every table as Hive-partitioned Parquet under DIR",
		Long: `Write every table to DIR/<table>/ as zstd Parquet, partitioned Hive-style by
source_format and model_family (sources and rejects by source_format), readable
by any Parquet engine, e.g.

  SELECT * FROM read_parquet('DIR/runs/*/*/*.parquet', hive_partitioning = true)

DIR must be empty or new. The export lists the files it wrote in
DIR/.trajmine-export.json; --overwrite lets DIR hold a previous export and
removes exactly those files first. Files no export wrote are never removed:
a non-empty DIR without that list is refused, --overwrite or not.

The export is redacted as trajmine report's page and trajmine show are:
secrets in the text columns (API keys, tokens, passwords, passwords in
URLs, private keys, found by gitleaks' default rules and trajmine's URL
rule) are replaced with [REDACTED:<rule>], in log text, arguments,
targets, ids, paths and names alike (equal text gives equal text, so the
ids still join the tables); the columns trajmine fills from a closed set
(source_format, model_family, kind, end_reason, …) are copied. It prints
how many occurrences of secrets it replaced. Redaction runs gitleaks' rules over every
text value, which makes the export slower (BENCHMARKS.md). --no-redact
copies the tables as stored, secrets included, and says so on stderr.
The database is not changed.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			st, err := d.open(c.Context(), true)
			if err != nil {
				return err
			}
			defer st.Close()
			o := store.ExportOptions{Overwrite: overwrite}
			var red *redact.Redactor
			if noRedact {
				warnNotRedacted(c.ErrOrStderr(), args[0])
			} else {
				if red, err = redact.New(); err != nil {
					return err
				}
				o.Redact = red.String
			}
			counts, err := st.ExportParquet(c.Context(), args[0], o)
			if err != nil {
				return err
			}
			printCounts(c.OutOrStdout(), counts)
			printRedacted(c.OutOrStdout(), red)
			return nil
		},
	}
	c.Flags().BoolVar(&overwrite, "overwrite", false, "replace a previous export in DIR (only the files it wrote)")
	c.Flags().BoolVar(&noRedact, "no-redact", false, "export secrets found in text as stored (default: replaced with [REDACTED:<rule>])")
	return c
}

// warnNotRedacted is the one line an export with --no-redact prints on
// stderr: what it wrote holds the secrets of the logs.
func warnNotRedacted(w io.Writer, where string) {
	fmt.Fprintf(w, "warning: export is not redacted: %s holds the log text as imported, secrets included (--no-redact)\n", termSafe(where))
}

// printRedacted says how many secrets a redacted export replaced, each
// time it did (a secret in a run id is replaced in every row that holds
// it); nothing when red is nil: not redacted.
func printRedacted(w io.Writer, red *redact.Redactor) {
	if red != nil {
		fmt.Fprintf(w, "%s of secrets replaced with [REDACTED:<rule>] (--no-redact keeps them)\n", countOf(red.Count(), "occurrence"))
	}
}

func printCounts(w io.Writer, counts map[string]int64) {
	for _, t := range schema.Tables {
		fmt.Fprintf(w, "%-13s %s rows\n", t.Name, thousands(counts[t.Name]))
	}
}
