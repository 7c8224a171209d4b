package logs

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// This file holds what compile learns from a query's syntax tree: whether
// matching lower-cased text gives the case-folded matches (sameOnLowered),
// whether lines may be joined (hasTextAnchor) and a literal every match
// holds (requiredLiteral).

// sameOnLowered reports whether folded (the query parsed with (?i)) matches
// ASCII text exactly where exact (the query parsed as it is) matches that
// text lower-cased. The trees must have the same shape; every literal rune
// and character class is compared on each of the 128 ASCII bytes. An
// escape or class naming an upper-case letter (\x41, [[:upper:]], \p{Lu})
// or a rune folding to an ASCII letter (ſ, U+017F) breaks it.
func sameOnLowered(folded, exact *syntax.Regexp) bool {
	if folded.Op != exact.Op || len(folded.Sub) != len(exact.Sub) {
		return false
	}
	switch folded.Op {
	case syntax.OpLiteral:
		if len(folded.Rune) != len(exact.Rune) {
			return false
		}
		ff, ef := folded.Flags&syntax.FoldCase != 0, exact.Flags&syntax.FoldCase != 0
		for i := range folded.Rune {
			for c := rune(0); c < utf8.RuneSelf; c++ {
				if runeMatches(folded.Rune[i], ff, c) != runeMatches(exact.Rune[i], ef, rune(lower[c])) {
					return false
				}
			}
		}
	case syntax.OpCharClass:
		for c := rune(0); c < utf8.RuneSelf; c++ {
			if inClass(folded.Rune, c) != inClass(exact.Rune, rune(lower[c])) {
				return false
			}
		}
	case syntax.OpRepeat:
		if folded.Min != exact.Min || folded.Max != exact.Max {
			return false
		}
	}
	for i := range folded.Sub {
		if !sameOnLowered(folded.Sub[i], exact.Sub[i]) {
			return false
		}
	}
	return true
}

// runeMatches reports whether a literal rune r (ignoring case when fold)
// matches c.
func runeMatches(r rune, fold bool, c rune) bool {
	if r == c {
		return true
	}
	if !fold {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f == c {
			return true
		}
	}
	return false
}

// inClass reports whether c is in class, syntax.Regexp's sorted pairs of
// inclusive rune ranges.
func inClass(class []rune, c rune) bool {
	for i := 0; i+1 < len(class); i += 2 {
		if class[i] <= c && c <= class[i+1] {
			return true
		}
	}
	return false
}

// hasTextAnchor reports whether re holds ^, $, \A or \z (multi-line or
// not): their meaning depends on where the text starts and ends, so lines
// joined by '\n' would not match as each alone.
func hasTextAnchor(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return true
	}
	for _, sub := range re.Sub {
		if hasTextAnchor(sub) {
			return true
		}
	}
	return false
}

// requiredLiteral returns the longest case-exact literal that every match
// of re holds (re itself, or one of a top-level concatenation's parts),
// nil when there is none. A literal with U+FFFD is left out: it also
// matches a byte that is not UTF-8.
func requiredLiteral(re *syntax.Regexp) []byte {
	if re.Op == syntax.OpCapture {
		return requiredLiteral(re.Sub[0])
	}
	var best []rune
	consider := func(re *syntax.Regexp) {
		if re.Op == syntax.OpLiteral && re.Flags&syntax.FoldCase == 0 && len(re.Rune) > len(best) {
			for _, r := range re.Rune {
				if r == utf8.RuneError {
					return
				}
			}
			best = re.Rune
		}
	}
	consider(re)
	if re.Op == syntax.OpConcat {
		for _, sub := range re.Sub {
			consider(sub)
		}
	}
	if len(best) == 0 {
		return nil
	}
	return []byte(string(best))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
