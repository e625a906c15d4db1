package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RunWithHudiBinary is the TestMain of a package whose tests run the hudi command as
// real processes: it sets *bin to $HUDI_BIN, or to a binary it builds for the run and
// removes afterwards, then runs the tests and returns their exit code. The binary is
// built without SQL (-tags nosql) and without cgo: such tests run no `hudi sql`, and the
// binary without DuckDB links in a fraction of the time and starts each of the hundreds of
// processes the tests run from a quarter of the bytes. name names the package in a build
// failure.
func RunWithHudiBinary(m *testing.M, name string, bin *string) int {
	if b := os.Getenv("HUDI_BIN"); b != "" {
		*bin = b
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "hudi-"+name+"-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	*bin = filepath.Join(dir, "hudi")
	build := exec.Command("go", "build", "-tags", "nosql", "-o", *bin, "github.com/hudi-go/hudi/cmd/hudi")
	// Without cgo, as internal/cli's TestNoSQLBuild builds it: the same build configuration
	// compiles the packages once for every test binary that builds the command (a cgo and a
	// pure build would each compile the standard library and every dependency).
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: building the hudi binary: %v\n", name, err)
		return 1
	}
	return m.Run()
}
