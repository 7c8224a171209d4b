package oracle

import (
	"math/rand"
	"reflect"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	apitesting "k8s.io/kubernetes/pkg/api/testing"
)

// fuzzed fills a new object of example's type with Kubernetes' own API
// fuzzer (the one its round-trip tests use): every field, random text and
// numbers, so that no field a printer reads is left out of the search, even
// one the vocabulary of gen never names.
func fuzzed(example runtime.Object, seed, index uint64) runtime.Object {
	f := fuzzer.FuzzerFor(apitesting.FuzzerFuncs, rand.NewSource(int64(seed*1_000_003+index)), legacyscheme.Codecs).
		NilChance(0.3).NumElements(0, 4)
	obj := reflect.New(reflect.TypeOf(example).Elem()).Interface().(runtime.Object)
	f.Fill(obj)
	return obj
}
