//go:build !race

package starlarkexec

const raceEnabled = false
