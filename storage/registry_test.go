package storage

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestParseLocation(t *testing.T) {
	for _, tc := range []struct {
		in                 string
		scheme, host, path string
		err                string
	}{
		{in: "/data/t", scheme: "file", path: "/data/t"},
		{in: "rel/t", scheme: "file", path: "rel/t"},
		{in: "file:///data/t", scheme: "file", path: "/data/t"},
		{in: "file:/data/t", scheme: "file", path: "/data/t"},
		{in: "s3://bucket/warehouse/trips", scheme: "s3", host: "bucket", path: "warehouse/trips"},
		{in: "S3A://bucket/warehouse/trips/", scheme: "s3a", host: "bucket", path: "warehouse/trips"},
		{in: "s3://bucket", scheme: "s3", host: "bucket", path: ""},
		{in: "gs://b/t", scheme: "gs", host: "b", path: "t"},
		{in: "abfss://data@acct.dfs.core.windows.net/w/t", scheme: "abfss", host: "data@acct.dfs.core.windows.net", path: "w/t"},
		{in: "wasb://data@acct.blob.core.windows.net/t", scheme: "wasb", host: "data@acct.blob.core.windows.net", path: "t"},
		{in: "s3:///t", err: "no bucket"},
		{in: "s3://b/t?x=1", err: "query"},
		{in: "", err: "empty"},
	} {
		loc, err := ParseLocation(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: want error %q, got %+v, %v", tc.in, tc.err, loc, err)
			}
			continue
		}
		if err != nil || loc.Scheme != tc.scheme || loc.Host != tc.host || loc.Path != tc.path {
			t.Errorf("%q = %+v, %v; want %s %s %s", tc.in, loc, err, tc.scheme, tc.host, tc.path)
		}
	}
}

func TestRegistryOpen(t *testing.T) {
	r := NewRegistry()
	var got map[string]string
	var gotLoc Location
	r.Register(Backend{Name: "s3", Schemes: []string{"s3", "s3a"}, SettingPrefixes: []string{"fs.s3a."},
		Settings: []string{"fs.s3a.endpoint"},
		Open: func(_ context.Context, loc Location, s map[string]string) (Storage, error) {
			got, gotLoc = s, loc
			return nil, errors.New("opened")
		}})
	r.Register(Backend{Name: "gcs", Schemes: []string{"gs"}, SettingPrefixes: []string{"fs.gs."}, Settings: []string{"fs.gs.project.id"},
		Open: func(context.Context, Location, map[string]string) (Storage, error) { return nil, nil }})
	r.Register(Backend{Name: "azure", Schemes: []string{"abfs"}, SettingPrefixes: []string{"fs.azure."},
		Accepts: func(k string) bool { return strings.HasPrefix(k, "fs.azure.account.key.") },
		Open: func(_ context.Context, _ Location, s map[string]string) (Storage, error) {
			got = s
			return nil, errors.New("opened")
		}})
	ctx := context.Background()
	// Keys a backend accepts by pattern reach it; others of its namespace are refused.
	_, err := r.Open(ctx, "abfs://c@a.dfs.core.windows.net/t", map[string]string{"fs.azure.account.key.a.dfs.core.windows.net": "k"})
	if err == nil || !strings.Contains(err.Error(), "opened") || got["fs.azure.account.key.a.dfs.core.windows.net"] != "k" {
		t.Fatalf("accepted key: %v, %v", err, got)
	}
	_, err = r.Open(ctx, "abfs://c@a.dfs.core.windows.net/t", map[string]string{"fs.azure.sas.token": "k"})
	if err == nil || !strings.Contains(err.Error(), "fs.azure.sas.token") || strings.Contains(err.Error(), "opened") {
		t.Fatalf("refused key: %v", err)
	}
	// The backend gets its own keys only; other backends' keys and hoodie keys stay out.
	_, err = r.Open(ctx, "s3a://b/t", map[string]string{"fs.s3a.endpoint": "http://127.0.0.1:1", "fs.gs.project.id": "p", "hoodie.x": "y"})
	if err == nil || !strings.Contains(err.Error(), "opened") || !strings.Contains(err.Error(), "s3a://b/t") {
		t.Fatalf("open: %v", err)
	}
	if len(got) != 1 || got["fs.s3a.endpoint"] != "http://127.0.0.1:1" || gotLoc.Host != "b" || gotLoc.Path != "t" {
		t.Fatalf("backend got %v at %+v", got, gotLoc)
	}
	// An unknown key of the backend's namespace is refused, named.
	_, err = r.Open(ctx, "s3://b/t", map[string]string{"fs.s3a.endpiont": "x"})
	if err == nil || !strings.Contains(err.Error(), "fs.s3a.endpiont") {
		t.Fatalf("misspelt key: %v", err)
	}
	// An unknown scheme names itself and what there is.
	_, err = r.Open(ctx, "hdfs://nn/t", nil)
	if err == nil || !strings.Contains(err.Error(), `"hdfs"`) || !strings.Contains(err.Error(), "abfs, gs, s3, s3a") {
		t.Fatalf("unknown scheme: %v", err)
	}
	if !r.IsSetting("fs.gs.project.id") || r.IsSetting("hoodie.table.name") || r.IsSetting("fs.defaultFS") {
		t.Fatalf("IsSetting")
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	r := NewRegistry()
	b := Backend{Name: "x", Schemes: []string{"x"}, Open: func(context.Context, Location, map[string]string) (Storage, error) { return nil, nil }}
	r.Register(b)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	r.Register(b)
}
