// Package gcs is the storage backend for Google Cloud Storage: table paths gs://bucket/path.
// Importing it registers the backend with the storage registry; cmd/hudi imports it.
//
// Credentials are Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's
// user credentials, the metadata server); with STORAGE_EMULATOR_HOST set the client talks
// to that emulator (fake-gcs-server in the tests) without credentials. New files are
// published with ifGenerationMatch=0; compare-and-swap uses the object's generation.
package gcs

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"

	"cloud.google.com/go/storage"
	"gocloud.dev/blob/gcsblob"
	"google.golang.org/api/googleapi"

	"github.com/hudi-go/hudi/internal/blobstore"
	hstorage "github.com/hudi-go/hudi/storage"
)

func init() {
	hstorage.Register(hstorage.Backend{Name: "gcs", Schemes: []string{"gs"}, SettingPrefixes: []string{"fs.gs."},
		Open: func(ctx context.Context, loc hstorage.Location, settings map[string]string) (hstorage.Storage, error) {
			return Open(ctx, loc)
		}})
}

// Open opens the bucket and prefix of loc.
func Open(ctx context.Context, loc hstorage.Location) (*blobstore.Store, error) {
	// storage.NewClient takes ADC, or STORAGE_EMULATOR_HOST without credentials; it
	// retries idempotent requests (conditional writes among them) with backoff.
	client, err := storage.NewClient(ctx)
	if err != nil {
		return nil, err
	}
	b, err := gcsblob.OpenBucket(ctx, nil, loc.Host, &gcsblob.Options{Client: client})
	if err != nil {
		client.Close()
		return nil, err
	}
	return blobstore.New(b, blobstore.Options{Name: "gcs", URL: loc.URL, Prefix: loc.Path,
		Conditional: conditional{bucket: client.Bucket(loc.Host)}}), nil
}

// conditional is compare-and-swap on GCS: the object's generation as its version.
type conditional struct {
	bucket *storage.BucketHandle
}

func status(err error) int {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}

func (c conditional) ReadVersion(ctx context.Context, key string) ([]byte, hstorage.Version, error) {
	r, err := c.bucket.Object(key).NewReader(ctx)
	if err != nil {
		if errors.Is(err, storage.ErrObjectNotExist) {
			return nil, "", hstorage.ErrNotExist
		}
		return nil, "", err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, "", err
	}
	return b, generation(r.Attrs.Generation), nil
}

func generation(g int64) hstorage.Version {
	return hstorage.Version(strconv.FormatInt(g, 10))
}

func parse(v hstorage.Version) (int64, bool) {
	g, err := strconv.ParseInt(string(v), 10, 64)
	return g, err == nil
}

// DeleteIfMatch deletes the object's generation v: a live object of another generation is
// untouched (on a bucket without versioning that generation no longer exists: 404; with
// versioning a non-current one goes, the live one stays). The generation parameter, not
// ifGenerationMatch, because fake-gcs-server honours only the former; real GCS both.
func (c conditional) DeleteIfMatch(ctx context.Context, key string, v hstorage.Version) error {
	g, ok := parse(v)
	if !ok {
		return hstorage.ErrPrecondition
	}
	err := c.bucket.Object(key).Generation(g).Delete(ctx)
	switch {
	case err == nil:
		return nil
	case status(err) == http.StatusPreconditionFailed:
		return hstorage.ErrPrecondition
	case errors.Is(err, storage.ErrObjectNotExist) || status(err) == http.StatusNotFound:
		// Generation v is gone: the object was replaced (another generation is live) or
		// deleted.
		if _, err := c.bucket.Object(key).Attrs(ctx); err == nil {
			return hstorage.ErrPrecondition
		} else if !errors.Is(err, storage.ErrObjectNotExist) {
			return err
		}
		return nil
	}
	return err
}

func (c conditional) PutIfMatch(ctx context.Context, key string, data []byte, v hstorage.Version) (hstorage.Version, error) {
	obj := c.bucket.Object(key)
	if v == "" {
		obj = obj.If(storage.Conditions{DoesNotExist: true})
	} else {
		g, ok := parse(v)
		if !ok {
			return "", hstorage.ErrPrecondition
		}
		obj = obj.If(storage.Conditions{GenerationMatch: g})
	}
	w := obj.NewWriter(ctx)
	w.ContentType = "application/octet-stream"
	if _, err := w.Write(data); err != nil {
		w.Close()
		return "", err
	}
	if err := w.Close(); err != nil {
		if status(err) == http.StatusPreconditionFailed {
			if v == "" {
				return "", hstorage.ErrExist
			}
			return "", hstorage.ErrPrecondition
		}
		return "", err
	}
	return generation(w.Attrs().Generation), nil
}
