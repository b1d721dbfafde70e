package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

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
	var overwrite bool
	c := &cobra.Command{
		Use:   "parquet [--overwrite] DIR",
		Short: "Write every table as Hive-partitioned Parquet under DIR",
		Long: `Write every table to DIR/<table>/ as zstd Parquet, partitioned Hive-style by
source_format and model_family (sources and rejects by source_format), readable
by any Parquet engine, e.g.

  SELECT * FROM read_parquet('DIR/runs/*/*/*.parquet', hive_partitioning = true)

DIR must be empty or new. The export lists the files it wrote in
DIR/.trajmine-export.json; --overwrite lets DIR hold a previous export and
removes exactly those files first. Files no export wrote are never removed:
a non-empty DIR without that list is refused, --overwrite or not.

The export is not redacted: it is the store, log text as imported, secrets
included. (trajmine report's page and trajmine show redact what they
print; redacting every event of a store runs gitleaks' rules at a few MB/s,
minutes on a large store, so the export copies the tables as they are.
Redact the logs before sharing an export.)`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			st, err := d.open(c.Context(), true)
			if err != nil {
				return err
			}
			defer st.Close()
			counts, err := st.ExportParquet(c.Context(), args[0], overwrite)
			if err != nil {
				return err
			}
			printCounts(c.OutOrStdout(), counts)
			return nil
		},
	}
	c.Flags().BoolVar(&overwrite, "overwrite", false, "replace a previous export in DIR (only the files it wrote)")
	return c
}

func printCounts(w io.Writer, counts map[string]int64) {
	for _, t := range schema.Tables {
		fmt.Fprintf(w, "%-13s %s rows\n", t.Name, thousands(counts[t.Name]))
	}
}
