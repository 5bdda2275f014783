//go:build !unix

package bench_test

// cpuTime cannot read the process's CPU time on this system.
func cpuTime() (int64, bool) { return 0, false }
