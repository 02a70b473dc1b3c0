package router

import "errors"

// ModalConfig configures --executor modal.
type ModalConfig struct{}

func openModal(cfg Config) (Python, error) {
	return nil, errors.New("--executor modal is not available in this build")
}
