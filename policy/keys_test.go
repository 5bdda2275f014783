package policy_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/policy"
)

type color uint8

func (c color) MarshalText() ([]byte, error) {
	return []byte([]string{"red", "green"}[c]), nil
}

func (c *color) UnmarshalText(b []byte) error {
	switch strings.ToLower(string(b)) {
	case "red":
		*c = 0
	case "green":
		*c = 1
	default:
		return &policy.FieldError{Key: "color", Value: string(b), Rule: "must be red or green"}
	}
	return nil
}

type testConfig struct {
	Name, BaseConfig string
	Disabled         bool
	Count            int
	Ratio            float64
	Wait             time.Duration
	Fast             bool
	Color            color
	OnError          []error
	zero             policy.ZeroSet
}

var table = policy.NewTable(
	func(c *testConfig) *string { return &c.Name },
	func(c *testConfig) *string { return &c.BaseConfig },
	func(c *testConfig) *policy.ZeroSet { return &c.zero },
	[]policy.Key[testConfig]{
		policy.EnabledKey("on", func(c *testConfig) *bool { return &c.Disabled }),
		policy.IntKey("count", 20, ">= 1", "how many", func(c *testConfig) *int { return &c.Count }).Note("or fewer"),
		policy.FloatKey("ratio", 0.5, "(0, 1]", "a share", func(c *testConfig) *float64 { return &c.Ratio }),
		policy.DurationKey("wait", time.Minute, ">= 0", "how long", func(c *testConfig) *time.Duration { return &c.Wait }),
		policy.BoolKey("fast", false, "hurry", func(c *testConfig) *bool { return &c.Fast }),
		policy.TextKey("color", color(0), "", "the color", func(c *testConfig) *color { return &c.Color }, 0, 1),
		policy.IntKey("burst", 0, ">= 1", "at once", func(c *testConfig) *int { return &c.Count }).Derived("count"),
	},
	policy.CodeOnly("OnError", func(c *testConfig) *[]error { return &c.OnError }),
)

func TestKeyDescriptions(t *testing.T) {
	keys := table.Keys()
	got := make([][3]string, len(keys))
	for i, k := range keys {
		got[i] = [3]string{k.Name, k.Type, k.Default}
	}
	assert.Equal(t, [][3]string{
		{"enabled", "bool", "true"}, {"count", "int", "20 (or fewer)"}, {"ratio", "float", "0.5"},
		{"wait", "duration", "1m"}, {"fast", "bool", "false"}, {"color", "red|green", "red"}, {"burst", "int", "count"},
	}, got)
	assert.Equal(t, "one of red, green", keys[5].Valid)
	assert.Equal(t, 3, table.Index("wait"))
	assert.Equal(t, -1, table.Index("nope"))
}

func TestKeySetParsesOnce(t *testing.T) {
	var c testConfig
	for _, kv := range [][2]string{{"enabled", "false"}, {"count", "7"}, {"ratio", "0.25"}, {"wait", "PT0.5S"}, {"fast", "yes"}, {"color", "GREEN"}} {
		require.NoError(t, table.At(table.Index(kv[0])).Set(&c, kv[1]), kv[0])
	}
	assert.Equal(t, testConfig{Disabled: true, Count: 7, Ratio: 0.25, Wait: 500 * time.Millisecond, Fast: true, Color: 1}, c)
	assert.Equal(t, "500ms", table.At(3).Format(&c))
	assert.Equal(t, "false", table.At(0).Format(&c), "enabled is the inverse of Disabled")
	assert.Equal(t, "green", table.At(5).Format(&c))
	assert.Equal(t, color(1), table.At(5).Value(&c))

	for _, tc := range []struct {
		key, text string
		class     policy.Class
		rule      string
	}{
		{"count", "lots", policy.ClassSyntax, "not a decimal integer"},
		{"ratio", "NaN", policy.ClassSyntax, "finite"},
		{"wait", "1 sec", policy.ClassDurationSyntax, "white space"},
		{"fast", "maybe", policy.ClassSyntax, "true or false"},
		{"enabled", "", policy.ClassSyntax, "empty"},
		{"color", "blue", policy.ClassSyntax, "must be red or green"},
	} {
		before := c
		err := table.At(table.Index(tc.key)).Set(&c, tc.text)
		var fe *policy.FieldError
		require.True(t, errors.As(err, &fe), "%s=%s: %v", tc.key, tc.text, err)
		assert.Equal(t, policy.FieldError{Key: tc.key, Value: tc.text, Rule: fe.Rule, Class: tc.class}, *fe)
		assert.Contains(t, fe.Rule, tc.rule)
		assert.Equal(t, before, c, "a failed Set leaves the Config unchanged")
	}
}

func TestSetZeroAndEnable(t *testing.T) {
	c := testConfig{Count: 3, Wait: time.Second, Disabled: true}
	table.SetZero(&c, "count", "wait")
	assert.Zero(t, c.Count)
	assert.Zero(t, c.Wait)
	assert.True(t, c.zero.Has("count"))
	assert.False(t, c.zero.Has("enabled"))
	table.Enable(&c)
	assert.False(t, c.Disabled)
	assert.True(t, c.zero.Has("enabled"))
	assert.NoError(t, table.CheckZeroes(&c))

	// A copy of the Config is independent of the original.
	d := c
	table.SetZero(&d, "ratio")
	assert.False(t, c.zero.Has("ratio"))
	d.zero.Remove("count")
	assert.True(t, c.zero.Has("count"))
	assert.Equal(t, []string{"count", "wait"}, c.zero.Names())

	var e testConfig
	table.SetZero(&e, "cuont")
	var ze *policy.ZeroError
	require.ErrorAs(t, table.CheckZeroes(&e), &ze)
	assert.Equal(t, "cuont", ze.Name)
	assert.Contains(t, ze.Error(), `did you mean "count"?`)
	e = testConfig{Disabled: true}
	table.SetZero(&e, "enabled")
	require.ErrorAs(t, table.CheckZeroes(&e), &ze)
	assert.Contains(t, ze.Rule, "Enable()")
	assert.True(t, e.Disabled, "SetZero never touches enabled")
}

func TestCodeOnly(t *testing.T) {
	f := table.Code()[0]
	var a, b testConfig
	assert.False(t, f.IsSet(&a))
	a.OnError = []error{}
	assert.True(t, f.IsSet(&a), "an empty list is set")
	f.Copy(&b, &a)
	assert.NotNil(t, b.OnError)
}
