package serve

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// On PostgreSQL the store is shared by any number of replicas. The tables
// mirror SQLite's, migration for migration (times stay RFC 3339 text, so
// both stores read and write them with the same code); the version is
// kept in star_agent_schema, and a transaction-scoped advisory lock lets
// replicas that start together migrate once. Each replica still commits
// through one writer goroutine (a group commit), and notifies
// star_agent_events with the id of every run a commit wrote to: the
// replicas streaming that run re-read it from the last id they sent.
// Notifications are hints; a stream re-reads every second and after its
// listener reconnects, so a missed one costs latency, never events.

// pgSchema mirrors schema: pgSchema[i] moves the database from version i
// to i+1. Append, never edit.
var pgSchema = []string{
	// 1: runs, their events and steps.
	`CREATE TABLE runs (
		seq        BIGSERIAL PRIMARY KEY,
		id         TEXT NOT NULL UNIQUE,
		task       TEXT NOT NULL,
		request    TEXT NOT NULL,
		state      TEXT NOT NULL,
		created_at TEXT NOT NULL,
		started_at TEXT,
		ended_at   TEXT,
		error      TEXT,
		result     TEXT,
		steps         INTEGER,
		input_tokens  BIGINT,
		output_tokens BIGINT,
		duration      DOUBLE PRECISION
	);
	CREATE TABLE events (
		run_id TEXT NOT NULL,
		id     BIGINT NOT NULL,
		type   TEXT NOT NULL,
		data   TEXT NOT NULL,
		PRIMARY KEY (run_id, id)
	);
	CREATE TABLE steps (
		run_id TEXT NOT NULL,
		n      INTEGER NOT NULL,
		type   TEXT NOT NULL,
		data   TEXT NOT NULL,
		PRIMARY KEY (run_id, n)
	);
	CREATE INDEX runs_state ON runs (state) WHERE state IN ('queued', 'running');`,
	// 2: SQLite's recount of steps; a PostgreSQL store never had the old
	// count.
	`SELECT 1`,
	// 3: tenants.
	`ALTER TABLE runs ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
	CREATE INDEX runs_tenant ON runs (tenant, seq);
	CREATE INDEX runs_tenant_ended ON runs (tenant, ended_at);`,
	// 4: durable runs (see schema).
	`ALTER TABLE runs ADD COLUMN attempt BIGINT NOT NULL DEFAULT 0;
	ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
	ALTER TABLE runs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE runs ADD COLUMN idempotency_key TEXT;
	CREATE UNIQUE INDEX runs_idempotency ON runs (tenant, idempotency_key) WHERE idempotency_key IS NOT NULL;
	CREATE INDEX runs_open ON runs (lease_until) WHERE state IN ('queued', 'running', 'awaiting_approval');`,
	// 5: replicas (see schema).
	`CREATE TABLE replicas (
		id          TEXT PRIMARY KEY,
		alive_until BIGINT NOT NULL
	);`,
	// 6: approval decisions (see schema).
	`CREATE TABLE approval_decisions (
		run_id      TEXT NOT NULL,
		approval_id TEXT NOT NULL,
		decision    TEXT NOT NULL,
		decided_at  TEXT NOT NULL,
		PRIMARY KEY (run_id, approval_id)
	);`,
}

// IsPostgresURL reports whether a --db value names a PostgreSQL database.
func IsPostgresURL(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

func openPostgres(url string, log *slog.Logger) (*Store, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	where := fmt.Sprintf("%s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
	s := &Store{log: log, pg: true, pgURL: url, ops: make(chan storeOp, 4096), stop: make(chan struct{}), stopped: make(chan struct{})}
	s.w = stdlib.OpenDB(*cfg)
	s.w.SetMaxOpenConns(4)
	s.r = stdlib.OpenDB(*cfg)
	s.r.SetMaxOpenConns(8)
	s.r.SetMaxIdleConns(8)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.w.PingContext(ctx); err != nil {
		s.closeDBs()
		return nil, fmt.Errorf("store %s: %w", where, err)
	}
	if err := s.migratePostgres(ctx); err != nil {
		s.closeDBs()
		return nil, fmt.Errorf("store %s: %w", where, err)
	}
	s.listen = newListener(cfg, log)
	go s.writer()
	return s, nil
}

func (s *Store) migratePostgres(ctx context.Context) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Replicas starting together migrate one after the other.
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(4242026)`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS star_agent_schema (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("create the schema version table: %w", err)
	}
	var version int
	err = tx.QueryRowContext(ctx, `SELECT version FROM star_agent_schema`).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) {
		_, err = tx.ExecContext(ctx, `INSERT INTO star_agent_schema (version) VALUES (0)`)
	}
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version > len(pgSchema) {
		return fmt.Errorf("the database has schema version %d, newer than this star-agent knows (%d): upgrade star-agent or use another --db", version, len(pgSchema))
	}
	for v := version; v < len(pgSchema); v++ {
		if _, err := tx.ExecContext(ctx, pgSchema[v]); err != nil {
			return fmt.Errorf("migration to version %d: %w", v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE star_agent_schema SET version = $1`, len(pgSchema)); err != nil {
		return err
	}
	return tx.Commit()
}

// listener holds the replica's LISTEN connection and fans notifications
// out: star_agent_events to the streams of a run, star_agent_cancel to
// onCancel. After a reconnection every stream is woken, since
// notifications sent meanwhile are lost.
type listener struct {
	cfg  *pgx.ConnConfig
	log  *slog.Logger
	stop context.CancelFunc
	done chan struct{}

	mu       sync.Mutex
	subs     map[string]map[chan struct{}]struct{}
	onCancel func(run string)
}

func newListener(cfg *pgx.ConnConfig, log *slog.Logger) *listener {
	ctx, cancel := context.WithCancel(context.Background())
	l := &listener{cfg: cfg, log: log, stop: cancel, done: make(chan struct{}), subs: map[string]map[chan struct{}]struct{}{}}
	go l.loop(ctx)
	return l
}

func (l *listener) close() {
	l.stop()
	<-l.done
}

// subscribe returns a channel that receives a value when the run may have
// new events, and the function that ends the subscription.
func (l *listener) subscribe(run string) (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	l.mu.Lock()
	if l.subs[run] == nil {
		l.subs[run] = map[chan struct{}]struct{}{}
	}
	l.subs[run][c] = struct{}{}
	l.mu.Unlock()
	return c, func() {
		l.mu.Lock()
		delete(l.subs[run], c)
		if len(l.subs[run]) == 0 {
			delete(l.subs, run)
		}
		l.mu.Unlock()
	}
}

func (l *listener) wake(run string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for r, cs := range l.subs {
		if run != "" && r != run {
			continue
		}
		for c := range cs {
			select {
			case c <- struct{}{}:
			default:
			}
		}
	}
}

func (l *listener) setOnCancel(f func(run string)) {
	l.mu.Lock()
	l.onCancel = f
	l.mu.Unlock()
}

func (l *listener) loop(ctx context.Context) {
	defer close(l.done)
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, l.cfg)
		if err == nil {
			_, err = conn.Exec(ctx, `LISTEN star_agent_events; LISTEN star_agent_cancel`)
		}
		if err == nil {
			backoff = 100 * time.Millisecond
			l.wake("") // whatever was sent while nobody listened
			for {
				var n *pgconnNotification
				n, err = waitNotification(ctx, conn)
				if err != nil {
					break
				}
				switch n.channel {
				case "star_agent_events":
					l.wake(n.payload)
				case "star_agent_cancel":
					l.mu.Lock()
					f := l.onCancel
					l.mu.Unlock()
					if f != nil {
						f(n.payload)
					}
				}
			}
		}
		if conn != nil {
			conn.Close(context.Background())
		}
		if ctx.Err() != nil {
			return
		}
		l.log.Warn("store: listening for notifications", "error", err, "retry_in", backoff)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// isPgError reports whether err is an error PostgreSQL answered (as
// opposed to a lost connection).
func isPgError(err error) bool {
	_, ok := errors.AsType[*pgconn.PgError](err)
	return ok
}

type pgconnNotification struct{ channel, payload string }

func waitNotification(ctx context.Context, conn *pgx.Conn) (*pgconnNotification, error) {
	n, err := conn.WaitForNotification(ctx)
	if err != nil {
		return nil, err
	}
	return &pgconnNotification{n.Channel, n.Payload}, nil
}
