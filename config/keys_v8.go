package config

// Table keys of table versions 8 and 9 that readers take from hoodie.properties and that
// are not settings of a write (hoodie.record.merge.mode, which a create of version 8/9
// takes, is in keys.go): they are left out of
// registered() and so of keys.go, whose every key is registered (given to a writer, one is
// passed through as an unknown key, with a warning, as before). They live here so that
// every key name hudi-go uses is spelled in this package.
var (
	TimelinePath = noDefault("hoodie.timeline.path", String, Table,
		"Folder of the layout-2 active timeline under .hoodie (table version 8+).")
	TimelineHistoryPath = noDefault("hoodie.timeline.history.path", String, Table,
		"Folder of the LSM timeline history under .hoodie (table version 8+).")
	TableOrderingFields = noDefault("hoodie.table.ordering.fields", List, Table,
		"Persisted ordering fields (table version 9; hoodie.table.precombine.field before).")
	TableKeyGeneratorType = noDefault("hoodie.table.keygenerator.type", String, Table,
		"Persisted key generator type name (table version 8+; the class before).")
)
