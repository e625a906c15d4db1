//go:build !nosql

package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hudi-go/hudi"
	hsql "github.com/hudi-go/hudi/internal/sql"
	"github.com/hudi-go/hudi/internal/sql/parser"
)

// addSQLCommands registers `hudi sql` and `hudi quickstart` (this build links DuckDB).
func addSQLCommands(root *cobra.Command, e *env) {
	root.AddCommand(newSQLCmd(e), newQuickstartCmd(e))
}

// sqlFlags are the flags `hudi sql` and `hudi quickstart` share.
type sqlFlags struct {
	warehouse, timezone, format, progress string
	sets                                  []string
	// writes receives the progress of the running statement's writes (see runScript).
	writes *progressPrinter
}

func (f *sqlFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.timezone, "timezone", "", "session time zone for TIMESTAMP literals (spark.sql.session.timeZone; default: the system zone)")
	fl.StringVar(&f.format, "format", "table", "result format: table, jsonl or csv")
	fl.StringArrayVar(&f.sets, "set", nil, "session setting key=value, as SET does (repeatable)")
	fl.StringVar(&f.progress, "progress", "auto", "progress lines on stderr for long statements: auto (once one runs 2 s), always or never")
}

func (f *sqlFlags) options(e *env) (hsql.Options, error) {
	if f.format != hsql.FormatTable && f.format != hsql.FormatJSONL && f.format != hsql.FormatCSV {
		return hsql.Options{}, usagef("--format %q: want table, jsonl or csv", f.format)
	}
	if err := checkProgressMode(f.progress); err != nil {
		return hsql.Options{}, err
	}
	settings, err := e.parseSettings(f.sets)
	if err != nil {
		return hsql.Options{}, err
	}
	return hsql.Options{Warehouse: f.warehouse, TimeZone: f.timezone, Settings: settings, Logger: e.logger,
		Progress: func(p hudi.WriteProgress) { f.writes.report(p) }, StreamResults: true}, nil
}

func newSQLCmd(e *env) *cobra.Command {
	var f sqlFlags
	var stmt, file string
	cmd := &cobra.Command{
		Use:   "sql [-e STMT | -f FILE]",
		Short: "Run Spark SQL on Hudi tables: CREATE/INSERT/UPDATE/DELETE/MERGE/SELECT, time travel, CALL procedures",
		Long: `Run Spark SQL statements on Hudi tables in a warehouse directory.

Tables are named through the warehouse's catalog (CREATE TABLE t … USING HUDI puts t
under --warehouse and remembers it), or by path: hudi.` + "`/data/t`" + `. Queries can use
everything DuckDB offers, TIMESTAMP AS OF '<instant>' and
hudi_table_changes('t', 'latest_state', '<begin>'[, '<end>']).

With -e the statements of STMT run, with -f those of FILE (- for stdin); without either,
an interactive prompt reads statements ending in ';' when stdin is a terminal, and the
statements of stdin otherwise. Scripts stop at the first failing statement.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if stmt != "" && file != "" {
				return usagef("-e and -f cannot be combined")
			}
			o, err := f.options(e)
			if err != nil {
				return err
			}
			eng, err := hsql.Open(cmd.Context(), o)
			if err != nil {
				return err
			}
			defer eng.Close()
			in := cmd.InOrStdin()
			switch {
			case stmt != "":
				return runScript(cmd.Context(), e, eng, stmt, &f)
			case file == "-":
				b, err := io.ReadAll(in)
				if err != nil {
					return err
				}
				return runScript(cmd.Context(), e, eng, string(b), &f)
			case file != "":
				b, err := os.ReadFile(file)
				if err != nil {
					return err
				}
				if err := runScript(cmd.Context(), e, eng, string(b), &f); err != nil {
					return fmt.Errorf("%s: %w", file, err)
				}
				return nil
			}
			if fd, ok := in.(*os.File); ok && term.IsTerminal(int(fd.Fd())) {
				return repl(cmd.Context(), e, eng, fd, f.format)
			}
			b, err := io.ReadAll(in)
			if err != nil {
				return err
			}
			return runScript(cmd.Context(), e, eng, string(b), &f)
		},
	}
	cmd.Flags().StringVarP(&stmt, "execute", "e", "", "statements to run (';'-separated)")
	cmd.Flags().StringVarP(&file, "file", "f", "", "file of statements to run (- for stdin)")
	cmd.Flags().StringVar(&f.warehouse, "warehouse", "hudi-warehouse", "warehouse directory: the catalog and managed tables")
	f.register(cmd)
	return cmd
}

// runScript runs statements in order, each parsed just before it runs, printing each
// result; it stops at the first error — a statement that does not parse included — after
// the statements before it ran, as spark-sql runs a script. A statement running longer
// than 2 s shows progress on stderr: its writes' phases, and a line every 5 s otherwise.
func runScript(ctx context.Context, e *env, eng *hsql.Engine, script string, f *sqlFlags) error {
	return parser.ParseEach(script, func(st parser.Statement) error {
		stop := startActivity(e.stderr, f.progress, statementLabel(st))
		f.writes, _ = newProgressPrinter(e.stderr, f.progress)
		r, err := eng.Exec(ctx, st)
		stop()
		f.writes = nil
		if err != nil {
			return err
		}
		defer r.Release()
		return hsql.WriteResult(e.stdout, e.stderr, r, f.format)
	})
}

// statementLabel names a statement in progress lines.
func statementLabel(st parser.Statement) string {
	line := fmt.Sprintf(" (line %d)", st.Position().Line)
	switch s := st.(type) {
	case *parser.Select:
		return "query" + line
	case *parser.Insert:
		return "INSERT INTO " + s.Table.String() + line
	case *parser.CreateTable:
		return "CREATE TABLE " + s.Table.String() + line
	case *parser.Update:
		return "UPDATE " + s.Table.String() + line
	case *parser.Delete:
		return "DELETE FROM " + s.Table.String() + line
	case *parser.Merge:
		return "MERGE INTO " + s.Target.String() + line
	case *parser.Call:
		return "CALL " + s.Procedure + line
	}
	return "statement" + line
}

// repl is the interactive prompt: lines are collected until a statement ends with ';',
// then run; errors are printed and the session goes on. Up/down recall earlier
// statements, also from earlier sessions (~/.hudi_sql_history).
func repl(ctx context.Context, e *env, eng *hsql.Engine, in *os.File, format string) error {
	state, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return err
	}
	defer term.Restore(int(in.Fd()), state)
	t := term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{in, e.stdout}, "hudi-sql> ")
	hist := loadHistory()
	t.History = hist
	if w, h, err := term.GetSize(int(in.Fd())); err == nil && w > 0 && h > 0 { // a pty without a size reports 0x0
		t.SetSize(w, h)
	}
	fmt.Fprintf(t, "hudi sql — warehouse %s; statements end with ';', exit with quit or Ctrl-D\n", eng.Warehouse())
	var buf strings.Builder
	for {
		line, err := t.ReadLine()
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(t)
			return nil
		}
		if err != nil {
			return err
		}
		trimmed := strings.TrimSpace(line)
		if buf.Len() == 0 {
			switch strings.ToLower(strings.TrimSuffix(trimmed, ";")) {
			case "quit", "exit", `\q`:
				return nil
			case "":
				continue
			}
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		if !statementComplete(buf.String()) {
			t.SetPrompt("       -> ")
			continue
		}
		script := buf.String()
		buf.Reset()
		t.SetPrompt("hudi-sql> ")
		hist.add(strings.Join(strings.Fields(script), " "))
		err = eng.Run(ctx, script, func(_ parser.Statement, r *hsql.Result) error {
			return hsql.WriteResult(t, t, r, format)
		})
		if err != nil {
			fmt.Fprintln(t, "error:", err)
		}
	}
}

// statementComplete reports whether text ends with ';' outside quotes and comments.
func statementComplete(text string) bool {
	last := byte(0)
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(text) && (text[j] != c || text[j-1] == '\\') {
				j++
			}
			if j >= len(text) {
				return false
			}
			i, last = j, c
			continue
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return false
			}
			i += end + 3
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		last = c
	}
	return last == ';'
}

// fileHistory is the prompt's history, kept in memory (newest last) and appended to a
// file so later sessions can recall it.
type fileHistory struct {
	lines []string
	path  string
}

const maxHistory = 1000

func loadHistory() *fileHistory {
	h := &fileHistory{}
	home, err := os.UserHomeDir()
	if err != nil {
		return h
	}
	h.path = filepath.Join(home, ".hudi_sql_history")
	if f, err := os.Open(h.path); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if l := sc.Text(); l != "" {
				h.lines = append(h.lines, l)
			}
		}
		f.Close()
	}
	if len(h.lines) > maxHistory {
		h.lines = h.lines[len(h.lines)-maxHistory:]
	}
	return h
}

// Add is called by the terminal for every line read. It does nothing: the prompt records
// whole statements (which may span lines) with add.
func (h *fileHistory) Add(string) {}

// add records a statement.
func (h *fileHistory) add(entry string) {
	if n := len(h.lines); n > 0 && h.lines[n-1] == entry {
		return
	}
	h.lines = append(h.lines, entry)
	if h.path == "" {
		return
	}
	// History is a convenience: a failure to save it is not worth interrupting the session.
	if f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		fmt.Fprintln(f, entry)
		f.Close()
	}
}

func (h *fileHistory) Len() int { return len(h.lines) }

func (h *fileHistory) At(idx int) string { return h.lines[len(h.lines)-1-idx] }
