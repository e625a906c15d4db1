// Package azure is the storage backend for Azure Blob Storage (and ADLS Gen2 accounts,
// through their Blob API): table paths abfs[s]://container@account.dfs.core.windows.net/path
// and wasb[s]://container@account.blob.core.windows.net/path. Importing it registers the
// backend with the storage registry; cmd/hudi imports it.
//
// Credentials, in this order:
//   - the account key, under Hadoop's key fs.azure.account.key.ACCOUNT.dfs.core.windows.net
//     (or ….blob.core.windows.net: either names the account);
//   - a connection string in AZURE_STORAGE_CONNECTION_STRING (its AccountName must be the
//     URL's account; its BlobEndpoint, if any, is where requests go: Azurite's);
//   - Azure AD: with fs.azure.account.oauth.provider.type=
//     org.apache.hadoop.fs.azurebfs.oauth2.ClientCredsTokenProvider, a service principal's
//     token from fs.azure.account.oauth2.client.endpoint with …client.id and …client.secret
//     (Hadoop's keys and request, see oauth.go); without a provider, the Azure SDK's default
//     credential chain (environment AZURE_CLIENT_ID / AZURE_TENANT_ID / AZURE_CLIENT_SECRET
//     or a certificate, workload identity, managed identity, the Azure CLI's login).
//
// TLS servers (the storage endpoint, the token endpoint) are verified against the system's
// roots; SSL_CERT_FILE / SSL_CERT_DIR name others (a private CA, an emulator's certificate).
//
// fs.azure.account.auth.type=SharedKey or OAuth chooses the first or the last explicitly.
// fs.azure.abfs.endpoint=HOST:PORT sends requests to http(s)://HOST:PORT/ACCOUNT (an
// emulator), and fs.azure.always.use.https=false lets abfs:// and wasb:// use plain http
// there (abfss:// and wasbs:// always use TLS), as in Hadoop's ABFS client.
//
// New files are published with If-None-Match: * on the upload (or on the block list that
// commits a large one); compare-and-swap uses the blob's ETag (If-Match).
package azure

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob/azureblob"

	"github.com/hudi-go/hudi/internal/blobstore"
	"github.com/hudi-go/hudi/storage"
)

// The settings this backend honours (Hadoop ABFS names and meanings), and the
// environment variable of a connection string.
const (
	KeyAuthType         = "fs.azure.account.auth.type"
	KeyEndpoint         = "fs.azure.abfs.endpoint"
	KeyAlwaysHTTPS      = "fs.azure.always.use.https"
	KeyAccountKeyPrefix = "fs.azure.account.key."
	EnvConnectionString = "AZURE_STORAGE_CONNECTION_STRING"
	settingPrefix       = "fs.azure."
)

// Settings lists the keys above that carry no account name.
var Settings = []string{KeyAuthType, KeyEndpoint, KeyAlwaysHTTPS,
	KeyOAuthProvider, KeyOAuthEndpoint, KeyOAuthClientID, KeyOAuthClientSecret}

func init() {
	storage.Register(storage.Backend{Name: "azure", Schemes: []string{"abfs", "abfss", "wasb", "wasbs"},
		SettingPrefixes: []string{settingPrefix}, Settings: Settings,
		Accepts: func(k string) bool {
			return strings.HasPrefix(k, KeyAccountKeyPrefix) && len(k) > len(KeyAccountKeyPrefix) || accountSpecific(k)
		},
		AcceptsHelp: KeyAccountKeyPrefix + "ACCOUNT.dfs.core.windows.net, and the fs.azure.account.oauth* keys with a .ACCOUNT.dfs.core.windows.net suffix",
		Open: func(ctx context.Context, loc storage.Location, settings map[string]string) (storage.Storage, error) {
			return Open(ctx, loc, settings)
		}})
}

// Account is a parsed container@account.(dfs|blob).SUFFIX.
type Account struct {
	Container string
	Name      string // the storage account
	Suffix    string // "core.windows.net" (other clouds: core.chinacloudapi.cn, …)
}

// ParseHost splits the host part of an abfs/wasb URL.
func ParseHost(host string) (Account, error) {
	c, rest, ok := strings.Cut(host, "@")
	if !ok || c == "" {
		return Account{}, fmt.Errorf("want container@account.dfs.core.windows.net (abfs) or container@account.blob.core.windows.net (wasb), got %q", host)
	}
	if strings.Contains(rest, ":") {
		return Account{}, fmt.Errorf("%q: a port is not part of an account's host name (an emulator's address goes in %s)", host, KeyEndpoint)
	}
	name, domain, _ := strings.Cut(rest, ".")
	service, suffix, _ := strings.Cut(domain, ".")
	if name == "" || (service != "dfs" && service != "blob") || suffix == "" {
		return Account{}, fmt.Errorf("%q: want container@ACCOUNT.dfs.SUFFIX or container@ACCOUNT.blob.SUFFIX (SUFFIX core.windows.net)", host)
	}
	return Account{Container: c, Name: name, Suffix: suffix}, nil
}

// accountKey finds the account's key under either of Hadoop's names for it.
func accountKey(a Account, settings map[string]string) (string, bool) {
	for _, svc := range []string{"dfs", "blob"} {
		if k, ok := settings[KeyAccountKeyPrefix+a.Name+"."+svc+"."+a.Suffix]; ok {
			return k, true
		}
	}
	return "", false
}

// Option adjusts the client (tests and the benchmark count or redirect requests with it).
type Option func(*azcore.ClientOptions)

// Open opens the container and prefix of loc with settings.
func Open(ctx context.Context, loc storage.Location, settings map[string]string, opts ...Option) (*blobstore.Store, error) {
	client, err := NewContainerClient(loc, settings, opts...)
	if err != nil {
		return nil, err
	}
	b, err := azureblob.OpenBucket(ctx, client, nil)
	if err != nil {
		return nil, err
	}
	return blobstore.New(b, blobstore.Options{
		Name: "azure", URL: loc.URL, Prefix: loc.Path,
		Conditional: conditional{client: client},
		// gocloud.dev's Azure driver stores these characters escaped ("%" as __0x25__),
		// under names Java's ABFS client would not find: refused rather than renamed.
		ForbiddenChars: "%#?\"\\",
		Uploader:       uploader{client: client},
	}), nil
}

// NewContainerClient builds the client of loc's container as settings and the environment
// say (see the package comment).
func NewContainerClient(loc storage.Location, settings map[string]string, opts ...Option) (*container.Client, error) {
	a, err := ParseHost(loc.Host)
	if err != nil {
		return nil, err
	}
	secure := loc.Scheme == "abfss" || loc.Scheme == "wasbs"
	if v, ok := settings[KeyAlwaysHTTPS]; ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%s=%q: want true or false", KeyAlwaysHTTPS, v)
		}
		secure = secure || b
	} else {
		secure = true // Hadoop's default: always https
	}
	proto := "http"
	if secure {
		proto = "https"
	}
	serviceURL := fmt.Sprintf("%s://%s.blob.%s/", proto, a.Name, a.Suffix)
	if ep := strings.TrimSpace(settings[KeyEndpoint]); ep != "" {
		if _, _, err := net.SplitHostPort(ep); err != nil || strings.Contains(ep, "/") {
			return nil, fmt.Errorf("%s=%q: want HOST:PORT (an emulator's address; the account goes in the path)", KeyEndpoint, ep)
		}
		serviceURL = fmt.Sprintf("%s://%s/%s/", proto, ep, a.Name)
	}
	co := azcore.ClientOptions{}
	// The SDK's retry policy (3 retries, exponential backoff) covers throttling (429, 503)
	// and other 5xx answers.
	for _, f := range opts {
		f(&co)
	}
	copts := &container.ClientOptions{ClientOptions: co}

	authType := strings.TrimSpace(settings[KeyAuthType])
	key, hasKey := accountKey(a, settings)
	switch authType {
	case "", "SharedKey", "OAuth":
	default:
		return nil, fmt.Errorf("%s=%q: this backend takes SharedKey (an account key) or OAuth (Azure AD)", KeyAuthType, authType)
	}
	cc, hasCC, err := clientCredsSettings(a, settings, authType)
	if err != nil {
		return nil, err
	}
	if authType == "SharedKey" && !hasKey {
		return nil, fmt.Errorf("%s=SharedKey needs %s%s.dfs.%s", KeyAuthType, KeyAccountKeyPrefix, a.Name, a.Suffix)
	}
	containerURL := serviceURL + a.Container
	switch {
	case authType != "OAuth" && hasKey:
		cred, err := azblob.NewSharedKeyCredential(a.Name, strings.TrimSpace(key))
		if err != nil {
			return nil, fmt.Errorf("account key of %s: %w", a.Name, err)
		}
		return container.NewClientWithSharedKeyCredential(containerURL, cred, copts)
	case authType == "" && os.Getenv(EnvConnectionString) != "":
		cs := os.Getenv(EnvConnectionString)
		if name := connStringField(cs, "AccountName"); name != "" && name != a.Name {
			return nil, fmt.Errorf("%s is for account %q, the table's account is %q", EnvConnectionString, name, a.Name)
		}
		if settings[KeyEndpoint] != "" {
			return nil, fmt.Errorf("%s and %s both name an endpoint: set one", KeyEndpoint, EnvConnectionString)
		}
		svc, err := azblob.NewClientFromConnectionString(cs, &azblob.ClientOptions{ClientOptions: co})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", EnvConnectionString, err)
		}
		return svc.ServiceClient().NewContainerClient(a.Container), nil
	default:
		// Azure AD. Bearer tokens go over TLS only (the SDK refuses otherwise): say so now.
		if !secure {
			return nil, fmt.Errorf("Azure AD (OAuth) credentials need https: use abfss:// or wasbs://, or set %s and an account key", KeyAlwaysHTTPS)
		}
		if hasCC {
			cc.transport = co.Transport
			return container.NewClient(containerURL, &cc, copts)
		}
		cred, err := azidentity.NewDefaultAzureCredential(nil)
		if err != nil {
			return nil, fmt.Errorf("Azure AD credentials (no account key, no %s): %w", EnvConnectionString, err)
		}
		return container.NewClient(containerURL, cred, copts)
	}
}

// connStringField returns a field of a connection string ("AccountName=…;AccountKey=…").
func connStringField(cs, field string) string {
	for _, part := range strings.Split(cs, ";") {
		if k, v, ok := strings.Cut(part, "="); ok && strings.EqualFold(strings.TrimSpace(k), field) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// conditional is compare-and-swap on Azure: If-Match / If-None-Match: * on a block blob
// upload, with the ETag as the version.
type conditional struct {
	client *container.Client
}

func (c conditional) ReadVersion(ctx context.Context, key string) ([]byte, storage.Version, error) {
	resp, err := c.client.NewBlobClient(key).DownloadStream(ctx, nil)
	if err != nil {
		if bloberror.HasCode(err, bloberror.BlobNotFound) || status(err) == http.StatusNotFound {
			return nil, "", storage.ErrNotExist
		}
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", err
	}
	return b, etag(resp.ETag), nil
}

func etag(e *azcore.ETag) storage.Version {
	if e == nil {
		return ""
	}
	return storage.Version(*e)
}

func status(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

func (c conditional) PutIfMatch(ctx context.Context, key string, data []byte, v storage.Version) (storage.Version, error) {
	mac := &blob.ModifiedAccessConditions{}
	if v == "" {
		any := azcore.ETagAny
		mac.IfNoneMatch = &any
	} else {
		e := azcore.ETag(v)
		mac.IfMatch = &e
	}
	resp, err := c.client.NewBlockBlobClient(key).Upload(ctx, nopSeekCloser{bytes.NewReader(data)}, &blockblob.UploadOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: mac},
	})
	if err != nil {
		switch {
		case v == "" && (status(err) == http.StatusConflict || status(err) == http.StatusPreconditionFailed):
			return "", storage.ErrExist
		case status(err) == http.StatusPreconditionFailed, status(err) == http.StatusNotFound:
			return "", storage.ErrPrecondition
		}
		return "", err
	}
	return etag(resp.ETag), nil
}

// DeleteIfMatch deletes the blob with If-Match: the ETag read.
func (c conditional) DeleteIfMatch(ctx context.Context, key string, v storage.Version) error {
	e := azcore.ETag(v)
	_, err := c.client.NewBlobClient(key).Delete(ctx, &blob.DeleteOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &e}},
	})
	switch {
	case err == nil:
		return nil
	case status(err) == http.StatusPreconditionFailed:
		// If-Match on a missing blob fails too (Azurite; HTTP's rule): only a blob that
		// is there at another version is a mismatch.
		if _, perr := c.client.NewBlobClient(key).GetProperties(ctx, nil); status(perr) == http.StatusNotFound {
			return nil
		} else if perr != nil {
			return perr
		}
		return storage.ErrPrecondition
	case bloberror.HasCode(err, bloberror.BlobNotFound) || status(err) == http.StatusNotFound:
		return nil
	}
	return err
}

// uploader stages a large blob's blocks and commits the block list, with If-None-Match: *
// for a create: until then no blob appears, and an aborted upload's staged blocks are
// never committed (Azure drops uncommitted blocks; they are not listed or readable).
type uploader struct {
	client *container.Client
}

func (u uploader) Begin(ctx context.Context, key string, ifNotExist bool) (blobstore.Upload, error) {
	// Block ids are per blob name: two writers racing on one name must not stage under
	// the same ids, so each upload's ids start with its own random prefix.
	var r [12]byte
	if _, err := rand.Read(r[:]); err != nil {
		return nil, err
	}
	return &upload{ctx: ctx, bb: u.client.NewBlockBlobClient(key), ifNotExist: ifNotExist, prefix: hex.EncodeToString(r[:])}, nil
}

type upload struct {
	ctx        context.Context
	bb         *blockblob.Client
	ifNotExist bool
	prefix     string
	ids        []string
}

func (u *upload) WritePart(b []byte) error {
	// Every id of a blob has one length: prefix and a six-digit part number.
	id := base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("%s-%06d", u.prefix, len(u.ids))))
	if _, err := u.bb.StageBlock(u.ctx, id, nopSeekCloser{bytes.NewReader(b)}, nil); err != nil {
		return fmt.Errorf("stage block %d: %w", len(u.ids), err)
	}
	u.ids = append(u.ids, id)
	return nil
}

func (u *upload) Commit() error {
	o := &blockblob.CommitBlockListOptions{}
	if u.ifNotExist {
		any := azcore.ETagAny
		o.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: &any}}
	}
	_, err := u.bb.CommitBlockList(u.ctx, u.ids, o)
	if err == nil {
		return nil
	}
	if u.ifNotExist {
		if s := status(err); s == http.StatusConflict || s == http.StatusPreconditionFailed {
			return fmt.Errorf("%w (%v)", storage.ErrExist, err)
		}
		// A racing writer's commit drops the blocks this one staged: its own commit then
		// names blocks that are gone. The blob exists: this create lost.
		if bloberror.HasCode(err, bloberror.InvalidBlockList) {
			if _, herr := u.bb.GetProperties(u.ctx, nil); herr == nil {
				return fmt.Errorf("%w (%v)", storage.ErrExist, err)
			}
		}
	}
	return err
}

// Abort drops the staged blocks. They never form a readable blob, but an emulator
// (Azurite) takes a name with uncommitted blocks as existing for If-None-Match: *, so
// they are deleted while the name has no committed blob. (The check and the delete are
// two requests: a blob committed between them by another writer would go. Only files
// above one part take this path, and those are named per writer: no two writers upload
// one such name.)
func (u *upload) Abort() {
	if len(u.ids) == 0 {
		return
	}
	u.ids = nil
	// The upload's own context may be what was cancelled: the clean-up gets a short one.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(u.ctx), 30*time.Second)
	defer cancel()
	if _, err := u.bb.GetProperties(ctx, nil); status(err) == http.StatusNotFound {
		_, _ = u.bb.Delete(ctx, nil)
	}
}

type nopSeekCloser struct{ *bytes.Reader }

func (nopSeekCloser) Close() error { return nil }
