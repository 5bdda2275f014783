package config_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/resilience4cata/r4c/internal/config"
)

func ExampleParseDuration() {
	for _, s := range []string{"500ms", "1h30m", "PT0.5S", "P1DT2H", "-PT1S", "PT1M-30S"} {
		d, _ := config.ParseDuration(s)
		fmt.Println(s, "=", d)
	}
	_, err := config.ParseDuration("P1M")
	fmt.Println(err)
	// Output:
	// 500ms = 500ms
	// 1h30m = 1h30m0s
	// PT0.5S = 500ms
	// P1DT2H = 26h0m0s
	// -PT1S = -1s
	// PT1M-30S = 30s
	// config: invalid duration "P1M": months have no fixed length (for minutes write PTnM)
}

func ExampleParseBool() {
	for _, s := range []string{"true", "OFF", "yes", "1", "t"} {
		b, err := config.ParseBool(s)
		fmt.Println(b, err)
	}
	// Output:
	// true <nil>
	// false <nil>
	// true <nil>
	// true <nil>
	// false config: invalid boolean "t": expected true or false (also yes/no, on/off, 1/0)
}

func ExampleParsePropertiesEntries() {
	const file = `# adaptive limit for the search backend
defaults.adaptiveLimit.maxLimit = 100
instances.search.adaptiveLimit.window: PT2S
instances.search.adaptiveLimit.dropOn = timeout,\
    bulkheadFull
greeting = caf\u00e9 \u2615
`
	entries, err := config.ParsePropertiesEntries(strings.NewReader(file))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range entries {
		fmt.Printf("line %d: %s = %q\n", e.Line, e.Key, e.Value)
	}
	_, err = config.ParseProperties(strings.NewReader("ok=1\nbad=\\u12\n"))
	var pe *config.PropertiesError
	if errors.As(err, &pe) {
		fmt.Println(pe.Line, pe.Reason)
	}
	// Output:
	// line 2: defaults.adaptiveLimit.maxLimit = "100"
	// line 3: instances.search.adaptiveLimit.window = "PT2S"
	// line 4: instances.search.adaptiveLimit.dropOn = "timeout,bulkheadFull"
	// line 6: greeting = "café ☕"
	// 2 malformed \uXXXX escape "\\u12"
}

func ExampleSuggest() {
	keys := []string{"initialLimit", "minLimit", "maxLimit", "backoffRatio"}
	fmt.Printf("%q\n", config.Suggest("maxLimt", keys))
	fmt.Printf("%q\n", config.Suggest("backofratio", keys))
	fmt.Printf("%q\n", config.Suggest("timeout", keys))
	// Output:
	// "maxLimit"
	// "backoffRatio"
	// ""
}

func ExampleSplitEnv() {
	environ := []string{"HOME=/root", "R4C_DEFAULTS_ADAPTIVELIMIT_MAXLIMIT=100", "R4C_CONFIGS_SLOW_TIMEOUT_TIMEOUT=2s"}
	for _, e := range config.SplitEnv(environ, "R4C_") {
		fmt.Println(e.Name, "=", e.Value)
	}
	// Output:
	// CONFIGS_SLOW_TIMEOUT_TIMEOUT = 2s
	// DEFAULTS_ADAPTIVELIMIT_MAXLIMIT = 100
}
