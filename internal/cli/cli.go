// Package cli is the `hudi` command tree. Each command computes a typed result and renders
// it as text or JSON; stdout carries only results, errors go to stderr.
//
// Exit status: 0 success, 1 runtime error, 2 usage error, 3 a write committed but an
// inline table service after it failed (the result is printed: do not retry the write).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/config"
)

// Exit codes of the CLI contract.
const (
	ExitOK      = 0
	ExitRuntime = 1
	ExitUsage   = 2
	// ExitServiceFailed: the write committed (its result is on stdout, instant included),
	// then an inline table service (compaction, clustering, clean, archival) failed.
	// Retrying the write would write its rows twice.
	ExitServiceFailed = 3
)

// usageError marks errors in how the command was called.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// env is what commands write to, and the settings file they read.
type env struct {
	stdout, stderr io.Writer
	logger         *slog.Logger
	isTerminal     bool
	// confDir holds hudi-defaults.conf: $HUDI_CONF_DIR, else /etc/hudi/conf (Java's
	// DFSPropertiesConfiguration).
	confDir string

	defaultsOnce sync.Once
	defaultsMap  map[string]string
	defaultsErr  error
}

// DefaultConfDir is where hudi-defaults.conf is read from without $HUDI_CONF_DIR, as in
// Java.
const DefaultConfDir = "/etc/hudi/conf"

// defaults reads hudi-defaults.conf once: its settings go under every command's --set
// (--set wins). A missing file is no error (Java logs and goes on); a malformed one is.
func (e *env) defaults() (map[string]string, error) {
	e.defaultsOnce.Do(func() {
		p := filepath.Join(e.confDir, "hudi-defaults.conf")
		f, err := os.Open(p)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				e.defaultsErr = fmt.Errorf("settings file %s: %w", p, err)
			}
			return
		}
		defer f.Close()
		c, warnings, err := config.ParseDefaultsFile(f)
		if err != nil {
			e.defaultsErr = fmt.Errorf("settings file %s: %w", p, err)
			return
		}
		for _, w := range warnings {
			e.logger.Warn(p + ": " + w)
		}
		e.defaultsMap = c.Explicit()
	})
	return e.defaultsMap, e.defaultsErr
}

// Main runs the CLI with args (without the program name) and returns the exit status.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, stdoutIsTerminal bool) int {
	// Progress lines, activity lines and log records reach stderr from several goroutines
	// (a SQL write's progress callbacks beside the query's activity ticker).
	stderr = &lockedWriter{w: stderr}
	e := &env{stdout: stdout, stderr: stderr, isTerminal: stdoutIsTerminal,
		logger: slog.New(&plainHandler{w: stderr, level: slog.LevelWarn}), confDir: os.Getenv("HUDI_CONF_DIR")}
	if e.confDir == "" {
		e.confDir = DefaultConfDir
	}
	root := &cobra.Command{
		Use:   "hudi",
		Short: "Apache Hudi tables without a JVM: create, write, read and query them with Spark SQL, run their table services",
		Long: `Apache Hudi tables without a JVM.

hudi reads Hudi tables (versions 6, 8 and 9) and writes version 6 (Hudi 0.14's format):
create and write tables, read them (snapshot, time travel, read-optimized, incremental),
query and change them with Spark SQL (hudi sql), and run their table services (compact,
cluster, clean, archive, rollback, savepoint).`,
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("hudi {{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newReadCmd(e), newDescribeCmd(e), newTimelineCmd(e), newCreateCmd(e), newWriteCmd(e), newCompactCmd(e),
		newCleanCmd(e), newArchiveCmd(e), newRollbackCmd(e), newSavepointCmd(e), newClusterCmd(e), newMetadataCmd(e),
		newVersionChangeCmd(e, false), newVersionChangeCmd(e, true))
	addSQLCommands(root, e)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(stderr, "hudi:", err)
	var se *hudi.ServiceError
	if errors.As(err, &se) {
		return ExitServiceFailed
	}
	var u usageError
	if errors.As(err, &u) || isCobraUsage(err) {
		return ExitUsage
	}
	return ExitRuntime
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// isCobraUsage recognizes cobra's own argument errors (unknown command, wrong arg count).
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "unknown flag", "unknown shorthand", "flag needs"} {
		if len(msg) >= len(p) && contains(msg, p) {
			return true
		}
	}
	return false
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// exactArgs is cobra.ExactArgs returning a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %d argument(s), got %d (see --help)", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}

// Version is hudi-go's version, set at build time with
// -ldflags "-X github.com/hudi-go/hudi/internal/cli.Version=…".
var Version = "0.1.0-dev"

// plainHandler prints log records as plain lines for people — "hudi: warning: message
// key=value …" — rather than slog's time=… level=WARN text.
type plainHandler struct {
	w     io.Writer
	level slog.Level
	attrs []slog.Attr
	mu    sync.Mutex
}

func (h *plainHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *plainHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("hudi: ")
	switch {
	case r.Level >= slog.LevelError:
		b.WriteString("error: ")
	case r.Level >= slog.LevelWarn:
		b.WriteString("warning: ")
	}
	b.WriteString(r.Message)
	write := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value.Any())
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *plainHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &plainHandler{w: h.w, level: h.level, attrs: append(append([]slog.Attr{}, h.attrs...), attrs...)}
}

func (h *plainHandler) WithGroup(string) slog.Handler { return h }
