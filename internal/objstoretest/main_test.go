//go:build unix

// Package objstoretest runs the `hudi` binary against tables on real object-store
// servers (.ci/run starts them: versitygw for S3, HUDI_TEST_S3): the Spark-written
// fixtures read through s3://, writes and table services with the table on S3, checked
// after download, and writers racing on S3.
//
// The binary is built once by TestMain (HUDI_BIN overrides it). The test binary doubles
// as the fixture checker's reader command (HUDI_OBJSTORE_READER=1): it uploads the table
// folder it is given and runs `hudi read s3://…` on the copy.
package objstoretest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/storage"
	_ "github.com/hudi-go/hudi/storage/s3"
)

var hudiBin string

func TestMain(m *testing.M) {
	if os.Getenv("HUDI_OBJSTORE_READER") == "1" {
		os.Exit(readerMain(os.Args[1:]))
	}
	os.Exit(testutil.RunWithHudiBinary(m, "objstoretest", &hudiBin))
}

// readerMain is the fixture checker's reader: TABLE [read args…]. It uploads the local
// folder TABLE under $HUDI_OBJSTORE_URL/<hash of TABLE>/<name> (once: the checker runs
// several checks against one extracted table) and runs
// `$HUDI_BIN read <url> [read args…] --set <storage settings>`.
func readerMain(args []string) int {
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, "usage: TABLE [hudi read args]")
		return 2
	}
	local, err := filepath.Abs(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	settings := map[string]string{}
	for _, kv := range strings.Split(os.Getenv("HUDI_OBJSTORE_SETTINGS"), "\n") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			settings[k] = v
		}
	}
	sum := sha256.Sum256([]byte(local))
	url := fmt.Sprintf("%s/%s/%s", strings.TrimSuffix(os.Getenv("HUDI_OBJSTORE_URL"), "/"), hex.EncodeToString(sum[:6]), filepath.Base(local))
	ctx := context.Background()
	st, err := storage.OpenURL(ctx, url, settings)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := st.Stat(ctx, ".hoodie/hoodie.properties"); errors.Is(err, storage.ErrNotExist) {
		if err := upload(ctx, local, st); err != nil {
			fmt.Fprintln(os.Stderr, "upload:", err)
			return 1
		}
	}
	cmdArgs := append([]string{"read", url}, args[1:]...)
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cmdArgs = append(cmdArgs, "--set", k+"="+settings[k])
	}
	cmd := exec.Command(os.Getenv("HUDI_BIN"), cmdArgs...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// upload copies every file under the local folder dir to st, hoodie.properties last (a
// half-uploaded table is not taken for a whole one by the next reader).
func upload(ctx context.Context, dir string, st storage.Storage) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return err
	}
	sort.SliceStable(files, func(i, j int) bool {
		return !strings.HasSuffix(files[i], "hoodie.properties") && strings.HasSuffix(files[j], "hoodie.properties")
	})
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			return err
		}
		if err := st.Put(ctx, f, b); err != nil {
			return err
		}
	}
	return nil
}
