//go:build unix

package bench_test

import "syscall"

// cpuTime returns the CPU time the process has used (user and system, all
// threads), in nanoseconds, and whether it could be read.
func cpuTime() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
