package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hudi-go/hudi"
)

func newArchiveCmd(e *env) *cobra.Command {
	var dryRun bool
	var format string
	var sets []string
	cmd := &cobra.Command{
		Use:   "archive TABLE",
		Short: "Move old instants from the active timeline to the archived timeline",
		Long: `Archive old instants of a table (table version 6, 8 or 9), as Hudi 0.14 (version 6)
and Hudi 1.x (8, 9) do.

Completed commits are archived once there are more than hoodie.keep.max.commits (30) of
them, oldest first, until hoodie.keep.min.commits (20) remain; nothing at or after the
oldest pending write, the first savepoint, or a replacecommit the last clean has not
passed is archived. Version 6: completed cleans and rollbacks are bounded the same way,
and archived instants go to .hoodie/archived/.commits_.archive.<N>_1-0-1. Versions 8 and
9: the cleans and rollbacks older than the last commit archived go with them, into the
LSM timeline history (.hoodie/timeline/history: <first>_<last>_0.parquet, manifest_<N>,
_version_; hoodie.timeline.compaction.batch.size files of a layer are merged into the
next). The instants are then removed from the active timeline; "hudi timeline --archived"
lists them. --dry-run lists what would be archived.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usagef("--format %q: want text or json", format)
			}
			t, settings, err := e.openWithSettings(cmd.Context(), args[0], sets)
			if err != nil {
				return err
			}
			res, err := t.Archive(cmd.Context(), hudi.ArchiveOptions{DryRun: dryRun, Settings: settings, Logger: e.logger})
			if err != nil {
				return err
			}
			if format == "json" {
				b, err := json.Marshal(res)
				if err != nil {
					return err
				}
				fmt.Fprintln(e.stdout, string(b))
				return nil
			}
			verb := "archived"
			if res.DryRun {
				verb = "would archive"
			}
			if len(res.InstantsArchived) == 0 {
				fmt.Fprintln(e.stdout, res.Message)
				return nil
			}
			fmt.Fprintf(e.stdout, "%s %d instants", verb, len(res.InstantsArchived))
			if res.ArchiveFile != "" {
				fmt.Fprintf(e.stdout, " to %s (%d bytes)", res.ArchiveFile, res.Bytes)
			}
			fmt.Fprintln(e.stdout)
			for _, in := range res.InstantsArchived {
				fmt.Fprintf(e.stdout, "  %s %s (%s)\n", in.Instant, in.Action, strings.Join(in.States, ", "))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&dryRun, "dry-run", false, "list the instants that would be archived; change nothing")
	f.StringVar(&format, "format", "text", "output: text or json")
	f.StringArrayVar(&sets, "set", nil, "any hoodie.* setting, key=value (repeatable)")
	return cmd
}
