// Package sim is an overload simulator for concurrency limiters.
//
// It models a dependency of known capacity: C workers serve calls in FIFO
// order, each call takes a seeded random service time (log-normal, mean
// [BaseService], σ 0.5, so that 99% of calls finish within 2.83× the mean),
// and the client gives up after [ClientTimeout]. Calls arrive open-loop
// (Poisson, at a rate given as a multiple of the capacity). In front of the
// dependency sits the limiter under test: r4c's adaptive limit (Gradient2,
// AIMD, Vegas and Little, whose design is in candidate.go), fixed
// bulkheads, failsafe-go's adaptivelimiter and go-concurrency-limits'
// Gradient2 and AIMD.
//
// A run takes place inside a testing/synctest bubble, so real library code
// (which reads time.Now or r4c's policy.System clock) runs in virtual time:
// three minutes of overload simulate in about a second, and the same seed
// gives the same figures on every run. Because a bubble needs a
// *testing.T, runs are started from tests: [Run] takes the test's T.
//
// The scenarios ([Scenarios]) are underload, 2× and 5× overload, a capacity
// drop and recovery, a latency shift with no capacity change, and bursty
// on/off load. [Measure] turns a run into the figures of docs/adaptation.md:
// goodput against what could be served, rejection rate, admitted p50/p99
// latency as a multiple of the base service time, the limit's mean against
// the capacity, and the time the limit takes to come within 25% of the
// capacity after a change.
//
// Regenerate the tables and charts of docs/adaptation.md with
//
//	go test ./sim -run TestWriteReport -report
//
// from the repository root (a go.work lists this module).
package sim
