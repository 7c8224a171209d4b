package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kyyard/kyyard/hack/cluster/internal/build"
)

// kwokCRDFiles are the kwok CRDs kwok serves logs, exec, attach and
// port-forward from, by plural resource name.
var kwokCRDFiles = []string{"logs", "clusterlogs", "execs", "clusterexecs", "attaches", "clusterattaches", "portforwards", "clusterportforwards"}

// KwokGroupVersion is the API group/version of kwok's custom resources.
const KwokGroupVersion = "kwok.x-k8s.io/v1alpha1"

// kwokCRDDir returns the folder of kwok's CRD manifests in the Go module cache,
// downloading the module first if it is not there.
func kwokCRDDir(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMODCACHE").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMODCACHE: %w", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "sigs.k8s.io", "kwok@"+build.KwokVersion, "kustomize", "crd", "bases")
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp("", "kyyard-kwok-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "sigs.k8s.io/kwok@"+build.KwokVersion)
	cmd.Dir = tmp
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go mod download sigs.k8s.io/kwok@%s: %w\n%s", build.KwokVersion, err, b)
	}
	return dir, nil
}

// installCRDs creates kwok's CRDs (existing ones are fine) and waits until the
// API server serves all of them.
func (s *starter) installCRDs(ctx context.Context) error {
	start := time.Now()
	dir, err := kwokCRDDir(ctx)
	if err != nil {
		return err
	}
	cfg, err := AdminRESTConfig(s.c.L)
	if err != nil {
		return err
	}
	ext, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for _, name := range kwokCRDFiles {
		data, err := os.ReadFile(filepath.Join(dir, "kwok.x-k8s.io_"+name+".yaml"))
		if err != nil {
			return err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &crd); err != nil {
			return fmt.Errorf("CRD %s: %w", name, err)
		}
		_, err = ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, &crd, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create CRD %s: %w", crd.Name, err)
		}
	}
	deadline := time.Now().Add(componentTimeout)
	for {
		missing := s.missingKwokResources()
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kwok CRDs not served after %s: missing %v", componentTimeout, missing)
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Fprintf(s.c.Out, "up: %d kwok CRDs served in %s\n", len(kwokCRDFiles), time.Since(start).Round(10*time.Millisecond))
	return nil
}

func (s *starter) missingKwokResources() []string {
	list, err := s.client.Discovery().ServerResourcesForGroupVersion(KwokGroupVersion)
	if err != nil {
		return kwokCRDFiles
	}
	served := map[string]bool{}
	for _, r := range list.APIResources {
		served[r.Name] = true
	}
	var missing []string
	for _, n := range kwokCRDFiles {
		if !served[n] {
			missing = append(missing, n)
		}
	}
	return missing
}
