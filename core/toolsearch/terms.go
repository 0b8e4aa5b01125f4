package toolsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// forTerms calls fn with every term of s: runs of letters and digits,
// lowercased, split at camelCase humps ("getWeather" gives "get" and
// "weather", and "getweather" too, so that a query may spell it either
// way), with a plural s folded ("files" is "file"), cut to
// [MaxTermBytes]. Runs of one letter are skipped. Terms may repeat.
func forTerms(s string, fn func(string)) {
	for len(s) > 0 {
		// Skip to the next letter or digit.
		i := strings.IndexFunc(s, isWordRune)
		if i < 0 {
			return
		}
		s = s[i:]
		j := strings.IndexFunc(s, func(r rune) bool { return !isWordRune(r) })
		if j < 0 {
			j = len(s)
		}
		word := s[:j]
		s = s[j:]
		parts := 0
		start := 0
		var prev rune
		for k, r := range word {
			if k > 0 && unicode.IsUpper(r) && unicode.IsLower(prev) {
				emit(word[start:k], fn)
				start = k
				parts++
			}
			prev = r
		}
		emit(word[start:], fn)
		if parts > 0 {
			emit(word, fn)
		}
	}
}

// emit passes one run of letters and digits to fn as a term.
func emit(run string, fn func(string)) {
	if utf8.RuneCountInString(run) < 2 {
		return
	}
	t := strings.ToLower(run)
	if len(t) > MaxTermBytes {
		t = t[:MaxTermBytes]
		for len(t) > 0 && !utf8.ValidString(t) {
			t = t[:len(t)-1]
		}
	}
	if n := len(t); n > 3 && t[n-1] == 's' && t[n-2] != 's' {
		t = t[:n-1]
	}
	fn(t)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
