package main

import (
	"strconv"
	"strings"
)

// suggest returns the candidate nearest to word for a "did you mean"
// hint, or "". It follows the registry's rule for unknown flat keys (a
// test holds them together): the distance is the number of rune edits
// (insertions, deletions, substitutions, swaps of neighbours) between the
// lowercased words, and a candidate is near enough when that distance d
// satisfies d <= max(2, n/3) and 2*d <= n for a word of n runes; the
// nearest wins, the first of equally near ones.
func suggest(word string, candidates []string) string {
	if word == "" {
		return ""
	}
	w := []rune(strings.ToLower(word))
	limit := max(2, len(w)/3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == word {
			return c
		}
		d := editDistance(w, []rune(strings.ToLower(c)))
		if d < bestD && 2*d <= len(w) {
			best, bestD = c, d
		}
	}
	return best
}

// didYouMean returns ` (did you mean "x"?)` or "".
func didYouMean(word string, candidates []string) string {
	if s := suggest(word, candidates); s != "" {
		return " (did you mean " + strconv.Quote(s) + "?)"
	}
	return ""
}

// editDistance is the optimal string alignment distance of a and b.
func editDistance(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			sub := 1
			if a[i-1] == b[j-1] {
				sub = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+sub)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
