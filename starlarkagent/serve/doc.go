// Package serve is the HTTP server of "star-agent serve": it runs agents
// for many clients, streams their events as server-sent events, keeps runs
// in an SQLite database so that history survives a restart, and exposes
// health probes and Prometheus metrics. API.md in this directory is the
// contract with clients, the embedded web page among them.
package serve
