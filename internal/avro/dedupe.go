package avro

import "strings"

// DedupeNamedTypes rewrites a schema tree (as decoded by encoding/json) so that a named
// type already defined — tracked by full name in seen — becomes a reference by that name,
// as Java's Schema.toString prints repeated types: the same record may appear in several
// nested schemas (HoodieWriteStat, HoodieInstantInfo) and Avro allows one definition per
// name. ns is the enclosing namespace. Parts that are not schema objects are kept as they are.
func DedupeNamedTypes(node any, ns string, seen map[string]bool) any {
	switch n := node.(type) {
	case []any:
		out := make([]any, len(n))
		for i, b := range n {
			out[i] = DedupeNamedTypes(b, ns, seen)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(n))
		for k, v := range n {
			out[k] = v
		}
		switch typ := n["type"].(type) {
		case string:
			switch typ {
			case "record", "error", "enum", "fixed":
				name, _ := n["name"].(string)
				if explicit, ok := n["namespace"].(string); ok {
					ns = explicit
				}
				full := name
				if !strings.Contains(name, ".") && ns != "" {
					full = ns + "." + name
				}
				if seen[full] {
					return full
				}
				seen[full] = true
				if fields, ok := n["fields"].([]any); ok {
					nf := make([]any, len(fields))
					for i, f := range fields {
						fmap, ok := f.(map[string]any)
						if !ok {
							nf[i] = f
							continue
						}
						fm := make(map[string]any, len(fmap))
						for k, v := range fmap {
							fm[k] = v
						}
						fm["type"] = DedupeNamedTypes(fm["type"], ns, seen)
						nf[i] = fm
					}
					out["fields"] = nf
				}
			case "array":
				out["items"] = DedupeNamedTypes(n["items"], ns, seen)
			case "map":
				out["values"] = DedupeNamedTypes(n["values"], ns, seen)
			}
		default:
			out["type"] = DedupeNamedTypes(typ, ns, seen)
		}
		return out
	}
	return node
}
