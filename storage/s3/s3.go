// Package s3 is the storage backend for Amazon S3 and S3-compatible servers: table paths
// s3://bucket/path and s3a://bucket/path (the same thing). Importing it registers the
// backend with the storage registry; cmd/hudi imports it.
//
// Credentials and region come from the AWS SDK's standard chain (environment, shared
// config and credentials files, web identity, instance metadata), or from Hadoop's S3A
// keys: fs.s3a.access.key / fs.s3a.secret.key (/ fs.s3a.session.token),
// fs.s3a.endpoint, fs.s3a.endpoint.region, fs.s3a.path.style.access,
// fs.s3a.connection.ssl.enabled (for an endpoint given without a scheme) and
// fs.s3a.attempts.maximum.
//
// New files are published with a conditional PUT (If-None-Match: *), or a conditional
// CompleteMultipartUpload above 5 MiB; an aborted write aborts its multipart upload.
package s3

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"gocloud.dev/blob/s3blob"

	"github.com/hudi-go/hudi/internal/blobstore"
	"github.com/hudi-go/hudi/storage"
)

// The S3A keys this backend honours (Hadoop's names and meanings).
const (
	KeyEndpoint      = "fs.s3a.endpoint"
	KeyRegion        = "fs.s3a.endpoint.region"
	KeyPathStyle     = "fs.s3a.path.style.access"
	KeyAccessKey     = "fs.s3a.access.key"
	KeySecretKey     = "fs.s3a.secret.key"
	KeySessionToken  = "fs.s3a.session.token"
	KeySSL           = "fs.s3a.connection.ssl.enabled"
	KeyMaxAttempts   = "fs.s3a.attempts.maximum"
	defaultAttempts  = 5
	defaultRegion    = "us-east-1"
	settingPrefix    = "fs.s3a."
	maxConflictRetry = 10
)

// Settings lists the keys above.
var Settings = []string{KeyAccessKey, KeySSL, KeyEndpoint, KeyRegion, KeyMaxAttempts, KeyPathStyle, KeySecretKey, KeySessionToken}

func init() {
	storage.Register(storage.Backend{Name: "s3", Schemes: []string{"s3", "s3a"}, SettingPrefixes: []string{settingPrefix},
		Settings: Settings,
		Open: func(ctx context.Context, loc storage.Location, settings map[string]string) (storage.Storage, error) {
			return Open(ctx, loc, settings)
		}})
}

// Option adjusts the S3 client (tests and the benchmark count requests with it).
type Option func(*awss3.Options)

// Open opens the bucket and prefix of loc with settings (the fs.s3a.* keys above).
func Open(ctx context.Context, loc storage.Location, settings map[string]string, opts ...Option) (*blobstore.Store, error) {
	client, err := NewClient(ctx, settings, opts...)
	if err != nil {
		return nil, err
	}
	b, err := s3blob.OpenBucket(ctx, client, loc.Host, &s3blob.Options{
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
	})
	if err != nil {
		return nil, err
	}
	return blobstore.New(b, blobstore.Options{
		Name: "s3", URL: loc.URL, Prefix: loc.Path,
		Conditional: conditional{client: client, bucket: loc.Host},
		IsConflict:  isConflict,
	}), nil
}

// NewClient builds the S3 client settings describe.
func NewClient(ctx context.Context, settings map[string]string, opts ...Option) (*awss3.Client, error) {
	boolSetting := func(k string, def bool) (bool, error) {
		v, ok := settings[k]
		if !ok {
			return def, nil
		}
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return false, fmt.Errorf("%s=%q: want true or false", k, v)
		}
		return b, nil
	}
	pathStyle, err := boolSetting(KeyPathStyle, false)
	if err != nil {
		return nil, err
	}
	ssl, err := boolSetting(KeySSL, true)
	if err != nil {
		return nil, err
	}
	attempts := defaultAttempts
	if v, ok := settings[KeyMaxAttempts]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s=%q: want a whole number of attempts, at least 1", KeyMaxAttempts, v)
		}
		attempts = n
	}
	endpoint := strings.TrimSpace(settings[KeyEndpoint])
	if endpoint != "" && !strings.Contains(endpoint, "://") {
		// Hadoop takes a bare host[:port] and chooses the scheme by
		// fs.s3a.connection.ssl.enabled.
		if ssl {
			endpoint = "https://" + endpoint
		} else {
			endpoint = "http://" + endpoint
		}
	}
	if endpoint != "" {
		u, err := url.Parse(endpoint)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("%s=%q: want http(s)://host[:port] or host[:port]", KeyEndpoint, settings[KeyEndpoint])
		}
	}
	access, secret := settings[KeyAccessKey], settings[KeySecretKey]
	if (access == "") != (secret == "") {
		return nil, fmt.Errorf("%s and %s go together: one is set without the other", KeyAccessKey, KeySecretKey)
	}
	if settings[KeySessionToken] != "" && access == "" {
		return nil, fmt.Errorf("%s needs %s and %s", KeySessionToken, KeyAccessKey, KeySecretKey)
	}

	lo := []func(*awsconfig.LoadOptions) error{
		awsconfig.WithRetryer(func() aws.Retryer {
			// The standard retryer: exponential backoff with jitter on throttling, 5xx and
			// connection errors.
			return retry.NewStandard(func(o *retry.StandardOptions) { o.MaxAttempts = attempts })
		}),
	}
	if access != "" {
		lo = append(lo, awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(access, secret, settings[KeySessionToken])))
	}
	if r := strings.TrimSpace(settings[KeyRegion]); r != "" {
		lo = append(lo, awsconfig.WithRegion(r))
	}
	if strings.HasPrefix(endpoint, "http://") {
		// A CA bundle means nothing to a plain-http endpoint, and AWS_CA_BUNDLE (set on
		// many machines) must not stop one from working when its file is missing or holds
		// no certificate. The SDK takes the first bundle it finds and fails on one without
		// a certificate, so a bundle given here, holding a certificate made for nothing,
		// takes the environment's place.
		ca, err := placeholderCA()
		if err != nil {
			return nil, err
		}
		lo = append(lo, awsconfig.WithCustomCABundle(bytes.NewReader(ca)))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, lo...)
	if err != nil {
		return nil, fmt.Errorf("AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		// A custom endpoint (MinIO, versitygw, …) ignores the region, but the SDK signs
		// with one.
		cfg.Region = defaultRegion
	}
	return awss3.NewFromConfig(cfg, func(o *awss3.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
		o.UsePathStyle = pathStyle
		// Third-party S3 servers do not all take the SDK's default CRC checksums.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		for _, f := range opts {
			f(o)
		}
	}), nil
}

// placeholderCA returns a self-signed certificate in PEM whose key is thrown away: a CA
// bundle that makes no TLS connection trusted, for clients that make none.
func placeholderCA() ([]byte, error) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hudi-go plain-http placeholder"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1, 0), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// isConflict: S3 answers 409 ConditionalRequestConflict to a conditional write that
// races another on the same key; the write may be retried.
func isConflict(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "ConditionalRequestConflict" {
		return true
	}
	var re *smithyhttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusConflict
}

func isPrecondition(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "PreconditionFailed" {
		return true
	}
	var re *smithyhttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusPreconditionFailed
}

func isNotFound(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && (ae.ErrorCode() == "NoSuchKey" || ae.ErrorCode() == "NotFound") {
		return true
	}
	var re *smithyhttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound
}

// conditional is compare-and-swap on S3: If-Match / If-None-Match on PutObject, with
// the ETag as the version.
type conditional struct {
	client *awss3.Client
	bucket string
}

func (c conditional) ReadVersion(ctx context.Context, key string) ([]byte, storage.Version, error) {
	out, err := c.client.GetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(key)})
	if err != nil {
		if isNotFound(err) {
			return nil, "", storage.ErrNotExist
		}
		return nil, "", err
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, "", err
	}
	return b, storage.Version(aws.ToString(out.ETag)), nil
}

// DeleteIfMatch is DeleteObject with If-Match: the ETag read (AWS S3 honours it on
// general purpose buckets; versitygw v1.8.0 does, answering 412 — pinned by the
// conformance suite, since a server that ignored the header would delete unconditionally).
func (c conditional) DeleteIfMatch(ctx context.Context, key string, v storage.Version) error {
	for attempt := 0; ; attempt++ {
		_, err := c.client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(key),
			IfMatch: aws.String(string(v))})
		switch {
		case err == nil, isNotFound(err):
			return nil
		case isPrecondition(err):
			return storage.ErrPrecondition
		case isConflict(err) && attempt < maxConflictRetry:
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(10<<attempt) * time.Millisecond):
			}
		case isConflict(err):
			return storage.ErrPrecondition
		default:
			return err
		}
	}
}

func (c conditional) PutIfMatch(ctx context.Context, key string, data []byte, v storage.Version) (storage.Version, error) {
	for attempt := 0; ; attempt++ {
		in := &awss3.PutObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(key), Body: bytes.NewReader(data),
			ContentType: aws.String("application/octet-stream")}
		if v == "" {
			in.IfNoneMatch = aws.String("*")
		} else {
			in.IfMatch = aws.String(string(v))
		}
		out, err := c.client.PutObject(ctx, in)
		if err == nil {
			return storage.Version(aws.ToString(out.ETag)), nil
		}
		switch {
		case isPrecondition(err) && v == "":
			return "", storage.ErrExist
		case isPrecondition(err), isNotFound(err):
			return "", storage.ErrPrecondition
		case isConflict(err) && attempt < maxConflictRetry:
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(time.Duration(10<<attempt) * time.Millisecond):
			}
		case isConflict(err):
			return "", storage.ErrPrecondition
		default:
			return "", err
		}
	}
}
