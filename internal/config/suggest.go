package config

import "unicode"

// Suggest returns the candidate nearest to word, for a "did you mean"
// hint after an unknown key or value, or "" when none is near enough.
//
// Nearness is the optimal string alignment distance between the lowercased
// words: the number of rune insertions, deletions, substitutions and swaps
// of two adjacent runes that turn one into the other. A candidate is near
// enough when its distance d to a word of n runes satisfies
// d <= max(2, n/3) and 2*d <= n: at most half the word may change, so short
// words get only close matches. A candidate equal to word is returned at
// once; otherwise the nearest wins and, among equally near ones, the first
// in candidates. An empty word has no suggestion.
func Suggest(word string, candidates []string) string {
	if word == "" {
		return ""
	}
	for _, c := range candidates {
		if c == word {
			return c
		}
	}
	w := lowerRunes(word)
	n := len(w)
	bound := max(2, n/3)
	best, bestDist := "", bound+1
	var rows [3][]int
	for _, c := range candidates {
		cr := lowerRunes(c)
		if diff := len(cr) - n; diff > bound || -diff > bound {
			continue
		}
		d := osaDistance(w, cr, &rows)
		if d < bestDist && 2*d <= n {
			best, bestDist = c, d
		}
	}
	return best
}

func lowerRunes(s string) []rune {
	r := []rune(s)
	for i, c := range r {
		r[i] = unicode.ToLower(c)
	}
	return r
}

// osaDistance returns the optimal string alignment distance between a and
// b, using rows as scratch.
func osaDistance(a, b []rune, rows *[3][]int) int {
	for i := range rows {
		if cap(rows[i]) < len(b)+1 {
			rows[i] = make([]int, len(b)+1)
		}
		rows[i] = rows[i][:len(b)+1]
	}
	prev2, prev, cur := rows[0], rows[1], rows[2]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
