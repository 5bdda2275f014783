package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A database is what the demo loads: the real server (postgres) or, in the
// tests, a model of one.
type database interface {
	// calibrate tunes the query so that it takes about target alone, and
	// returns what it describes the query as and its latency alone (the
	// median of a few runs).
	calibrate(ctx context.Context, target time.Duration) (desc string, alone time.Duration, err error)
	// query runs the query once; it returns once ctx is done at the latest.
	query(ctx context.Context) error
	// fresh gets ready for a run: new connections, and a server that runs
	// nothing left over from the previous run.
	fresh(ctx context.Context) error
	// busy returns how many queries the server is running (those whose
	// client gave up included) and how many connections it serves.
	busy(ctx context.Context) (running, conns int, err error)
}

// The query: an aggregate over a series of n integers, computed in the
// select list (a ProjectSet node) so that the series is streamed rather
// than stored: it costs CPU only, no memory and no disk, and one core
// (run.sh turns parallel workers off). It returns a single row once the
// whole series has been summed.
const querySQL = `SELECT sum(g % 7) FROM (SELECT generate_series(1, $1::int) AS g) AS s`

// postgres is a real server: a pool of connections for the load and one
// connection of its own to watch the server.
type postgres struct {
	poolConfig     *pgxpool.Config
	control        *pgx.Conn  // not for the load: for SHOW, pg_stat_activity
	controlMu      sync.Mutex // a pgx.Conn serves one query at a time
	pool           *pgxpool.Pool
	n              int // the series' length, once calibrated
	version        string
	maxConnections int // the server's
	poolMax        int // the pool's
	warm           int // connections opened before each run
}

// openPostgres connects to the server at dsn and sizes the pool: poolMax
// connections at most, fewer if the server allows fewer.
//
// serverCancel chooses what a query does when its ctx is done: false, pgx's
// default: return at once, send a cancel request and close the connection
// in the background; true: send a cancel request and wait for the server
// to cancel the query (1 s at most), keeping the connection.
func openPostgres(ctx context.Context, dsn string, poolMax int, serverCancel bool) (*postgres, error) {
	pc, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("-dsn: %w", err)
	}
	if serverCancel {
		pc.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
			return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: time.Second}
		}
	}
	pc.ConnConfig.RuntimeParams["application_name"] = "r4c-postgres-demo"
	pc.ConnConfig.ConnectTimeout = 10 * time.Second

	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	control, err := pgx.ConnectConfig(cctx, controlConfig(pc))
	if err != nil {
		return nil, fmt.Errorf("connecting to the server: %w", err)
	}
	p := &postgres{poolConfig: pc, control: control}
	if err := control.QueryRow(cctx, "SELECT version(), current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int").
		Scan(&p.version, &p.maxConnections, new(int)); err != nil {
		control.Close(context.Background())
		return nil, fmt.Errorf("asking the server its version and max_connections: %w", err)
	}
	// Leave room for the control connection, the reserved ones and the
	// backends of queries whose client gave up (they run on until they
	// end, see query).
	p.poolMax = min(poolMax, p.maxConnections/2)
	if p.poolMax < 1 {
		control.Close(context.Background())
		return nil, fmt.Errorf("the server allows %d connections: too few for this demo", p.maxConnections)
	}
	pc.MaxConns = int32(p.poolMax)
	pc.MinConns = 0
	p.warm = min(p.poolMax, 32)
	return p, nil
}

// controlConfig is the configuration of the control connection: the
// pool's, with the simple protocol (no prepared statements to keep in step
// with the server) and the server's cancel at a deadline, so that a slow
// answer does not cost the connection.
func controlConfig(pc *pgxpool.Config) *pgx.ConnConfig {
	cc := pc.ConnConfig.Copy()
	cc.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	cc.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: time.Second}
	}
	return cc
}

// close closes every connection the demo opened.
func (p *postgres) close() {
	if p.pool != nil {
		p.pool.Close()
		p.pool = nil
	}
	p.controlMu.Lock()
	defer p.controlMu.Unlock()
	p.control.Close(context.Background())
}

// query runs the query on a connection of the pool. pgx at its defaults
// handles a ctx done mid-query by sending the server a cancel request and
// closing the connection; the pool opens a new one for a later query.
// PostgreSQL starts a process for each connection and each cancel request,
// one at a time in its postmaster: every timeout costs the server CPU on
// top of the work it wasted (-server-cancel keeps the connection, see
// openPostgres).
func (p *postgres) query(ctx context.Context) error {
	var sum int64
	return p.pool.QueryRow(ctx, querySQL, p.n).Scan(&sum)
}

// fresh replaces the pool by a new one with warm connections open, and
// waits for the server to run no query (at most a minute: past 30 s it
// cancels what still runs).
func (p *postgres) fresh(ctx context.Context) error {
	if p.pool != nil {
		p.pool.Close()
		p.pool = nil
	}
	if err := p.waitIdle(ctx); err != nil {
		return err
	}
	if err := p.waitResponsive(ctx); err != nil {
		return err
	}
	pool, err := pgxpool.NewWithConfig(ctx, p.poolConfig)
	if err != nil {
		return fmt.Errorf("opening the pool: %w", err)
	}
	p.pool = pool
	// Open the warm connections at once, then give them back.
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conns := make([]*pgxpool.Conn, p.warm)
	errs := make([]error, p.warm)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() { conns[i], errs[i] = pool.Acquire(wctx) })
	}
	wg.Wait()
	for _, c := range conns {
		if c != nil {
			c.Release()
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("opening %d connections: %w", p.warm, err)
	}
	return nil
}

// busySQL counts the other client backends that are running something,
// and all of them (a backend is a connection: a process of its own).
const busySQL = `SELECT count(*) FILTER (WHERE state <> 'idle'), count(*) FROM pg_stat_activity
WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`

// busy counts the backends running a query, on the control connection.
// The load runs on other connections, so this never waits for the pool.
func (p *postgres) busy(ctx context.Context) (running, conns int, err error) {
	p.controlMu.Lock()
	defer p.controlMu.Unlock()
	if err := p.reconnect(ctx); err != nil {
		return 0, 0, err
	}
	err = p.control.QueryRow(ctx, busySQL).Scan(&running, &conns)
	return running, conns, err
}

// reconnect opens the control connection again if it was closed: pgx
// closes a connection whose query outlived its ctx, which a busy server
// can make happen. The caller holds controlMu.
func (p *postgres) reconnect(ctx context.Context) error {
	if !p.control.IsClosed() {
		return nil
	}
	conn, err := pgx.ConnectConfig(ctx, controlConfig(p.poolConfig))
	if err != nil {
		return fmt.Errorf("reconnecting to the server: %w", err)
	}
	p.control = conn
	return nil
}

// waitIdle waits until no other backend runs a query and the connections
// of the previous pool are gone (PostgreSQL ends a backend some time after
// its client closed the connection): for 30 s, then it cancels the queries
// still running and waits 30 s more.
func (p *postgres) waitIdle(ctx context.Context) error {
	start := time.Now()
	cancelled := false
	for {
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		busy, conns, err := p.busy(qctx)
		cancel()
		waited := time.Since(start)
		switch {
		case err == nil && busy == 0 && conns == 0:
			return nil
		case err == nil && busy == 0 && waited > time.Minute:
			return fmt.Errorf("the server still has %d connections of the previous run after a minute", conns)
		case ctx.Err() != nil:
			return ctx.Err()
		case waited > time.Minute && err != nil:
			return fmt.Errorf("watching the server: %w", err)
		case waited > time.Minute:
			return fmt.Errorf("the server still runs %d queries after a minute", busy)
		case waited > 30*time.Second && !cancelled && err == nil:
			cancelled = true
			p.controlMu.Lock()
			_, err := p.control.Exec(ctx, `SELECT pg_cancel_backend(pid) FROM pg_stat_activity
WHERE backend_type = 'client backend' AND state <> 'idle' AND pid <> pg_backend_pid()`)
			p.controlMu.Unlock()
			if err != nil && ctx.Err() == nil {
				return fmt.Errorf("cancelling the queries left over: %w", err)
			}
		}
		// An error is tried again (busy reconnects) until the minute is up.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitResponsive waits until a new connection opens within a second (3
// minutes at most). After a run full of timeouts, PostgreSQL may still owe
// the processes of hundreds of connections and cancel requests, started
// one at a time by its postmaster, before it can take a new connection;
// pg_stat_activity does not show them.
func (p *postgres) waitResponsive(ctx context.Context) error {
	start := time.Now()
	for {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		conn, err := pgx.ConnectConfig(cctx, controlConfig(p.poolConfig))
		cancel()
		if err == nil {
			return conn.Close(ctx)
		}
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case time.Since(start) > 3*time.Minute:
			return fmt.Errorf("the server takes no new connection within a second, 3 minutes after the run: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// calibrate tunes the series' length n so that the query takes about
// target alone: it times the query at some n, scales n by the ratio, and
// again until the latency is within 5% of target (6 rounds at most).
func (p *postgres) calibrate(ctx context.Context, target time.Duration) (string, time.Duration, error) {
	if p.pool == nil {
		if err := p.fresh(ctx); err != nil {
			return "", 0, err
		}
	}
	p.n = 100_000
	var alone time.Duration
	for range 6 {
		var err error
		if alone, err = p.timeAlone(ctx); err != nil {
			return "", 0, err
		}
		ratio := float64(target) / float64(alone)
		if ratio > 0.95 && ratio < 1.05 {
			break
		}
		p.n = int(min(max(float64(p.n)*ratio, 1000), 1<<30))
	}
	return fmt.Sprintf("%s with $1 = %d", querySQL, p.n), alone, nil
}

// timeAlone runs the query 11 times in a row (after 2 to warm up) and
// returns the median latency.
func (p *postgres) timeAlone(ctx context.Context) (time.Duration, error) {
	lats := make([]time.Duration, 0, 11)
	for i := range 13 {
		qctx, cancel := context.WithTimeout(ctx, time.Minute)
		start := time.Now()
		err := p.query(qctx)
		lat := time.Since(start)
		cancel()
		if err != nil {
			return 0, fmt.Errorf("running the query (n=%d): %w", p.n, err)
		}
		if i >= 2 {
			lats = append(lats, lat)
		}
	}
	slices.Sort(lats)
	return lats[len(lats)/2], nil
}
