//go:build race

package isolation

// raceEnabled: the race detector maps shadow memory that an address-space
// limit cannot accommodate.
const raceEnabled = true
