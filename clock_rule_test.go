package r4c_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// realTime matches the calls that read or wait on the real clock.
var realTime = regexp.MustCompile(`\btime\.(Now|Since|Until|Sleep|After|AfterFunc|NewTimer|NewTicker|Tick)\(`)

// TestTimeComesOnlyFromTheClock enforces STYLE's rule 5: outside
// policy/clock.go (the System clock) no library code reads or waits on the
// real clock, so that a ManualClock drives every time-based behaviour.
// Tests, examples and the bench and sim modules are exempt.
func TestTimeComesOnlyFromTheClock(t *testing.T) {
	allowed := map[string]bool{filepath.Join("policy", "clock.go"): true}

	skipDirs := map[string]bool{"examples": true, "bench": true, "sim": true, "testdata": true, ".git": true}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || allowed[path] {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if code, _, _ := strings.Cut(line, "//"); realTime.MatchString(code) {
				t.Errorf("%s:%d reads the real clock: %s (use the policy.Clock of the Env)", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
