// Package s3test gives tests the S3 server .ci/run starts (scripts/versitygw): its
// address is in HUDI_TEST_S3 (host:port); locally the tests skip without it, in CI
// (CI set) they fail.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/hudi-go/hudi/storage/s3"
)

// The credentials scripts/versitygw starts the server with.
const (
	AccessKey = "testkey"
	SecretKey = "testsecret123"
)

// Settings returns the fs.s3a.* settings that reach the test server, or skips t.
func Settings(t testing.TB) map[string]string {
	t.Helper()
	addr := os.Getenv("HUDI_TEST_S3")
	if addr == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("HUDI_TEST_S3 is not set: .ci/run starts versitygw (scripts/versitygw) and exports it")
		}
		t.Skip("HUDI_TEST_S3 (host:port of an S3 server, e.g. scripts/versitygw) is not set")
	}
	return map[string]string{
		s3.KeyEndpoint: "http://" + addr, s3.KeyPathStyle: "true",
		s3.KeyAccessKey: AccessKey, s3.KeySecretKey: SecretKey,
	}
}

// Bucket creates a new bucket on the test server and returns its name and the
// settings; the bucket is left for the server's folder to be removed with it.
func Bucket(t testing.TB) (string, map[string]string) {
	t.Helper()
	settings := Settings(t)
	c, err := s3.NewClient(context.Background(), settings)
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	rand.Read(b[:])
	name := "t-" + hex.EncodeToString(b[:])
	if _, err := c.CreateBucket(context.Background(), &awss3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	return name, settings
}
