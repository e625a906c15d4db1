// Package testutil gives tests access to the Spark-written fixture tables in
// ../shared/fixtures (relative to the repository root), unzipped into a temp dir.
package testutil

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// RepoRoot returns the repository root (the directory holding go.mod).
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate testutil source")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// FixturesDir returns ../shared/fixtures beside the repository. Tests that need it fail
// (not skip) when it is absent: CI always provides it.
func FixturesDir(t testing.TB) string {
	t.Helper()
	d := filepath.Join(RepoRoot(t), "..", "shared", "fixtures")
	if _, err := os.Stat(filepath.Join(d, "tables")); err != nil {
		t.Fatalf("fixture tables not found at %s: %v", d, err)
	}
	return d
}

// Table unzips the fixture table id ("<group>/<name>", e.g. "mor-parquet/v6_nonpartitioned")
// into a fresh temp dir and returns the table base path (the dir holding .hoodie).
func Table(t testing.TB, id string) string {
	t.Helper()
	zipPath := filepath.Join(FixturesDir(t), "tables", id+".zip")
	dst := t.TempDir()
	if err := unzip(zipPath, dst); err != nil {
		t.Fatalf("unzip %s: %v", zipPath, err)
	}
	return filepath.Join(dst, filepath.Base(id))
}

// TableIDs lists every fixture table id ("<group>/<name>").
func TableIDs(t testing.TB) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(FixturesDir(t), "tables", "*", "*.zip"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range matches {
		ids = append(ids, filepath.Base(filepath.Dir(m))+"/"+strings.TrimSuffix(filepath.Base(m), ".zip"))
	}
	return ids
}

func unzip(zipPath, dst string) error {
	r, err := zip.OpenReader(zipPath)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, f := range r.File {
		name := filepath.ToSlash(f.Name)
		if strings.HasPrefix(name, "__MACOSX/") || strings.HasSuffix(name, ".DS_Store") || strings.Contains(name, "..") {
			continue
		}
		p := filepath.Join(dst, filepath.FromSlash(name))
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := extract(f, p); err != nil {
			return err
		}
	}
	return nil
}

func extract(f *zip.File, p string) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	out, err := os.Create(p)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, rc); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// MetadataTableIDs lists the fixture tables that carry a metadata table (a
// .hoodie/metadata/.hoodie/hoodie.properties in their zip), sorted.
func MetadataTableIDs(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, id := range TableIDs(t) {
		zr, err := zip.OpenReader(filepath.Join(FixturesDir(t), "tables", id+".zip"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			if !strings.HasPrefix(f.Name, "__MACOSX/") && strings.HasSuffix(f.Name, "/.hoodie/metadata/.hoodie/hoodie.properties") {
				out = append(out, id)
				break
			}
		}
		zr.Close()
	}
	return out
}
