package inventory_test

import (
	"context"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// kubeNoSamples is a *kube.Client whose metrics API answers, with no
// samples yet: the screens of the tests that are not about metrics show
// "-" in the metrics cells and no notice, whatever kube's own Metrics
// answers on a fake clientset.
type kubeNoSamples struct{ *kube.Client }

func (kubeNoSamples) Metrics(_ context.Context, req kube.MetricsRequest) kube.Metrics {
	return kube.Metrics{Request: req, Generation: 1}
}

// noSamples wraps a *kube.Client in kubeNoSamples; other sources are
// returned as they are.
func noSamples(client views.Source) views.Source {
	if c, ok := client.(*kube.Client); ok {
		return kubeNoSamples{c}
	}
	return client
}

var _ views.MetricsSource = kubeNoSamples{}
