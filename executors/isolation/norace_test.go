//go:build !race

package isolation

const raceEnabled = false
