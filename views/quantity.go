package views

import (
	"errors"
	"math"
	"strconv"
)

// ParseQuantity reads a Kubernetes resource quantity ("500m", "1.5Gi",
// "129M", "1e3", "-2") as a float64 in its base unit: cores for CPU, bytes
// for memory. It follows the grammar documented on apimachinery's
// resource.Quantity:
//
//	<quantity>        ::= <signedNumber><suffix>
//	<number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
//	<suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
//	<binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei          (powers of 1024)
//	<decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E (powers of 1000)
//	<decimalExponent> ::= "e" <signedInteger> | "E" <signedInteger>
//
// so "500m" is 0.5, "1.5Gi" is 1610612736 and "129M" is 129000000 (casebook
// C11: quantities are compared as quantities, never as bare numbers). The
// value is exact for the integers float64 holds and otherwise the nearest
// float64, which is enough to order and to compare sizes. ok is false when s
// is not a quantity (including an empty string, a bare sign or dot, and an
// exponent beyond ±300). Like Kubernetes, it caps a quantity with a binary
// suffix at ±(2^63-1); other numbers too large for float64 are ±Inf. Views
// must not import apimachinery, hence this small parser.
func ParseQuantity(s string) (value float64, ok bool) {
	i, n := 0, len(s)
	if i < n && (s[i] == '+' || s[i] == '-') {
		i++
	}
	start := i
	digits := 0
	for i < n && isDigit(s[i]) {
		i, digits = i+1, digits+1
	}
	if i < n && s[i] == '.' {
		i++
		for i < n && isDigit(s[i]) {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return 0, false
	}
	number := s[:i]
	if number[len(number)-1] == '.' { // "5." is 5
		number = number[:len(number)-1]
	}
	if start < len(number) && number[start] == '.' { // ".5" is 0.5
		number = number[:start] + "0" + number[start:]
	}
	v, err := strconv.ParseFloat(number, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // too large: ±Inf, still ordered
		return 0, false
	}
	scale, ok := quantitySuffix(s[i:])
	if !ok {
		return 0, false
	}
	v *= scale
	if len(s)-i == 2 && s[len(s)-1] == 'i' && math.Abs(v) > math.MaxInt64 {
		// Kubernetes caps binary-suffixed quantities at the largest int64.
		v = math.Copysign(math.MaxInt64, v)
	}
	return v, true
}

// quantitySuffix returns the factor a quantity suffix stands for.
func quantitySuffix(suffix string) (float64, bool) {
	switch suffix {
	case "":
		return 1, true
	case "n":
		return 1e-9, true
	case "u":
		return 1e-6, true
	case "m":
		return 1e-3, true
	case "k":
		return 1e3, true
	case "M":
		return 1e6, true
	case "G":
		return 1e9, true
	case "T":
		return 1e12, true
	case "P":
		return 1e15, true
	case "E":
		return 1e18, true
	case "Ki":
		return 1 << 10, true
	case "Mi":
		return 1 << 20, true
	case "Gi":
		return 1 << 30, true
	case "Ti":
		return 1 << 40, true
	case "Pi":
		return 1 << 50, true
	case "Ei":
		return 1 << 60, true
	}
	if len(suffix) < 2 || (suffix[0] != 'e' && suffix[0] != 'E') {
		return 0, false
	}
	exp := suffix[1:]
	if exp[0] == '+' || exp[0] == '-' {
		exp = exp[1:]
	}
	if exp == "" || len(exp) > 3 {
		return 0, false
	}
	for i := range len(exp) {
		if !isDigit(exp[i]) {
			return 0, false
		}
	}
	e, err := strconv.Atoi(suffix[1:])
	if err != nil || e > 300 || e < -300 {
		return 0, false
	}
	return math.Pow10(e), true
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
