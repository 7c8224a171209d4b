package inventory

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The scoring of github.com/sahilm/fuzzy v0.1.3 (MIT licence), which the
// fuzzy filter ranks by: its bonuses and penalties.
const (
	firstCharMatchBonus            = 10
	matchFollowingSeparatorBonus   = 20
	camelCaseMatchBonus            = 20
	adjacentMatchBonus             = 5
	unmatchedLeadingCharPenalty    = -5
	maxUnmatchedLeadingCharPenalty = -15
)

// fuzzyScore scores s against pattern exactly as sahilm/fuzzy's
// FindFromIterNoSort does (ok: every rune of pattern matched, in order),
// without what it allocates per string: the library keeps every matched
// index, of which its scoring reads only the count and the last. The
// fuzzy filter scores every row on its first letter (issue 14: a keystroke
// at 100,000 rows within 20 ms), and FuzzFuzzyScore holds it to the
// library's answers.
func fuzzyScore(pattern []rune, s string) (score int, ok bool) {
	if len(pattern) == 0 {
		return 0, false
	}
	if i := strings.IndexByte(s, 0); i > -1 {
		s = s[:i]
	}
	var (
		matched                int // how many pattern runes matched
		lastMatch              int // the index of the last match
		patternIndex           int
		bestScore              = -1
		matchedIndex           = -1
		currAdjacentMatchBonus int
		last                   rune
		lastIndex              int
		candidate              rune
		candidateSize          int
	)
	nextc, nextSize := utf8.DecodeRuneInString(s)
	for j := 0; j < len(s); j += candidateSize {
		candidate, candidateSize = nextc, nextSize
		if patternIndex < len(pattern) && equalFold(candidate, pattern[patternIndex]) {
			sc := 0
			if j == 0 {
				sc += firstCharMatchBonus
			}
			if unicode.IsLower(last) && unicode.IsUpper(candidate) {
				sc += camelCaseMatchBonus
			}
			if j != 0 && isSeparator(last) {
				sc += matchFollowingSeparatorBonus
			}
			if matched > 0 && lastMatch == lastIndex {
				bonus := currAdjacentMatchBonus*2 + adjacentMatchBonus
				sc += bonus
				currAdjacentMatchBonus += bonus
			}
			if sc > bestScore {
				bestScore = sc
				matchedIndex = j
			}
		}
		var nextp rune
		if patternIndex < len(pattern)-1 {
			nextp = pattern[patternIndex+1]
		}
		if j+candidateSize < len(s) {
			if s[j+candidateSize] < utf8.RuneSelf {
				nextc, nextSize = rune(s[j+candidateSize]), 1
			} else {
				nextc, nextSize = utf8.DecodeRuneInString(s[j+candidateSize:])
			}
		} else {
			nextc, nextSize = 0, 0
		}
		if (equalFold(nextp, nextc) || nextc == 0) && matchedIndex > -1 {
			if matched == 0 {
				bestScore += max(matchedIndex*unmatchedLeadingCharPenalty, maxUnmatchedLeadingCharPenalty)
			}
			score += bestScore
			matched++
			lastMatch = matchedIndex
			bestScore = -1
			patternIndex++
		}
		lastIndex = j
		last = candidate
	}
	score += matched - len(s)
	return score, matched == len(pattern)
}

// equalFold reports whether two runes are equal under simple case
// folding (sahilm/fuzzy's equalFold).
func equalFold(tr, sr rune) bool {
	if tr == sr {
		return true
	}
	if tr < sr {
		tr, sr = sr, tr
	}
	if tr < utf8.RuneSelf {
		return 'A' <= sr && sr <= 'Z' && tr == sr+'a'-'A'
	}
	r := unicode.SimpleFold(sr)
	for r != sr && r < tr {
		r = unicode.SimpleFold(r)
	}
	return r == tr
}

// isSeparator reports whether r is one of sahilm/fuzzy's separators.
func isSeparator(r rune) bool {
	switch r {
	case '/', '-', '_', ' ', '.', '\\':
		return true
	}
	return false
}
