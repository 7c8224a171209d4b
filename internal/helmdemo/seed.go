package helmdemo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/kube"
	helmrelease "helm.sh/helm/v4/pkg/release"
	"helm.sh/helm/v4/pkg/storage/driver"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
)

// timeout bounds each install and upgrade (Helm's --timeout); with the
// hookOnly wait strategy it bounds only the chart's hooks, of which greeter
// has none.
const timeout = 2 * time.Minute

// The objects are written under the field manager the helm CLI uses
// ("helm", helm.sh/helm/v4 cmd/helm/helm.go), as `helm install` and `helm
// upgrade` would own them; without it Helm names the manager after the
// program (helmseed). Helm reads it as a package variable.
func init() { kube.ManagedFieldsManager = "helm" }

// helmDriver is Helm's release storage: Secrets, Helm's default
// (HELM_DRIVER unset), so `helm history` and kyyard read the same records.
const helmDriver = "secret"

// Seed brings the Helm release namespace/release to exactly len(revisions)
// revisions of the embedded greeter chart, revision i+1 made from
// revisions[i]: revision 1 by an install (Helm's action.Install, the
// namespace must exist: it is not created), each later one by an upgrade
// (action.Upgrade). It is idempotent: it reads the release's history first
// (action.History, as `helm history` does) and makes only the revisions
// after the latest one there, so when the release already has at least
// len(revisions) revisions it changes nothing. It waits as the Helm CLI does
// by default (the hookOnly strategy: for hooks only, not for pods to become
// ready), at most 2 minutes per revision.
//
// Seed connects only through the kubeconfig file at the path kubeconfig
// (never the default kubeconfig, $KUBECONFIG or ~/.kube/config; its current
// context is used) and stores releases as Helm's secret driver does. Nothing
// is printed: Helm's loggers and the API server's warnings are discarded, and
// Kubernetes' discovery cache goes to a temporary directory removed on
// return, not to ~/.kube/cache.
//
// Errors: an empty kubeconfig or namespace; the chart failing to load (a
// ChartVersion that is not SemVer 2); the cluster unreachable or the history
// unreadable ("read history of demo/greeter: ..."); an install or upgrade
// refused or failed, named by revision ("install greeter revision 1: ...",
// "upgrade greeter revision 2: ..."), which leaves the revisions made before
// it in place. When ctx ends Seed returns ctx's error, but an install or
// upgrade already under way goes on in the background, as Helm's
// RunWithContext documents.
func Seed(ctx context.Context, kubeconfig, namespace, release string, revisions []Revision) error {
	if kubeconfig == "" {
		return errors.New("helm release seed: no kubeconfig path given")
	}
	if namespace == "" {
		return errors.New("helm release seed: no namespace given")
	}
	if len(revisions) == 0 {
		return nil
	}
	cacheDir, err := os.MkdirTemp("", "kyyard-helmdemo-")
	if err != nil {
		return fmt.Errorf("helm release seed: discovery cache: %w", err)
	}
	defer os.RemoveAll(cacheDir)

	cfg, err := configuration(kubeconfig, namespace, cacheDir)
	if err != nil {
		return err
	}
	latest, err := latestRevision(cfg, release)
	if err != nil {
		return fmt.Errorf("read history of %s/%s: %w", namespace, release, err)
	}
	for n := latest + 1; n <= len(revisions); n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		rev := revisions[n-1]
		ch, err := loadChart(rev)
		if err != nil {
			return fmt.Errorf("revision %d: %w", n, err)
		}
		if n == 1 {
			in := action.NewInstall(cfg)
			in.Namespace = namespace
			in.ReleaseName = release
			in.CreateNamespace = false
			in.WaitStrategy = kube.HookOnlyStrategy
			in.WaitOptions = []kube.WaitOption{kube.WithWaitContext(ctx)}
			in.Timeout = timeout
			if _, err := in.RunWithContext(ctx, ch, rev.Values); err != nil {
				return fmt.Errorf("install %s revision %d: %w", release, n, err)
			}
			continue
		}
		up := action.NewUpgrade(cfg)
		up.Namespace = namespace
		up.WaitStrategy = kube.HookOnlyStrategy
		up.WaitOptions = []kube.WaitOption{kube.WithWaitContext(ctx)}
		up.Timeout = timeout
		if _, err := up.RunWithContext(ctx, release, ch, rev.Values); err != nil {
			return fmt.Errorf("upgrade %s revision %d: %w", release, n, err)
		}
	}
	return nil
}

// configuration returns Helm's action configuration for namespace, reaching
// the cluster only through the kubeconfig file at path, with every Helm
// logger discarding and API server warnings dropped.
func configuration(path, namespace, cacheDir string) (*action.Configuration, error) {
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &path
	flags.Namespace = &namespace
	flags.CacheDir = &cacheDir
	flags.WrapConfigFn = func(c *rest.Config) *rest.Config {
		c.WarningHandler = rest.NoWarnings{}
		return c
	}
	// The handler given here is the one Init hands to the Kubernetes client
	// and the storage driver.
	cfg := action.NewConfiguration(action.ConfigurationSetLogger(slog.DiscardHandler))
	if err := cfg.Init(flags, namespace, helmDriver); err != nil {
		return nil, fmt.Errorf("helm configuration for %s: %w", path, err)
	}
	return cfg, nil
}

// latestRevision returns the highest revision number in the release's
// history, 0 when Helm has no record of the release. Revision numbers count
// up from 1 with no gaps, so it is the number of revisions made (Helm's
// --history-max may have pruned the oldest records, not their numbers).
func latestRevision(cfg *action.Configuration, name string) (int, error) {
	history, err := action.NewHistory(cfg).Run(name)
	if errors.Is(err, driver.ErrReleaseNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	latest := 0
	for _, r := range history {
		acc, err := helmrelease.NewAccessor(r)
		if err != nil {
			return 0, err
		}
		latest = max(latest, acc.Version())
	}
	return latest, nil
}
