package kinds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/internal/engine"
	"github.com/resilience4cata/r4c/policy"
)

// The route of one external value to its policy (issue 11): a toy kind
// whose enumeration counts the times its text is parsed and whose Validate
// counts the times it judges the value, driven through the engine from a
// map, a file and the environment.

// level is the toy kind's enumeration; its UnmarshalText counts its calls.
type level int

const (
	levelLow level = iota + 1
	levelHigh
)

var parses int // calls of level.UnmarshalText

func (l level) MarshalText() ([]byte, error) {
	switch l {
	case levelLow:
		return []byte("low"), nil
	case levelHigh:
		return []byte("high"), nil
	}
	return nil, &policy.FieldError{Key: "level", Value: policy.Int(int(l)), Rule: "must be low or high", Class: policy.ClassRange}
}

func (l *level) UnmarshalText(b []byte) error {
	parses++
	switch strings.ToLower(string(b)) {
	case "low":
		*l = levelLow
	case "high":
		*l = levelHigh
	default:
		return &policy.FieldError{Key: "level", Value: string(b), Rule: "must be low or high", Class: policy.ClassSyntax}
	}
	return nil
}

type toyConfig struct {
	Name, BaseConfig string
	Disabled         bool
	Level            level
	zero             policy.ZeroSet
}

var toyKeys = policy.NewTable(
	func(c *toyConfig) *string { return &c.Name },
	func(c *toyConfig) *string { return &c.BaseConfig },
	func(c *toyConfig) *policy.ZeroSet { return &c.zero },
	[]policy.Key[toyConfig]{
		policy.EnabledKey("false turns the toy off", func(c *toyConfig) *bool { return &c.Disabled }),
		policy.TextKey("level", levelLow, "", "how loud the toy is", func(c *toyConfig) *level { return &c.Level }, levelLow, levelHigh),
	},
)

var judged int // calls of Validate that saw the external value (level high)

func toyDefaults(c toyConfig) toyConfig {
	if c.Level == 0 {
		c.Level = levelLow
	}
	return c
}

func toyValidate(c toyConfig) error {
	if c.Level == levelHigh {
		judged++
	}
	return nil
}

var toyKind = &engine.Kind[toyConfig, *toyConfig]{
	Name: "toy", Option: "Toy", Keys: toyKeys,
	Defaults: toyDefaults, Validate: toyValidate,
	Build: func(c toyConfig, _ policy.Env) (*toyConfig, error) {
		c = toyDefaults(c)
		if err := toyValidate(c); err != nil {
			return nil, err
		}
		return &c, nil
	},
}

func TestAnExternalValueIsParsedOnceAndValidatedOnce(t *testing.T) {
	file := filepath.Join(t.TempDir(), "r4c.properties")
	require.NoError(t, os.WriteFile(file, []byte("instances.x.toy.level = HIGH\n"), 0o600))
	for _, src := range []struct {
		name string
		add  func(r *engine.Registry) error
	}{
		{"map", func(r *engine.Registry) error {
			return r.AddProperties(map[string]string{"instances.x.toy.level": "HIGH"})
		}},
		{"file", func(r *engine.Registry) error { return r.AddPropertiesFile(file) }},
		{"environment", func(r *engine.Registry) error { return r.AddEnv([]string{"R4C_INSTANCES_X_TOY_LEVEL=HIGH"}) }},
	} {
		t.Run(src.name, func(t *testing.T) {
			parses, judged = 0, 0
			r := engine.New(toyKind)
			require.NoError(t, src.add(r))
			assert.Zero(t, parses, "reading a source keeps the text")
			require.NoError(t, r.Check())
			assert.Equal(t, 1, parses, "NewRegistry parses the text once, through the kind's table")
			assert.Zero(t, judged, "an instance value is judged when its instance is built")

			build := func(pipeline string) *toyConfig {
				var got *toyConfig
				require.NoError(t, r.Update(func(tx *engine.Tx) error {
					var err error
					got, err = engine.Resolve(tx, toyKind, pipeline, func(c *toyConfig) { c.Name = "x" })
					return err
				}))
				return got
			}
			first := build("a")
			assert.Equal(t, levelHigh, first.Level, "the value reaches the instance")
			assert.Equal(t, 1, parses, "building copies the parsed value; it never parses again")
			assert.Equal(t, 1, judged, "the instance's Validate judges it once")

			// A second pipeline sharing the instance gets it as built.
			assert.Same(t, first, build("b"))
			assert.Equal(t, 1, parses)
			assert.Equal(t, 1, judged)
		})
	}
}
