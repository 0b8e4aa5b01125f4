// Package suggest finds the word a person most likely meant by a typo:
// the CLI's "did you mean" for commands, sources and tools, and the
// runtime's for a tool.call naming a tool its server does not have.
package suggest

import "strings"

// Closest returns the known word a person most likely meant by typo, or
// "". An abbreviation (the typo's letters in order, same first letter:
// rm for remove) wins, the shortest first; else the word at the smallest
// edit distance (a swap of two letters counts once), if it is at most 2
// and less than the typo's length.
func Closest(typo string, known []string) string {
	typo = strings.ToLower(typo)
	best, bestLen := "", 0
	for _, k := range known {
		if typo != "" && typo[0] == k[0] && isSubsequence(typo, k) && (best == "" || len(k) < bestLen) {
			best, bestLen = k, len(k)
		}
	}
	if best != "" {
		return best
	}
	bestDist := 3
	for _, k := range known {
		if d := editDistance(typo, k); d < bestDist && d < len(typo) {
			best, bestDist = k, d
		}
	}
	return best
}

func isSubsequence(s, of string) bool {
	i := 0
	for j := 0; i < len(s) && j < len(of); j++ {
		if s[i] == of[j] {
			i++
		}
	}
	return i == len(s)
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of adjacent letters each cost 1.
func editDistance(a, b string) int {
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
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
