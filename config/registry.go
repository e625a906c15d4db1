package config

import (
	"fmt"
	"sort"
	"sync"
)

// registry is the lookup structure over registered(): built once, never changed.
type registry struct {
	sorted []Key
	byName map[string]int // name or alias → index into sorted
}

// index builds the registry on first use. Building it lazily rather than in an
// init func keeps package start-up free of work for programs that never look up a key.
var index = sync.OnceValue(func() *registry {
	keys := registered()
	sort.Slice(keys, func(i, j int) bool { return keys[i].Name < keys[j].Name })
	r := &registry{sorted: keys, byName: make(map[string]int, 2*len(keys))}
	for i, k := range keys {
		for _, n := range append([]string{k.Name}, k.Aliases...) {
			if j, dup := r.byName[n]; dup {
				// A programming error in keys.go; TestRegistry catches it before release.
				panic(fmt.Sprintf("config: %s is registered for both %s and %s", n, keys[j].Name, k.Name))
			}
			r.byName[n] = i
		}
	}
	return r
})

// Keys returns every registered key, sorted by name.
func Keys() []Key {
	r := index()
	out := make([]Key, len(r.sorted))
	for i, k := range r.sorted {
		out[i] = k.clone()
	}
	return out
}

// KeysIn returns the registered keys of one scope, sorted by name; KeysIn(Table)
// are the keys a writer persists in hoodie.properties.
func KeysIn(s Scope) []Key {
	var out []Key
	for _, k := range index().sorted {
		if k.Scope == s {
			out = append(out, k.clone())
		}
	}
	return out
}

// Lookup finds a key by its name or one of its aliases.
func Lookup(name string) (Key, bool) {
	r := index()
	i, ok := r.byName[name]
	if !ok {
		return Key{}, false
	}
	return r.sorted[i].clone(), true
}

// canonical resolves a name or alias to the registered key without copying it.
func canonical(name string) (Key, bool) {
	r := index()
	if i, ok := r.byName[name]; ok {
		return r.sorted[i], true
	}
	return Key{}, false
}
