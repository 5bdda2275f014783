// Package dashboard serves a live web page showing every policy instance
// of an r4c registry: each adaptive limit's limit, calls in flight, window
// latency and rejections over the last minutes as charts, the circuit
// breakers' states, and how much of each rate limiter and bulkhead is in
// use. The page updates itself every second by polling a JSON endpoint the
// same handler serves.
//
// A [Dashboard] is an http.Handler. Mount it under a path of its own, with
// a trailing slash:
//
//	d := dashboard.New(reg)
//	go d.Run(ctx) // sample once a second, watched or not (optional)
//	mux.Handle("/r4c/", http.StripPrefix("/r4c", d))
//
// It serves:
//
//	/            the page (HTML with inline CSS, JavaScript and SVG charts)
//	/data        the history and the current figures, as JSON
//	/snapshot    reg.Snapshot() as JSON
//
// The page is embedded in the binary and fetches nothing from anywhere
// else: no CDN, no web font, no script from outside. It works offline, from
// the handler alone.
//
// # History
//
// The dashboard keeps a bounded ring of samples (by default 300, one per
// second: five minutes). A sample is taken by [Dashboard.Sample], by
// [Dashboard.Run] every Interval, and by a request for /data when the last
// sample is at least Interval old, so a dashboard nobody runs still fills
// its history while somebody watches it. Samples are timed on the
// registry's clock: on a clocktest.ManualClock the history moves only when
// the test advances it.
//
// A Dashboard is safe for concurrent use. It starts no goroutine of its
// own; Run runs on the caller's.
package dashboard
