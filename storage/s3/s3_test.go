package s3_test

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hudi-go/hudi/internal/objstore/s3test"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/s3"
	"github.com/hudi-go/hudi/storage/storagetest"
)

// The storage conformance suite against a real S3 server (versitygw), each subtest under
// its own prefix of one bucket, through the registry as hudi opens tables.
func TestConformance(t *testing.T) {
	bucket, settings := s3test.Bucket(t)
	var n atomic.Int64
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		st, err := storage.OpenURL(context.Background(), fmt.Sprintf("s3a://%s/w/t%d", bucket, n.Add(1)), settings)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}, storagetest.Options{})
}

func put(t *testing.T, st storage.Storage, p, body string) {
	t.Helper()
	w, err := st.Create(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// AWS_CA_BUNDLE is set in these machines' environment; a plain-http endpoint must work
// whatever it names: the machine's bundle, a missing file, a file without certificates.
// (With a missing or empty bundle the SDK refused to load its configuration before.)
func TestPlainHTTPWithCABundle(t *testing.T) {
	bucket, settings := s3test.Bucket(t)
	empty := filepath.Join(t.TempDir(), "empty.pem")
	os.WriteFile(empty, nil, 0o644)
	for i, bundle := range []string{os.Getenv("AWS_CA_BUNDLE"), "/etc/ssl/certs/ca-certificates.crt", "/nonexistent/ca.pem", empty} {
		t.Run(fmt.Sprint(i, filepath.Base(bundle)), func(t *testing.T) {
			t.Setenv("AWS_CA_BUNDLE", bundle)
			st, err := storage.OpenURL(context.Background(), fmt.Sprint("s3://", bucket, "/ca/", i), settings)
			if err != nil {
				t.Fatal(err)
			}
			put(t, st, "f", "x")
			if b, err := st.ReadFile(context.Background(), "f"); err != nil || string(b) != "x" {
				t.Fatalf("read = %q, %v", b, err)
			}
		})
	}
}

// Every S3A key is honoured or refused by name.
func TestSettingsRefusedByName(t *testing.T) {
	bucket, settings := s3test.Bucket(t)
	with := func(k, v string) map[string]string {
		m := maps.Clone(settings)
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for _, tc := range []struct {
		settings map[string]string
		want     string
	}{
		{with(s3.KeyPathStyle, "yes please"), s3.KeyPathStyle},
		{with(s3.KeySecretKey, ""), s3.KeySecretKey},
		{with(s3.KeyEndpoint, "ftp://127.0.0.1:1"), s3.KeyEndpoint},
		{with(s3.KeySSL, "maybe"), s3.KeySSL},
		{with(s3.KeyMaxAttempts, "0"), s3.KeyMaxAttempts},
		{with("fs.s3a.connection.maximum", "10"), "fs.s3a.connection.maximum"},
	} {
		_, err := storage.OpenURL(context.Background(), "s3://"+bucket+"/t", tc.settings)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error naming %s, got %v", tc.want, err)
		}
	}
	// The keys reach the client: a wrong secret is refused by the server.
	st, err := storage.OpenURL(context.Background(), "s3://"+bucket+"/t", with(s3.KeySecretKey, "wrong"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.List(context.Background(), ""); err == nil {
		t.Fatal("a wrong fs.s3a.secret.key was not used")
	}
	// An endpoint without a scheme takes fs.s3a.connection.ssl.enabled's.
	m := with(s3.KeyEndpoint, strings.TrimPrefix(settings[s3.KeyEndpoint], "http://"))
	m[s3.KeySSL] = "false"
	st, err = storage.OpenURL(context.Background(), "s3://"+bucket+"/bare", m)
	if err != nil {
		t.Fatal(err)
	}
	put(t, st, "f", "x")
}

// flaky forwards to the S3 server but answers 503 SlowDown to every other request first.
type flaky struct {
	proxy *httputil.ReverseProxy
	n     atomic.Int64
	fails atomic.Int64
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.n.Add(1)%2 == 1 {
		f.fails.Add(1)
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
		return
	}
	f.proxy.ServeHTTP(w, r)
}

// Throttling and 5xx answers are retried with backoff (fs.s3a.attempts.maximum); with one
// attempt they fail.
func TestRetriesThrottling(t *testing.T) {
	bucket, settings := s3test.Bucket(t)
	target, _ := url.Parse(settings[s3.KeyEndpoint])
	f := &flaky{proxy: httputil.NewSingleHostReverseProxy(target)}
	srv := httptest.NewServer(f)
	defer srv.Close()
	m := maps.Clone(settings)
	m[s3.KeyEndpoint] = srv.URL
	st, err := storage.OpenURL(context.Background(), "s3://"+bucket+"/retry", m)
	if err != nil {
		t.Fatal(err)
	}
	put(t, st, "a/f", "hello")
	if b, err := st.ReadFile(context.Background(), "a/f"); err != nil || string(b) != "hello" {
		t.Fatalf("read = %q, %v", b, err)
	}
	if list, err := st.List(context.Background(), "a"); err != nil || len(list) != 1 {
		t.Fatalf("list = %v, %v", list, err)
	}
	if f.fails.Load() < 3 {
		t.Fatalf("the server failed only %d requests", f.fails.Load())
	}
	m[s3.KeyMaxAttempts] = "1"
	st, err = storage.OpenURL(context.Background(), "s3://"+bucket+"/retry", m)
	if err != nil {
		t.Fatal(err)
	}
	f.n.Store(0)
	if _, err := st.ReadFile(context.Background(), "a/f"); err == nil || !strings.Contains(err.Error(), "a/f") {
		t.Fatalf("one attempt against a throttling server: %v", err)
	}
}
