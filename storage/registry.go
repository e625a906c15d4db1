package storage

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Location is a table path split for a backend: "s3://bucket/warehouse/trips" is scheme
// "s3", host "bucket", path "warehouse/trips"; "abfss://data@acct.dfs.core.windows.net/t"
// is host "data@acct.dfs.core.windows.net". A local path has scheme "file" and the path as
// given (absolute or relative to the working directory).
type Location struct {
	URL    string // as given
	Scheme string // lower case
	Host   string // bucket or container@account…; "" for local paths
	Path   string // without leading or trailing slashes for object stores
}

// ParseLocation splits a table path: a URL with a scheme ("s3://b/p", "file:///data/t",
// Hadoop's "file:/data/t"), or a local path.
func ParseLocation(raw string) (Location, error) {
	if raw == "" {
		return Location{}, fmt.Errorf("empty table path")
	}
	i := strings.Index(raw, "://")
	if i <= 0 {
		if rest, ok := strings.CutPrefix(raw, "file:"); ok {
			return Location{URL: raw, Scheme: "file", Path: rest}, nil
		}
		return Location{URL: raw, Scheme: "file", Path: raw}, nil
	}
	scheme := strings.ToLower(raw[:i])
	if scheme == "file" {
		return Location{URL: raw, Scheme: "file", Path: raw[i+3:]}, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Location{}, fmt.Errorf("table path %s: %w", raw, err)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return Location{}, fmt.Errorf("table path %s: a query or fragment is not allowed in a table URL", raw)
	}
	host := u.Host
	if u.User != nil { // abfs://container@account…: url.Parse takes container as the user
		host = u.User.String() + "@" + u.Host
	}
	if host == "" {
		return Location{}, fmt.Errorf("table path %s: no bucket (want %s://BUCKET/PATH)", raw, scheme)
	}
	return Location{URL: raw, Scheme: scheme, Host: host, Path: strings.Trim(u.Path, "/")}, nil
}

// Backend is one storage implementation, registered by URL scheme.
type Backend struct {
	// Name names the backend in messages ("s3").
	Name string
	// Schemes are the URL schemes it opens ("s3", "s3a").
	Schemes []string
	// SettingPrefixes are the namespaces of its settings ("fs.s3a."); Settings lists every
	// key it honours. Open is given only those keys, and a key under one of its prefixes
	// that is not in Settings is refused: a setting is honoured or refused, never dropped.
	SettingPrefixes []string
	Settings        []string
	// Accepts, if set, honours keys whose names carry a value Settings cannot list (Hadoop
	// names Azure's account keys after the account: fs.azure.account.key.ACCOUNT.dfs…).
	Accepts func(key string) bool
	// AcceptsHelp describes the keys Accepts honours, for the refusal of another key.
	AcceptsHelp string
	// Open opens the storage rooted at loc.
	Open func(ctx context.Context, loc Location, settings map[string]string) (Storage, error)
}

// Registry maps URL schemes to backends. The default one (Register, OpenURL) is what
// hudi.Open uses: backends register themselves from init, as database/sql drivers do,
// so a program links the clouds it imports (cmd/hudi imports all of them) and the core
// packages stay free of cloud SDKs.
type Registry struct {
	mu       sync.RWMutex
	byScheme map[string]*Backend
	backends []*Backend
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byScheme: map[string]*Backend{}} }

// Register adds b; a scheme registered twice is a programming error and panics, as
// database/sql.Register does.
func (r *Registry) Register(b Backend) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b.Open == nil || len(b.Schemes) == 0 {
		panic(fmt.Sprintf("storage: backend %q has no Open or no schemes", b.Name))
	}
	bp := &b
	for _, s := range b.Schemes {
		s = strings.ToLower(s)
		if _, dup := r.byScheme[s]; dup {
			panic(fmt.Sprintf("storage: scheme %q registered twice", s))
		}
		r.byScheme[s] = bp
	}
	r.backends = append(r.backends, bp)
}

// Schemes lists the registered schemes, sorted.
func (r *Registry) Schemes() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.byScheme))
	for s := range r.byScheme {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// IsSetting reports whether key belongs to a registered backend's namespace (fs.s3a.…):
// such keys configure storage, not the table.
func (r *Registry) IsSetting(key string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, b := range r.backends {
		for _, p := range b.SettingPrefixes {
			if strings.HasPrefix(key, p) {
				return true
			}
		}
	}
	return false
}

// Open opens the storage at raw (a URL or a local path) with settings, of which it takes
// the keys of the scheme's backend (its SettingPrefixes); keys of other backends
// configure other file systems and are left alone, as Hadoop's S3A client leaves fs.gs.*
// keys alone.
func (r *Registry) Open(ctx context.Context, raw string, settings map[string]string) (Storage, error) {
	loc, err := ParseLocation(raw)
	if err != nil {
		return nil, err
	}
	r.mu.RLock()
	b := r.byScheme[loc.Scheme]
	r.mu.RUnlock()
	if b == nil {
		return nil, fmt.Errorf("table path %s: no storage backend for scheme %q (this build has: %s; HDFS is not supported)",
			raw, loc.Scheme, strings.Join(r.Schemes(), ", "))
	}
	mine := map[string]string{}
	known := map[string]bool{}
	for _, k := range b.Settings {
		known[k] = true
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, p := range b.SettingPrefixes {
			if !strings.HasPrefix(k, p) {
				continue
			}
			if !known[k] && (b.Accepts == nil || !b.Accepts(k)) {
				takes := append([]string(nil), b.Settings...)
				if b.AcceptsHelp != "" {
					takes = append(takes, b.AcceptsHelp)
				}
				what := "it takes no settings"
				if len(takes) > 0 {
					what = "it takes " + strings.Join(takes, ", ")
				}
				return nil, fmt.Errorf("table path %s: setting %s is not supported by the %s storage backend (%s)",
					raw, k, b.Name, what)
			}
			mine[k] = settings[k]
		}
	}
	st, err := b.Open(ctx, loc, mine)
	if err != nil {
		return nil, fmt.Errorf("open %s storage %s: %w", b.Name, raw, err)
	}
	return st, nil
}

var defaultRegistry = NewRegistry()

// Register adds a backend to the default registry (from a backend package's init).
func Register(b Backend) { defaultRegistry.Register(b) }

// OpenURL opens storage through the default registry; see Registry.Open.
func OpenURL(ctx context.Context, raw string, settings map[string]string) (Storage, error) {
	return defaultRegistry.Open(ctx, raw, settings)
}

// IsSetting reports whether key configures a backend of the default registry.
func IsSetting(key string) bool { return defaultRegistry.IsSetting(key) }

// Schemes lists the default registry's schemes.
func Schemes() []string { return defaultRegistry.Schemes() }
