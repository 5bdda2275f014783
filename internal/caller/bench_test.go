package caller

import "testing"

func BenchmarkPC(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = PC()
	}
}
