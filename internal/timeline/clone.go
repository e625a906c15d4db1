package timeline

import "slices"

// Clone returns a copy of t whose instant list the caller may change without changing t
// (the instants' own file maps are shared: they are never changed after loading).
func (t *Timeline) Clone() *Timeline {
	c := *t
	c.Instants = slices.Clone(t.Instants)
	return &c
}
