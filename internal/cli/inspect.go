package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/spec"
)

// TimelineEntry is one row of `hudi timeline`.
type TimelineEntry struct {
	Instant        string `json:"instant"`
	Action         string `json:"action"`
	State          string `json:"state"`
	CompletionTime string `json:"completion_time,omitempty"`
	Archived       bool   `json:"archived,omitempty"`
}

func newTimelineCmd(e *env) *cobra.Command {
	var format string
	var archived bool
	cmd := &cobra.Command{
		Use:   "timeline TABLE",
		Short: "List the table's instants: time, action, state and (v8+) completion time",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			t, err := hudi.Open(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			entries := timelineEntries(t)
			if archived {
				arch, err := t.Meta().Archived(cmd.Context())
				if err != nil {
					return err
				}
				for _, a := range arch {
					entries = append(entries, TimelineEntry{Instant: string(a.Instant.Time), Action: string(a.Instant.Action),
						State: a.Instant.State.String(), CompletionTime: string(a.Instant.Completion), Archived: true})
				}
				sort.SliceStable(entries, func(i, j int) bool {
					if entries[i].Instant != entries[j].Instant {
						return entries[i].Instant < entries[j].Instant
					}
					return stateRank(entries[i].State) < stateRank(entries[j].State)
				})
			}
			if format == "json" {
				return writeJSON(e.stdout, entries)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "INSTANT\tACTION\tSTATE\tCOMPLETED\tARCHIVED")
			for _, en := range entries {
				arch := ""
				if en.Archived {
					arch = "yes"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", en.Instant, en.Action, en.State, en.CompletionTime, arch)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().BoolVar(&archived, "archived", false, "include archived instants")
	return cmd
}

func timelineEntries(t *hudi.Table) []TimelineEntry {
	entries := []TimelineEntry{}
	for _, in := range t.Meta().Timeline.Instants {
		entries = append(entries, TimelineEntry{Instant: string(in.Time), Action: string(in.Action),
			State: in.State.String(), CompletionTime: string(in.Completion)})
	}
	return entries
}

func stateRank(s string) int {
	switch s {
	case "requested":
		return 0
	case "inflight":
		return 1
	}
	return 2
}

func checkFormat(f string) error {
	if f != "text" && f != "json" {
		return usagef("--format %q: want text or json", f)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Description is the result of `hudi describe`.
type Description struct {
	Name             string            `json:"name"`
	Database         string            `json:"database,omitempty"`
	Type             string            `json:"type"`
	Version          int               `json:"version"`
	RecordKeyFields  []string          `json:"record_key_fields"`
	PartitionFields  []string          `json:"partition_fields"`
	OrderingFields   []string          `json:"ordering_fields"`
	KeyGenerator     string            `json:"key_generator,omitempty"`
	Schema           []ColumnInfo      `json:"schema"`
	Partitions       []PartitionInfo   `json:"partitions"`
	FileGroups       int               `json:"file_groups"`
	TotalBytes       int64             `json:"total_bytes"`
	LatestInstant    string            `json:"latest_instant,omitempty"`
	CompletedCommits int               `json:"completed_commits"`
	Properties       map[string]string `json:"properties"`
}

// ColumnInfo is one schema column.
type ColumnInfo struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
}

// PartitionInfo summarizes one partition's latest file slices.
type PartitionInfo struct {
	Path       string `json:"path"`
	FileGroups int    `json:"file_groups"`
	BaseFiles  int    `json:"base_files"`
	LogFiles   int    `json:"log_files"`
	Bytes      int64  `json:"bytes"`
}

func newDescribeCmd(e *env) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "describe TABLE",
		Short: "Show a table's properties, schema, partitions, file groups and sizes",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			d, err := describe(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if format == "json" {
				return writeJSON(e.stdout, d)
			}
			return writeDescription(e.stdout, d)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

func describe(ctx context.Context, path string) (*Description, error) {
	t, err := hudi.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	m := t.Meta()
	d := &Description{Name: m.Config.Name(), Database: m.Config.Database(), Type: string(m.Type), Version: int(m.Version),
		RecordKeyFields: m.Config.RecordKeyFields(), PartitionFields: m.Config.PartitionFields(),
		OrderingFields: m.Config.OrderingFields(), KeyGenerator: m.Config.KeyGenerator(),
		Properties: m.Config.Props.Map(), Partitions: []PartitionInfo{}, Schema: []ColumnInfo{}}
	data := m.Timeline.DataInstants()
	d.CompletedCommits = len(data)
	if len(data) > 0 {
		d.LatestInstant = string(data[len(data)-1].Time)
	}
	scan, err := t.Scan(ctx, hudi.ScanOptions{})
	if err != nil {
		return nil, err
	}
	for _, f := range scan.Schema().Fields() {
		d.Schema = append(d.Schema, ColumnInfo{Name: f.Name, Type: f.Type.String(), Nullable: f.Nullable})
	}
	listing, err := m.List(ctx)
	if err != nil {
		return nil, err
	}
	view, err := m.View(ctx, listing, spec.InstantTime(""))
	if err != nil {
		return nil, err
	}
	byPart := map[string]*PartitionInfo{}
	for _, sl := range view.LatestSlices() {
		p := byPart[sl.Partition]
		if p == nil {
			p = &PartitionInfo{Path: sl.Partition}
			byPart[sl.Partition] = p
		}
		p.FileGroups++
		if sl.Base != nil {
			p.BaseFiles++
			p.Bytes += sl.Base.Size
		}
		for _, l := range sl.Logs {
			p.LogFiles++
			p.Bytes += l.Size
		}
	}
	for _, p := range byPart {
		d.Partitions = append(d.Partitions, *p)
		d.FileGroups += p.FileGroups
		d.TotalBytes += p.Bytes
	}
	sort.Slice(d.Partitions, func(i, j int) bool { return d.Partitions[i].Path < d.Partitions[j].Path })
	return d, nil
}

func writeDescription(w io.Writer, d *Description) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	name := d.Name
	if d.Database != "" {
		name = d.Database + "." + d.Name
	}
	fmt.Fprintf(tw, "Table:\t%s\n", name)
	fmt.Fprintf(tw, "Type:\t%s\n", d.Type)
	fmt.Fprintf(tw, "Table version:\t%d\n", d.Version)
	fmt.Fprintf(tw, "Record key:\t%s\n", strings.Join(d.RecordKeyFields, ", "))
	fmt.Fprintf(tw, "Partitioned by:\t%s\n", orNone(strings.Join(d.PartitionFields, ", ")))
	fmt.Fprintf(tw, "Ordering field:\t%s\n", orNone(strings.Join(d.OrderingFields, ", ")))
	fmt.Fprintf(tw, "Key generator:\t%s\n", orNone(d.KeyGenerator))
	fmt.Fprintf(tw, "Commits:\t%d (latest %s)\n", d.CompletedCommits, orNone(d.LatestInstant))
	fmt.Fprintf(tw, "File groups:\t%d in %d partition(s), %d bytes\n", d.FileGroups, len(d.Partitions), d.TotalBytes)
	fmt.Fprintln(tw, "\nSchema:")
	for _, c := range d.Schema {
		fmt.Fprintf(tw, "  %s\t%s\n", c.Name, c.Type)
	}
	if len(d.Partitions) > 0 {
		fmt.Fprintln(tw, "\nPartitions:\n  PATH\tFILE GROUPS\tBASE\tLOGS\tBYTES")
		for _, p := range d.Partitions {
			path := p.Path
			if path == "" {
				path = "(non-partitioned)"
			}
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\n", path, p.FileGroups, p.BaseFiles, p.LogFiles, p.Bytes)
		}
	}
	return tw.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
