//go:build unix

package objstoretest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/objstore/azuretest"
	"github.com/hudi-go/hudi/internal/objstore/gcstest"
	"github.com/hudi-go/hudi/storage/azure"
)

// TestWritesOnGCSAndAzure: the CLI on a merge-on-read table on GCS (fake-gcs-server,
// through STORAGE_EMULATOR_HOST) and on Azure Blob (Azurite: abfs:// with the account key
// in hudi-defaults.conf, then the same table as wasb:// through
// AZURE_STORAGE_CONNECTION_STRING): create, insert, upsert, compaction, and the rows read
// back. The storage conformance suite runs against both servers in their packages.
func TestWritesOnGCSAndAzure(t *testing.T) {
	var in []string
	for i := 0; i < 12; i++ {
		in = append(in, fmt.Sprintf(`{"id":"k%02d","ts":1,"city":"c%d","fare":%d.5}`, i, i%2, i))
	}
	insert, upsert := writeInput(t, in...), writeInput(t, `{"id":"k03","ts":2,"city":"c1","fare":30.25}`)
	want := map[string]string{}
	for i := 0; i < 12; i++ {
		want[fmt.Sprintf("k%02d", i)] = fmt.Sprintf("%d.5", i)
	}
	want["k03"] = "30.25"

	steps := func(t *testing.T, writeEnv, readEnv []string, url, readURL string) {
		run(t, writeEnv, "create", url, "--name", "trips", "--type", "mor", "--record-key", "id", "--precombine", "ts",
			"--partition-by", "city", "--schema", "id STRING, ts BIGINT, city STRING, fare DOUBLE")
		run(t, writeEnv, "write", url, "--op", "insert", "--input", insert)
		run(t, writeEnv, "write", url, "--op", "upsert", "--input", upsert)
		run(t, writeEnv, "compact", url)
		got := rows(t, readEnv, readURL)
		if len(got) != len(want) {
			t.Fatalf("read %d rows, want %d: %v", len(got), len(want), got)
		}
		for _, l := range got {
			for k, fare := range want {
				if strings.Contains(l, `"id":"`+k+`"`) && !strings.Contains(l, `"fare":`+fare) {
					t.Errorf("%s: %s, want fare %s", k, l, fare)
				}
			}
		}
		shape := strings.Join(timelineShape(t, readEnv, readURL), " ")
		if shape != "deltacommit/completed deltacommit/completed commit/completed" {
			t.Errorf("timeline %s", shape)
		}
	}
	t.Run("gcs", func(t *testing.T) {
		bucket := gcstest.Bucket(t) // sets STORAGE_EMULATOR_HOST for the processes too
		url := fmt.Sprintf("gs://%s/warehouse/trips", bucket)
		steps(t, nil, nil, url, url)
	})
	t.Run("azure", func(t *testing.T) {
		c, settings := azuretest.Container(t)
		keyConf := []string{confDir(t, settings)}
		connString := []string{azure.EnvConnectionString + "=" + azuretest.ConnectionString(azuretest.Addr(t))}
		steps(t, keyConf, connString,
			fmt.Sprintf("abfs://%s@%s.dfs.core.windows.net/warehouse/trips", c, azuretest.Account),
			fmt.Sprintf("wasbs://%s@%s.blob.core.windows.net/warehouse/trips", c, azuretest.Account))
	})
	// Azure AD: the same steps through abfss:// against the https Azurite that takes
	// bearer tokens, with Hadoop's client-credential keys in hudi-defaults.conf; the
	// processes trust the emulator's and the token endpoint's certificates through
	// SSL_CERT_FILE. A wrong client secret fails the read, naming the token endpoint and
	// Azure AD's answer.
	t.Run("azure-ad", func(t *testing.T) {
		srv := azuretest.OAuth(t)
		te := azuretest.NewTokenEndpoint(t)
		c := srv.Container(t)
		ca := "SSL_CERT_FILE=" + srv.CABundle(t, te)
		env := []string{confDir(t, srv.OAuthSettings(te.URL, azuretest.ClientID, azuretest.ClientSecret)), ca}
		url := fmt.Sprintf("abfss://%s@%s.dfs.core.windows.net/warehouse/trips", c, azuretest.Account)
		steps(t, env, env, url, url)
		if te.Requests.Load() == 0 {
			t.Fatal("no token was requested")
		}
		wrong := []string{confDir(t, srv.OAuthSettings(te.URL, azuretest.ClientID, "not-the-secret")), ca}
		_, err := runErr(wrong, "read", url, "--format", "jsonl")
		for _, want := range []string{"Azure AD token for client ID " + azuretest.ClientID, te.URL, "HTTP 401", "AADSTS7000215"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("read with a wrong client secret: %v, want an error naming %q", err, want)
			}
		}
		if err != nil && strings.Contains(err.Error(), "not-the-secret") {
			t.Errorf("the error shows the secret: %v", err)
		}
	})
}
