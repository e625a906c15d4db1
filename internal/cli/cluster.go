package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hudi-go/hudi"
)

func newClusterCmd(e *env) *cobra.Command {
	var schedule, run, dryRun bool
	var format, progress string
	var sets []string
	cmd := &cobra.Command{
		Use:   "cluster TABLE",
		Short: "Cluster small file groups: schedule a plan (--schedule), run pending plans (--run), or both",
		Long: `Cluster a table (table version 6, 8 or 9, copy-on-write or merge-on-read).

--schedule plans a clustering as Hudi 0.14's size-based strategy does: in each partition,
the latest file slices whose base file is smaller than
hoodie.clustering.plan.strategy.small.file.limit are packed into groups of at most
hoodie.clustering.plan.strategy.max.bytes.per.group (at most
hoodie.clustering.plan.strategy.max.num.groups groups), and the plan is written as
<instant>.replacecommit.requested (version 6) or <instant>.clustering.requested (8, 9).
--run executes every pending clustering — one left by a killed run is rolled back and
re-executed — and commits it as <instant>.replacecommit.
Without either flag both happen. --dry-run prints the plan --schedule would write and
changes nothing. Rows keep their commit time unless
hoodie.clustering.preserve.commit.metadata=false; sort with
--set hoodie.clustering.plan.strategy.sort.columns=a,b.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkProgressMode(progress); err != nil {
				return err
			}
			if format != "text" && format != "json" {
				return usagef("--format %q: want text or json", format)
			}
			if dryRun && run {
				return usagef("--dry-run cannot be combined with --run")
			}
			t, settings, err := e.openWithSettings(cmd.Context(), args[0], sets)
			if err != nil {
				return err
			}
			stop := startActivity(e.stderr, progress, "cluster "+args[0])
			res, err := t.Cluster(cmd.Context(), hudi.ClusterOptions{Schedule: schedule, Run: run, DryRun: dryRun, Settings: settings})
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
			for _, rb := range res.RolledBack {
				fmt.Fprintf(e.stdout, "rolled back a killed clustering run: rollback %s\n", rb)
			}
			switch {
			case res.Completed:
				fmt.Fprintf(e.stdout, "clustered: instant %s, %d files, %d bytes\n", res.Instant, res.FilesWritten, res.Bytes)
			case res.Scheduled != "":
				fmt.Fprintf(e.stdout, "scheduled clustering %s\n", res.Scheduled)
			case dryRun && res.Plan != nil:
				fmt.Fprintln(e.stdout, "would schedule a clustering of:")
			default:
				fmt.Fprintln(e.stdout, res.Message)
			}
			if res.Plan != nil && (dryRun || res.Scheduled != "" && !res.Completed) {
				for i, g := range res.Plan.Groups {
					part := g.Partition
					if part == "" {
						part = "(non-partitioned)"
					}
					fmt.Fprintf(e.stdout, "  group %d: partition %s, %d file groups, %d bytes → %d file group(s): %s\n",
						i, part, len(g.FileIDs), g.InputBytes, g.NumOutputFileGroups, strings.Join(g.FileIDs, " "))
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&schedule, "schedule", false, "plan a clustering")
	f.BoolVar(&run, "run", false, "execute pending clusterings")
	f.BoolVar(&dryRun, "dry-run", false, "print the plan --schedule would write, change nothing")
	f.StringVar(&format, "format", "text", "output: text or json")
	f.StringVar(&progress, "progress", "auto", "progress lines on stderr: auto (once it runs 2 s), always or never")
	f.StringArrayVar(&sets, "set", nil, "any hoodie.* setting, key=value (repeatable)")
	return cmd
}
