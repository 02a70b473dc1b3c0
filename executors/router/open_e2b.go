package router

import "errors"

// E2BConfig configures --executor e2b.
type E2BConfig struct{}

func openE2B(cfg Config) (Python, error) {
	return nil, errors.New("--executor e2b is not available in this build")
}
