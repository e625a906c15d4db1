package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hudi-go/hudi"
)

func newCleanCmd(e *env) *cobra.Command {
	var dryRun bool
	var format, progress string
	var sets []string
	cmd := &cobra.Command{
		Use:   "clean TABLE",
		Short: "Delete file versions no longer needed by queries within the retention (--dry-run lists them)",
		Long: `Clean a table (table version 6, 8 or 9) as Hudi's cleaner does.

Pending cleans are finished first; then, when a commit happened since the last clean, a
plan is written as <instant>.clean.requested, its files are deleted and <instant>.clean
records what was deleted. The policy is hoodie.cleaner.policy: KEEP_LATEST_COMMITS
(hoodie.cleaner.commits.retained, default 10), KEEP_LATEST_FILE_VERSIONS
(hoodie.cleaner.fileversions.retained, default 3) or KEEP_LATEST_BY_HOURS
(hoodie.cleaner.hours.retained, default 24); setting just one retention key picks its
policy. Savepointed files and slices needed by pending compactions are never deleted.
--dry-run lists the files that would be deleted and changes nothing.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkProgressMode(progress); err != nil {
				return err
			}
			if format != "text" && format != "json" {
				return usagef("--format %q: want text or json", format)
			}
			t, settings, err := e.openWithSettings(cmd.Context(), args[0], sets)
			if err != nil {
				return err
			}
			stop := startActivity(e.stderr, progress, "clean "+args[0])
			res, err := t.Clean(cmd.Context(), hudi.CleanOptions{DryRun: dryRun, Settings: settings})
			stop()
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
			switch {
			case res.DryRun && len(res.Files) > 0:
				for _, f := range res.Files {
					fmt.Fprintln(e.stdout, f)
				}
				fmt.Fprintf(e.stdout, "dry run: would delete %d files, %d bytes\n", res.FilesDeleted, res.BytesDeleted)
			case res.Instant != "":
				fmt.Fprintf(e.stdout, "cleaned: instant %s, %d files deleted, %d bytes", res.Instant, res.FilesDeleted, res.BytesDeleted)
				if res.EarliestInstantToRetain != "" {
					fmt.Fprintf(e.stdout, ", earliest instant retained %s", res.EarliestInstantToRetain)
				}
				fmt.Fprintln(e.stdout)
			default:
				fmt.Fprintln(e.stdout, res.Message)
			}
			for _, p := range res.PartitionsDeleted {
				fmt.Fprintf(e.stdout, "partition deleted: %s\n", p)
			}
			if len(res.RolledBack) > 0 {
				fmt.Fprintf(e.stdout, "rolled back failed writes: %v\n", res.RolledBack)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&dryRun, "dry-run", false, "list what would be deleted; change nothing")
	f.StringVar(&format, "format", "text", "output: text or json")
	f.StringVar(&progress, "progress", "auto", "progress lines on stderr: auto (once it runs 2 s), always or never")
	f.StringArrayVar(&sets, "set", nil, "any hoodie.* setting, key=value (repeatable)")
	return cmd
}
