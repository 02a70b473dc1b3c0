//go:build !unix

package serve

import "os"

// lockDB does nothing where flock is missing: run one server per --db.
func lockDB(path string) (*os.File, error) { return nil, nil }
