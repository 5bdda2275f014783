package config_test

import (
	"reflect"
	"testing"

	"github.com/resilience4cata/r4c/internal/config"
)

func TestSplitEnv(t *testing.T) {
	environ := []string{
		"PATH=/bin",
		"R4C_B=2",
		"R4C_A=1",
		"R4C_URL=http://x/?a=b", // the value keeps its "="
		"r4c_lower=no",          // case-sensitive
		"R4C_EMPTY=",
		"R4C_",           // no "="
		"R4C_=x",         // nothing after the prefix
		"R4C_A=shadowed", // a later duplicate: the first wins
		"",               // empty entry
		"=C:=C:\\dir",    // Windows drive entry
		"XR4C_A=no",
	}
	got := config.SplitEnv(environ, "R4C_")
	want := []config.EnvEntry{
		{Name: "A", Value: "1"},
		{Name: "B", Value: "2"},
		{Name: "EMPTY", Value: ""},
		{Name: "URL", Value: "http://x/?a=b"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SplitEnv = %q\nwant %q", got, want)
	}
	if got := config.SplitEnv(environ, "NOPE_"); got != nil {
		t.Errorf("SplitEnv with no match = %q; want nil", got)
	}
	if got := config.SplitEnv(nil, "R4C_"); got != nil {
		t.Errorf("SplitEnv(nil) = %q; want nil", got)
	}
	// An empty prefix selects everything with a name.
	got = config.SplitEnv([]string{"B=2", "A=1", "=C:=C:\\dir"}, "")
	want = []config.EnvEntry{{Name: "=C:", Value: "C:\\dir"}, {Name: "A", Value: "1"}, {Name: "B", Value: "2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SplitEnv with empty prefix = %q\nwant %q", got, want)
	}
}
