package write

import (
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/write/index"
)

// newBucketFileID is a new file group id for a bucket: a random UUID whose first eight
// characters are the bucket number, plus "-0".
func newBucketFileID(bucket int) spec.FileID { return index.FileID(bucket, newFileID()) }
