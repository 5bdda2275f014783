package config_test

import (
	"testing"

	"github.com/resilience4cata/r4c/internal/config"
)

func TestSuggest(t *testing.T) {
	keys := []string{"initialLimit", "minLimit", "maxLimit", "backoffRatio", "queueSize", "window", "minWindowSamples", "enabled"}
	tests := []struct {
		word       string
		candidates []string
		want       string
	}{
		{"maxLimit", keys, "maxLimit"},
		{"maxlimit", keys, "maxLimit"},
		{"MAXLIMIT", keys, "maxLimit"},
		{"maxLimt", keys, "maxLimit"},   // a deletion
		{"maxLimmit", keys, "maxLimit"}, // an insertion
		{"maxLimti", keys, "maxLimit"},  // a swap counts as one edit
		{"mxaLimti", keys, "maxLimit"},  // two swaps
		{"minLimt", keys, "minLimit"},   // nearer to minLimit than maxLimit
		{"windw", keys, "window"},       //
		{"backofRatio", keys, "backoffRatio"},
		{"queueSzie", keys, "queueSize"},
		{"enable", keys, "enabled"},
		{"timeout", keys, ""},          // nothing near
		{"xyzLimit", keys, ""},         // distance 3 > max(2, 8/3)
		{"", keys, ""},                 // empty word
		{"maxLimit", nil, ""},          // no candidates
		{"a", []string{"b"}, ""},       // one rune: only an exact match
		{"a", []string{"b", "A"}, "A"}, // case-insensitive exact match
		{"ab", []string{"cd"}, ""},     // 2*d > n
		{"ab", []string{"ac"}, "ac"},   // 2*1 <= 2
		{"abc", []string{"xyc"}, ""},   // 2 edits on 3 runes is too many
		{"abcd", []string{"xycd"}, "xycd"},
		// Ties go to the first candidate; an exact match wins at once.
		{"lim", []string{"limb", "lima"}, "limb"},
		{"lim", []string{"lima", "limb"}, "lima"},
		{"Limit", []string{"limit", "Limit"}, "Limit"},
		{"LIMIT", []string{"limit", "Limit"}, "limit"},
		// Long words allow more edits: max(2, n/3).
		{"minimumWindowSamplez", []string{"minWindowSamples"}, "minWindowSamples"}, // 5 <= 20/3
		{"windowSampleCount", []string{"minWindowSamples"}, ""},                    // 8 > 17/3
		{"minWindowSamplessss", []string{"minWindowSamples"}, "minWindowSamples"},  // 3 <= 19/3
		// Runes, not bytes.
		{"clé", []string{"cle"}, "cle"},
		{"ÉTÉ", []string{"été"}, "été"},
	}
	for _, tt := range tests {
		if got := config.Suggest(tt.word, tt.candidates); got != tt.want {
			t.Errorf("Suggest(%q, %q) = %q; want %q", tt.word, tt.candidates, got, tt.want)
		}
	}
}
