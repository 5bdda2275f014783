// Package sim is an overload simulator for concurrency limiters: a
// discrete-event simulation (DES) of a dependency of known capacity, a
// load, and the limiter under test between them.
//
// # The simulation
//
// A run ([Run]) is one goroutine, an event heap (arrivals, completions,
// phase changes, samples) and a FIFO of client timeouts (every call has the
// same timeout, so they expire in admission order), on a virtual clock: an
// event is processed at its instant, nothing waits in real time, and the
// same seed gives the same trace. r4c's adaptive limit runs on that clock
// (it implements policy.Clock; the limiter only reads Now and Nanotime).
// Peers that read time.Now themselves (failsafe-go's adaptivelimiter,
// go-concurrency-limits) run the same DES inside a testing/synctest bubble,
// whose clock the run advances with time.Sleep before each event; that is
// what Run's *testing.T is for.
//
// # The dependency
//
// A [Scenario] describes it: the [Model] (FIFO: C workers in front of one
// queue; PS: processor sharing over k cores, like a CPU-bound database,
// every running call progressing at min(1, k/n), or k/(n(1+α(n-k))) with a
// contention factor α), the mean service time Base and its [Service]
// distribution (log-normal of σ 0.25 to 1.25, or a bimodal mix), the
// client's timeout, and what the dependency does with a call whose client
// gave up ([Abandon]). A client timeout frees the call's slot at that
// instant and is reported to the limiter as a drop. The load is open-loop
// Poisson (a multiple of the capacity, or a rate) or closed-loop clients.
// [Phase]s change the capacity (in steps or a [Wave]), the service-time
// scale (in steps or a drift) and the load.
//
// # The figures
//
// [Measure] turns a trace into [Figures]: goodput against what could be
// served, admitted p50/p99 in multiples of Base, the limit against C,
// settle times, the worst 10 s stretch, the share rejected. [Judge] holds
// them to the bar of issue 9 against the [Reference] (a bulkhead fixed at
// C, or the [Oracle] where C changes), [Score] and [ScoreTable] sum results
// up by family.
//
// # The matrix
//
// [Families] is the scenario matrix (capacity, latency, noise, timeouts,
// overload, processor sharing, start, dynamics, and a holdout family of
// shapes drawn at random, run on seeds nobody tunes on). TestMatrix holds
// one limiter to the bar on all of it:
//
//	go test ./sim -run TestMatrix -v                        # r4c's Little, 3 seeds
//	go test ./sim -run TestMatrix/ps -v -sim.alg=vegas      # one family, another algorithm
//	go test ./sim -run TestMatrix -v -sim.alg=little -sim.config=window=500ms -sim.seeds=5
//
// -sim.alg takes any adaptivelimit.Algorithm by name (one added to the
// library needs no change here) or a report limiter's name; -sim.config
// sets adaptivelimit.Config fields ([ParseSpec]). Under the race detector
// TestMatrix runs one seed per scenario unless -sim.seeds says otherwise.
//
// [RunReport] runs every limiter over the matrix for docs/adaptation.md: a
// table per family and charts of the hardest scenarios ([ChartScenarios]),
//
//	go test ./sim -run TestReport -sim.report -timeout 30m   # about 3.5 minutes
//
// The limiters ([Specs]) are r4c's adaptive limit with each algorithm,
// failsafe-go's adaptivelimiter, go-concurrency-limits' Gradient2 and AIMD,
// fixed bulkheads and the oracle; [R4C] runs the library with any
// configuration, and RefGradient2, RefAIMD and RefVegas the reference
// arithmetic on a model of r4c's windowing, which
// TestLibraryMatchesReference holds the library to.
package sim
