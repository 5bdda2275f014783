package caller

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOutside(t *testing.T) {
	for name, want := range map[string]bool{
		"main.main":              true,
		"net/http.(*conn).serve": true,
		"runtime.goexit":         false,
		"github.com/resilience4cata/r4c/pipeline.(*Pipeline[...]).Execute": false,
		"github.com/resilience4cata/r4c/events.(*Bus).PublishContext":      false,
		"github.com/resilience4cata/r4c/pipeline_test.TestX":               true,
		"github.com/resilience4cata/r4c/logging/zap_test.TestX.func1":      true,
		"github.com/resilience4cata/r4c.(*Registry).Snapshot":              false,
		"github.com/resilience4cata/r4c_test.TestY":                        true,
		"github.com/other/r4c/pipeline.Execute":                            true,
		"github.com/resilience4cata/r4cx/y.Z":                              true,
		"github.com/resilience4cata/r4c/metrics/otel.SpanEvents":           false,
	} {
		assert.Equal(t, want, outside(name), name)
	}
}

// The caller package is r4c's, so PC skips this test's frames too... except
// that the test package here is not a _test package: a frame of the
// testing package (outside r4c) is the first one found.
func TestPCSkipsTheModulesFrames(t *testing.T) {
	pc := PC()
	file, line, fn := Frame(pc)
	assert.NotZero(t, pc)
	assert.Equal(t, "testing.tRunner", fn)
	assert.Equal(t, "testing.go", filepath.Base(file))
	assert.Positive(t, line)
	_, _, fn = Frame(0)
	assert.Empty(t, fn)
}
