package serve

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver, pure Go
)

// The store keeps runs in SQLite: their requests, states, events, steps
// and results, so that history and every run's event stream survive a
// restart.
//
// Writes go through one goroutine, which owns the only writing connection
// and commits whatever is pending in one transaction (a group commit).
// SQLite takes one writer at a time anyway; many goroutines writing would
// queue on its lock (and time out as SQLITE_BUSY under load), while one
// writer turns the events of hundreds of concurrent runs into a few
// commits a second, keeps each run's events in order without locking, and
// never makes a run wait for the disk: the live stream is served from
// memory (see run) and a run leaves memory only once its last event is
// committed. Reads use a pool of their own; in WAL mode they neither block
// nor are blocked by the writer. A ":memory:" database has one connection
// shared by both, since every connection to it would be another database.

// schema holds the migrations, in order: schema[i] moves the database
// from version i to i+1 (PRAGMA user_version). Append, never edit.
var schema = []string{
	// 1: runs, their events and steps.
	`CREATE TABLE runs (
		seq        INTEGER PRIMARY KEY AUTOINCREMENT,
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
		input_tokens  INTEGER,
		output_tokens INTEGER,
		duration      REAL
	);
	CREATE TABLE events (
		run_id TEXT NOT NULL,
		id     INTEGER NOT NULL,
		type   TEXT NOT NULL,
		data   TEXT NOT NULL,
		PRIMARY KEY (run_id, id)
	) WITHOUT ROWID;
	CREATE TABLE steps (
		run_id TEXT NOT NULL,
		n      INTEGER NOT NULL,
		type   TEXT NOT NULL,
		data   TEXT NOT NULL,
		PRIMARY KEY (run_id, n)
	) WITHOUT ROWID;
	CREATE INDEX runs_state ON runs (state) WHERE state IN ('queued', 'running');`,
	// 2: steps counts the action steps, as the CLI does; it counted the
	// task and final answer steps too.
	`UPDATE runs SET steps = (
		SELECT count(*) FROM json_each(runs.result, '$.steps')
		WHERE json_extract(value, '$.type') = 'action'
	) WHERE result IS NOT NULL;`,
	// 3: every run belongs to a tenant ("" on a server without tokens,
	// and for runs stored before tenants).
	`ALTER TABLE runs ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
	CREATE INDEX runs_tenant ON runs (tenant, seq);
	CREATE INDEX runs_tenant_ended ON runs (tenant, ended_at);`,
	// 4: durable runs. A run is owned by one server at a time (owner,
	// lease_until in Unix milliseconds of the database's clock); attempt
	// counts its owners and fences every write; cancel_requested reaches
	// the owner from any replica; idempotency_key makes creation
	// idempotent per tenant.
	`ALTER TABLE runs ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE runs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE runs ADD COLUMN idempotency_key TEXT;
	CREATE UNIQUE INDEX runs_idempotency ON runs (tenant, idempotency_key) WHERE idempotency_key IS NOT NULL;`,
	// 5: replicas and their heartbeats (alive_until, Unix milliseconds of
	// the database's clock), so that a replica can tell which sandboxes
	// belong to a server that is gone.
	`CREATE TABLE replicas (
		id          TEXT PRIMARY KEY,
		alive_until INTEGER NOT NULL
	);`,
	// 6: decisions on approvals, made on any replica and read by the one
	// running the run (approvals_shared.go); the first decision wins.
	`CREATE TABLE approval_decisions (
		run_id      TEXT NOT NULL,
		approval_id TEXT NOT NULL,
		decision    TEXT NOT NULL,
		decided_at  TEXT NOT NULL,
		PRIMARY KEY (run_id, approval_id)
	) WITHOUT ROWID;`,
}

// Store is the database of a server: SQLite (one server per file) or
// PostgreSQL (any number of replicas; see store_postgres.go).
type Store struct {
	r, w *sql.DB
	log  *slog.Logger
	// pg is set on PostgreSQL: queries are rebound ($1 for ?), and
	// notifications carry events and cancellations between replicas.
	pg     bool
	pgURL  string
	listen *listener
	// lock holds the database's lock file (see lockDB); nil in memory.
	lock *os.File

	ops     chan storeOp
	stop    chan struct{}
	stopped chan struct{}

	closeOnce sync.Once
	mu        sync.Mutex // guards closed
	closed    bool
}

// storeOp is one write. done, when set, receives its outcome once it is
// committed (or failed).
type storeOp struct {
	what string
	do   func(tx *sql.Tx) error
	done chan error
	// run and attempt, when run is set, fence the write: it is skipped
	// (and fenced called) unless the run is still at that attempt, that
	// is, still this server's.
	run     string
	attempt int64
	fenced  func()
}

// errStoreClosed is returned for writes after Close.
var errStoreClosed = errors.New("store: closed")

// errFenced is the outcome of a write to a run another server has taken
// over.
var errFenced = errors.New("store: the run belongs to another server now")

// DefaultDBPath is where runs are kept unless --db says otherwise:
// star-agent/runs.db under $XDG_DATA_HOME, or ~/.local/share.
func DefaultDBPath() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "star-agent", "runs.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no data directory for the run database (%v): pass --db with a path, or :memory: to keep nothing", err)
	}
	return filepath.Join(home, ".local", "share", "star-agent", "runs.db"), nil
}

// OpenStore opens (creating it if needed) the database at path, or an
// in-memory one for ":memory:", or the PostgreSQL database of a
// postgres:// URL, and brings its schema up to date. What becomes of the
// runs a previous process left queued or running is the server's
// decision (Options.Resume).
func OpenStore(path string, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if IsPostgresURL(path) {
		return openPostgres(path, log)
	}
	s := &Store{log: log, ops: make(chan storeOp, 4096), stop: make(chan struct{}), stopped: make(chan struct{})}
	pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_txlock=immediate"
	if path == ":memory:" {
		db, err := sql.Open("sqlite", "file::memory:?"+pragmas)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		db.SetMaxOpenConns(1)
		db.SetConnMaxIdleTime(0)
		db.SetConnMaxLifetime(0)
		s.r, s.w = db, db
	} else {
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("store: %w (pass --db PATH with a writable directory)", err)
			}
		}
		lock, err := lockDB(path)
		if err != nil {
			return nil, err
		}
		s.lock = lock
		dsn := "file:" + path + "?" + pragmas + "&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
		w, err := sql.Open("sqlite", dsn)
		if err != nil {
			s.unlock()
			return nil, fmt.Errorf("store: %w", err)
		}
		w.SetMaxOpenConns(1)
		r, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)")
		if err != nil {
			w.Close()
			s.unlock()
			return nil, fmt.Errorf("store: %w", err)
		}
		r.SetMaxOpenConns(8)
		s.r, s.w = r, w
	}
	if err := s.migrate(); err != nil {
		s.closeDBs()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	go s.writer()
	return s, nil
}

// q rebinds a query written with ? placeholders for the database.
func (s *Store) q(query string) string {
	if !s.pg {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// nowMS is the database's clock in Unix milliseconds, as SQL: leases are
// compared on one clock, whichever server writes them.
func (s *Store) nowMS() string {
	if s.pg {
		return "(extract(epoch from clock_timestamp()) * 1000)::bigint"
	}
	return "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
}

func (s *Store) closeDBs() {
	s.w.Close()
	if s.r != s.w {
		s.r.Close()
	}
	s.unlock()
}

// unlock releases the database's lock file.
func (s *Store) unlock() {
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
}

// migrate applies the migrations the database lacks, each in a
// transaction with its version bump.
func (s *Store) migrate() error {
	ctx := context.Background()
	var version int
	if err := s.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w (is it an SQLite database?)", err)
	}
	if version > len(schema) {
		return fmt.Errorf("the database has schema version %d, newer than this star-agent knows (%d): upgrade star-agent or use another --db", version, len(schema))
	}
	for v := version; v < len(schema); v++ {
		tx, err := s.w.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(schema[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration to version %d: %w", v+1, err)
		}
		if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration to version %d: %w", v+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration to version %d: %w", v+1, err)
		}
	}
	return nil
}

// interruptOrphans ends the runs a previous process left queued or
// running (SQLite only: the lock says no other server has them).
func (s *Store) interruptOrphans() error {
	ctx := context.Background()
	rows, err := s.w.QueryContext(ctx, `SELECT id, state, created_at, started_at FROM runs WHERE state IN ('queued', 'running', 'awaiting_approval')`)
	if err != nil {
		return err
	}
	type open struct {
		id, state, created string
		started            sql.NullString
	}
	var runs []open
	for rows.Next() {
		var o open
		if err := rows.Scan(&o.id, &o.state, &o.created, &o.started); err != nil {
			rows.Close()
			return err
		}
		runs = append(runs, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	now := time.Now().UTC()
	for _, o := range runs {
		msg := fmt.Sprintf("the server stopped while the run was %s", o.state)
		start, _ := time.Parse(time.RFC3339Nano, o.created)
		if o.started.Valid {
			start, _ = time.Parse(time.RFC3339Nano, o.started.String)
		}
		end := endEvent{State: StateInterrupted, Error: msg, Timing: timingOf(start, now)}
		data, _ := json.Marshal(end)
		tx, err := s.w.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		var last int64
		if err := tx.QueryRow(`SELECT coalesce(max(id), 0) FROM events WHERE run_id = ?`, o.id).Scan(&last); err != nil {
			tx.Rollback()
			return err
		}
		if _, err := tx.Exec(`INSERT INTO events (run_id, id, type, data) VALUES (?, ?, 'end', ?)`, o.id, last+1, string(data)); err != nil {
			tx.Rollback()
			return err
		}
		if _, err := tx.Exec(`UPDATE runs SET state = ?, error = ?, ended_at = ? WHERE id = ?`, StateInterrupted, msg, formatTime(now), o.id); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		s.log.Warn("run interrupted by the previous shutdown", "run", o.id, "state", o.state)
	}
	return nil
}

// writer commits the pending writes in batches until Close.
func (s *Store) writer() {
	defer close(s.stopped)
	batch := make([]storeOp, 0, 512)
	for {
		batch = batch[:0]
		select {
		case op := <-s.ops:
			batch = append(batch, op)
		case <-s.stop:
			// Drain what was queued before Close.
			for {
				select {
				case op := <-s.ops:
					batch = append(batch, op)
					continue
				default:
				}
				break
			}
			s.commit(batch)
			return
		}
	fill:
		for len(batch) < cap(batch) {
			select {
			case op := <-s.ops:
				batch = append(batch, op)
			default:
				break fill
			}
		}
		s.commit(batch)
	}
}

// commit runs a batch in one transaction. If that fails, each op is
// retried alone so that one bad write does not lose the others.
func (s *Store) commit(batch []storeOp) {
	if len(batch) == 0 {
		return
	}
	fenced := map[int]bool{}
	var err error
	for wait := 100 * time.Millisecond; ; wait = min(wait*2, 5*time.Second) {
		err = s.commitOnce(batch, fenced)
		// PostgreSQL unreachable (restarting, failing over): the batch
		// waits for it rather than losing events, which would leave
		// gaps in the runs' ids. An error of the database itself (a
		// constraint) is not retried.
		if err == nil || !s.pg || isPgError(err) || s.isClosing() {
			break
		}
		s.log.Warn("store: the database is unreachable; retrying the writes", "error", err, "writes", len(batch), "retry_in", wait)
		time.Sleep(wait)
	}
	s.finishBatch(batch, fenced, err)
}

// lockRuns reads the attempts of the runs a batch writes to. On
// PostgreSQL it locks their rows, in the order of their ids (as
// renewLeases does, so that the two never deadlock): a takeover, which
// bumps the attempt, waits for this commit, and this commit sees a
// takeover that came first.
func (s *Store) lockRuns(tx *sql.Tx, batch []storeOp) (map[string]int64, error) {
	seen := map[string]bool{}
	var ids []string
	for _, op := range batch {
		if op.run != "" && !seen[op.run] {
			seen[op.run] = true
			ids = append(ids, op.run)
		}
	}
	out := map[string]int64{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows *sql.Rows
	var err error
	if s.pg {
		rows, err = tx.Query(`SELECT id, attempt FROM runs WHERE id = ANY($1) ORDER BY id FOR UPDATE`, ids)
	} else {
		args := make([]any, len(ids))
		for i, id := range ids {
			args[i] = id
		}
		rows, err = tx.Query(`SELECT id, attempt FROM runs WHERE id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, args...)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var a int64
		if err := rows.Scan(&id, &a); err != nil {
			return nil, err
		}
		out[id] = a
	}
	return out, rows.Err()
}

// isClosing reports whether Close was called.
func (s *Store) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

func (s *Store) commitOnce(batch []storeOp, fenced map[int]bool) error {
	return s.inTx(func(tx *sql.Tx) error {
		clear(fenced)
		// The attempt of each run written, read once per batch with a
		// row lock: a takeover (which bumps the attempt) waits for this
		// commit, and this commit sees a takeover that came first.
		attempts, err := s.lockRuns(tx, batch)
		if err != nil {
			return err
		}
		touched := map[string]bool{}
		for i, op := range batch {
			if op.run != "" {
				a, ok := attempts[op.run]
				if !ok {
					a = -1 // no such run
				}
				if a != op.attempt {
					fenced[i] = true
					continue
				}
				touched[op.run] = true
			}
			if err := op.do(tx); err != nil {
				return err
			}
		}
		if s.pg && len(touched) > 0 {
			// One notification per run per commit (PostgreSQL folds
			// repeats within a transaction anyway): the replicas
			// streaming these runs re-read them.
			for id := range touched {
				if _, err := tx.Exec(`SELECT pg_notify('star_agent_events', $1)`, id); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func (s *Store) finishBatch(batch []storeOp, fenced map[int]bool, err error) {
	if err == nil || len(batch) == 1 {
		for i, op := range batch {
			e := err
			if e == nil && fenced[i] {
				e = errFenced
				if op.fenced != nil {
					op.fenced()
				}
			}
			if err != nil {
				s.log.Error("store: write failed", "what", op.what, "error", err)
			}
			if op.done != nil {
				op.done <- e
			}
		}
		return
	}
	for _, op := range batch {
		s.commit([]storeOp{op})
	}
}

func (s *Store) inTx(f func(tx *sql.Tx) error) error {
	tx, err := s.w.Begin()
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// enqueue hands op to the writer; with wait, it returns op's outcome.
func (s *Store) enqueue(ctx context.Context, op storeOp, wait bool) error {
	if wait {
		op.done = make(chan error, 1)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errStoreClosed
	}
	// Sent under the lock so that Close cannot stop the writer between
	// the check and the send; the writer never takes the lock.
	select {
	case s.ops <- op:
	case <-ctx.Done():
		s.mu.Unlock()
		return ctx.Err()
	}
	s.mu.Unlock()
	if !wait {
		return nil
	}
	select {
	case err := <-op.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Flush waits until every write enqueued before it is committed.
func (s *Store) Flush(ctx context.Context) error {
	return s.enqueue(ctx, storeOp{what: "flush", do: func(*sql.Tx) error { return nil }}, true)
}

// Close commits the pending writes and closes the database.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.stop)
		<-s.stopped
		if s.r != s.w {
			s.r.Close()
		}
		if s.listen != nil {
			s.listen.close()
		}
		// Checkpoint the WAL into the database file on the way out.
		if !s.pg {
			s.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
		}
		s.w.Close()
		s.unlock()
	})
	return nil
}

// Ping checks that the database answers a read.
func (s *Store) Ping(ctx context.Context) error {
	var n int
	return s.r.QueryRowContext(ctx, "SELECT 1").Scan(&n)
}

// runRecord is a run as stored.
type runRecord struct {
	Seq       int64
	ID        string
	Task      string
	Request   json.RawMessage
	State     State
	CreatedAt time.Time
	StartedAt time.Time
	EndedAt   time.Time
	Error     string
	Result    json.RawMessage // the RunResult, once ended
	Steps     int             // action steps
	Input     int
	Output    int
	Duration  float64
	Tenant    string
	// Attempt counts the servers that have run it; IdempotencyKey is the
	// client's key of its creation, if any.
	Attempt        int64
	IdempotencyKey string
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// fence names a run and the attempt a server holds it at: its writes
// are refused once another server has taken the run over (lost is then
// called, from the writer: it must not block).
type fence struct {
	run     string
	attempt int64
	lost    func()
}

func (s *Store) op(f fence, what string, do func(tx *sql.Tx) error) storeOp {
	return storeOp{what: what, do: do, run: f.run, attempt: f.attempt, fenced: f.lost}
}

// createRun stores a new run, owned by owner with a lease of lease, and
// waits for the commit. With an idempotency key a run already has (for
// the tenant), nothing is stored and created is false.
func (s *Store) createRun(ctx context.Context, r *runRecord, owner string, lease time.Duration) (created bool, err error) {
	err = s.enqueue(ctx, storeOp{what: "create run " + r.ID, do: func(tx *sql.Tx) error {
		res, err := tx.Exec(s.q(`INSERT INTO runs (id, task, request, state, created_at, tenant, attempt, owner, lease_until, idempotency_key)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, `+s.nowMS()+` + ?, ?)
			ON CONFLICT (tenant, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`),
			r.ID, r.Task, string(r.Request), r.State, formatTime(r.CreatedAt), r.Tenant, r.Attempt, owner, lease.Milliseconds(), nullString(r.IdempotencyKey))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		created = n == 1
		return err
	}}, true)
	return created, err
}

// runByKey is the id of the tenant's run created with an idempotency key.
func (s *Store) runByKey(ctx context.Context, tenant, key string) (string, error) {
	var id string
	err := s.w.QueryRowContext(ctx, s.q(`SELECT id FROM runs WHERE tenant = ? AND idempotency_key = ?`), tenant, key).Scan(&id)
	return id, err
}

// addEvent stores an event of a run.
func (s *Store) addEvent(f fence, ev storedEvent) {
	s.enqueue(context.Background(), s.op(f, "event of "+f.run, func(tx *sql.Tx) error {
		_, err := tx.Exec(s.q(`INSERT INTO events (run_id, id, type, data) VALUES (?, ?, ?, ?)`), f.run, ev.ID, ev.Type, string(ev.Data))
		return err
	}), false)
}

// addStep stores a step of a run and waits for the commit: a step is
// durable before the run asks the model for the next one, so a run
// resumed elsewhere never asks again for a step that ended.
func (s *Store) addStep(f fence, n int, typ string, data []byte) error {
	return s.enqueue(context.Background(), s.op(f, "step of "+f.run, func(tx *sql.Tx) error {
		_, err := tx.Exec(s.q(`INSERT INTO steps (run_id, n, type, data) VALUES (?, ?, ?, ?)`), f.run, n, typ, string(data))
		return err
	}), true)
}

// setRunning records that a run started.
func (s *Store) setRunning(f fence, at time.Time) {
	s.enqueue(context.Background(), s.op(f, "start of "+f.run, func(tx *sql.Tx) error {
		_, err := tx.Exec(s.q(`UPDATE runs SET state = ?, started_at = coalesce(started_at, ?) WHERE id = ?`), StateRunning, formatTime(at), f.run)
		return err
	}), false)
}

// finishRun records how a run ended.
func (s *Store) finishRun(f fence, r *runRecord) {
	s.enqueue(context.Background(), s.op(f, "end of "+r.ID, func(tx *sql.Tx) error {
		var result any
		if len(r.Result) > 0 {
			result = string(r.Result)
		}
		_, err := tx.Exec(s.q(`UPDATE runs SET state = ?, ended_at = ?, error = ?, result = ?, steps = ?, input_tokens = ?, output_tokens = ?, duration = ?, owner = '', lease_until = 0 WHERE id = ?`),
			r.State, formatTime(r.EndedAt), nullString(r.Error), result, r.Steps, r.Input, r.Output, r.Duration, r.ID)
		return err
	}), false)
}

const runColumns = `seq, id, task, request, state, created_at, started_at, ended_at, error, result, steps, input_tokens, output_tokens, duration`

type scanner interface{ Scan(dest ...any) error }

func scanRun(sc scanner, withResult bool) (*runRecord, error) {
	var r runRecord
	var request, created string
	var started, ended, errText, result sql.NullString
	var steps, in, out sql.NullInt64
	var dur sql.NullFloat64
	if err := sc.Scan(&r.Seq, &r.ID, &r.Task, &request, &r.State, &created, &started, &ended, &errText, &result, &steps, &in, &out, &dur); err != nil {
		return nil, err
	}
	r.Request = json.RawMessage(request)
	r.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	if started.Valid {
		r.StartedAt, _ = time.Parse(time.RFC3339Nano, started.String)
	}
	if ended.Valid {
		r.EndedAt, _ = time.Parse(time.RFC3339Nano, ended.String)
	}
	r.Error = errText.String
	if withResult && result.Valid {
		r.Result = json.RawMessage(result.String)
	}
	r.Steps, r.Input, r.Output, r.Duration = int(steps.Int64), int(in.Int64), int(out.Int64), dur.Float64
	return &r, nil
}

// errNoRun is returned for an unknown run id.
var errNoRun = errors.New("no such run")

// getRun reads a run with its result.
func (s *Store) getRun(ctx context.Context, id string) (*runRecord, error) {
	r, err := scanRun(s.r.QueryRowContext(ctx, s.q(`SELECT `+runColumns+` FROM runs WHERE id = ?`), id), true)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoRun
	}
	return r, err
}

// lastEventID is the id of a run's last stored event.
func (s *Store) lastEventID(ctx context.Context, id string) (int64, error) {
	var n int64
	err := s.r.QueryRowContext(ctx, s.q(`SELECT coalesce(max(id), 0) FROM events WHERE run_id = ?`), id).Scan(&n)
	return n, err
}

// listRuns reads up to limit runs older than the cursor, newest first,
// without their results, and the cursor of the next page ("" at the end).
// With tenants set, only their runs are listed.
func (s *Store) listRuns(ctx context.Context, cursor string, limit int, tenants []string) ([]*runRecord, string, error) {
	before := int64(1<<63 - 1)
	if cursor != "" {
		seq, err := decodeCursor(cursor)
		if err != nil {
			return nil, "", err
		}
		before = seq
	}
	q, args := `SELECT `+runColumns+` FROM runs WHERE seq < ? ORDER BY seq DESC LIMIT ?`, []any{before, limit + 1}
	switch len(tenants) {
	case 0:
	case 1:
		q, args = `SELECT `+runColumns+` FROM runs WHERE tenant = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, []any{tenants[0], before, limit + 1}
	default:
		q, args = `SELECT `+runColumns+` FROM runs WHERE tenant IN (?, ?) AND seq < ? ORDER BY seq DESC LIMIT ?`, []any{tenants[0], tenants[1], before, limit + 1}
	}
	rows, err := s.r.QueryContext(ctx, s.q(q), args...)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	var out []*runRecord
	for rows.Next() {
		r, err := scanRun(rows, false)
		if err != nil {
			return nil, "", err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = encodeCursor(out[len(out)-1].Seq)
	}
	return out, next, nil
}

// errBadCursor is returned for a cursor this server did not write.
var errBadCursor = errors.New("bad cursor")

func encodeCursor(seq int64) string {
	var b [9]byte
	b[0] = 1 // version
	binary.BigEndian.PutUint64(b[1:], uint64(seq))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func decodeCursor(c string) (int64, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) != 9 || b[0] != 1 {
		return 0, errBadCursor
	}
	seq := int64(binary.BigEndian.Uint64(b[1:]))
	if seq <= 0 {
		return 0, errBadCursor
	}
	return seq, nil
}

// events reads up to limit events of a run after the given id.
func (s *Store) events(ctx context.Context, id string, after int64, limit int) ([]storedEvent, error) {
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT id, type, data FROM events WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?`), id, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storedEvent
	for rows.Next() {
		var ev storedEvent
		var data string
		if err := rows.Scan(&ev.ID, &ev.Type, &data); err != nil {
			return nil, err
		}
		ev.Data = json.RawMessage(data)
		out = append(out, ev)
	}
	return out, rows.Err()
}
