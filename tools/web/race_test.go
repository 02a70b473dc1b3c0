//go:build race

package web

// raceEnabled: the race detector's instrumentation allocates on its own
// (five visits: 264 MiB under -race), so allocation totals are not the
// code's.
const raceEnabled = true
