package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hudi-go/hudi"
)

func newCompactCmd(e *env) *cobra.Command {
	var schedule, run bool
	var format, progress string
	var sets []string
	cmd := &cobra.Command{
		Use:   "compact TABLE",
		Short: "Compact a merge-on-read table: schedule a plan (--schedule), run pending plans (--run), or both",
		Long: `Compact a merge-on-read table (table version 6, 8 or 9).

--schedule plans a compaction of every file group whose latest slice has log files
(largest logs first, bounded by hoodie.compaction.target.io MB) and writes
<instant>.compaction.requested. --run executes every pending compaction, including one
left by a killed run, and commits it as <instant>.commit. Without either flag both happen.`,
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
			stop := startActivity(e.stderr, progress, "compact "+args[0])
			res, err := t.Compact(cmd.Context(), hudi.CompactOptions{Schedule: schedule, Run: run, Settings: settings})
			stop()
			if err != nil {
				return err
			}
			if format == "json" {
				b, err := compactJSON(res)
				if err != nil {
					return err
				}
				fmt.Fprintln(e.stdout, string(b))
				return nil
			}
			switch {
			case res.Completed:
				fmt.Fprintf(e.stdout, "compacted: instant %s, %d files, %d bytes\n", res.Instant, res.FilesWritten, res.Bytes)
			case res.Scheduled != "":
				fmt.Fprintf(e.stdout, "scheduled compaction %s\n", res.Scheduled)
			case res.Message != "":
				fmt.Fprintln(e.stdout, res.Message)
			default:
				fmt.Fprintln(e.stdout, "nothing to compact")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&schedule, "schedule", false, "plan a compaction")
	f.BoolVar(&run, "run", false, "execute pending compactions")
	f.StringVar(&format, "format", "text", "output: text or json")
	f.StringVar(&progress, "progress", "auto", "progress lines on stderr: auto (once it runs 2 s), always or never")
	f.StringArrayVar(&sets, "set", nil, "any hoodie.* setting, key=value (repeatable)")
	return cmd
}

// compactJSON is the result of compact as JSON (docs/cli.md): instant, action,
// operation and the counts appear only when a compaction completed, and a run with nothing to do says so
// in message instead of printing empty fields.
func compactJSON(res *hudi.CompactResult) ([]byte, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if !res.Completed {
		// Nothing was committed: no instant, action, operation or counts to report.
		for _, k := range []string{"instant", "action", "operation", "files_written", "bytes"} {
			delete(m, k)
		}
	}
	if !res.Completed && res.Scheduled == "" && res.Message == "" {
		m["message"] = "nothing to compact"
	}
	return json.Marshal(m)
}
