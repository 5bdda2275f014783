package r4c_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

func TestClassCode(t *testing.T) {
	for c, want := range map[policy.Class]string{
		policy.ClassRange:          r4c.CodeOutOfRange,
		policy.ClassBound:          r4c.CodeBoundBelowOne,
		policy.ClassOrder:          r4c.CodeBoundsOrder,
		policy.ClassDuration:       r4c.CodeNegativeDuration,
		policy.ClassCombination:    r4c.CodeCombination,
		policy.ClassDurationSyntax: r4c.CodeDurationSyntax,
		policy.ClassSyntax:         r4c.CodeValueSyntax,
		policy.ClassNotLive:        r4c.CodeNotLive,
		policy.Class(200):          r4c.CodeOutOfRange,
	} {
		assert.Equal(t, want, r4c.ClassCode(c), "class %d", c)
	}
}

// ClassCode gives what the registry gives for the same rule broken in a
// builder closure.
func TestClassCodeMatchesTheRegistry(t *testing.T) {
	reg, err := r4c.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	_, err = pipeline.NewBuilder[int](reg, "p").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.MinLimit = 50; c.MaxLimit = 10 }).Build()
	ce, ok := err.(*r4c.ConfigError)
	if !ok {
		t.Fatalf("%v is not a *ConfigError", err)
	}
	fe, ok := ce.Err.(*policy.FieldError)
	if !ok {
		t.Fatalf("%v does not wrap a *policy.FieldError", ce.Err)
	}
	assert.Equal(t, ce.Code, r4c.ClassCode(fe.Class))
}
