// Package helmdemo makes the local cluster's demo Helm release with Helm's
// own Go SDK (helm.sh/helm/v4): a real release, stored by Helm's secret
// driver (Secrets of type helm.sh/release.v1 labelled owner=helm), with a
// history of several revisions, so that kyyard's Helm features meet what
// `helm install` and `helm upgrade` leave in a cluster.
//
// The chart is greeter, embedded here: a ConfigMap, a Secret, a Service and
// a Deployment whose pods run on the local cluster's fake kwok nodes.
package helmdemo

import (
	"embed"
	"fmt"
	"io/fs"

	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
)

// chartName is the embedded chart's name (Chart.yaml's name), which Helm
// writes into the helm.sh/chart label as "greeter-<chart version>".
const chartName = "greeter"

// chartRoot is the embedded chart's directory in chartFiles.
const chartRoot = "chart/greeter"

// chartFiles holds the greeter chart; "all:" keeps templates/_helpers.tpl,
// which a plain pattern would skip for its leading underscore.
//
//go:embed all:chart/greeter
var chartFiles embed.FS

// Revision is one revision of the demo release: the chart version and app
// version written into the chart's metadata (Chart.yaml's version and
// appVersion) and the values given to Helm, as `helm upgrade --set` would.
type Revision struct {
	// ChartVersion is the chart's version, a SemVer 2 string like "0.2.0"
	// (Helm refuses others when it loads the chart).
	ChartVersion string
	// AppVersion is the chart's appVersion, free text like "1.1"; it becomes
	// the app.kubernetes.io/version label.
	AppVersion string
	// Values are the release's values, as a values.yaml would give them:
	// "message" (string, the ConfigMap's data.message), "password" (string,
	// the Secret's stringData.password) and "replicas" (an int, the
	// Deployment's spec.replicas). Keys left out take the chart's defaults
	// ("hello", "changeme", 1).
	Values map[string]any
}

// DefaultRevisions returns the demo release's two revisions, in order:
// revision 1 is chart 0.1.0, app 1.0, message "hello", password
// "s3cret-one", 1 replica; revision 2 is chart 0.2.0, app 1.1, message
// "hello again", password "s3cret-two", 2 replicas. Each call returns new
// maps, so a caller may change them.
func DefaultRevisions() []Revision {
	return []Revision{
		{ChartVersion: "0.1.0", AppVersion: "1.0", Values: map[string]any{
			"message": "hello", "password": "s3cret-one", "replicas": 1,
		}},
		{ChartVersion: "0.2.0", AppVersion: "1.1", Values: map[string]any{
			"message": "hello again", "password": "s3cret-two", "replicas": 2,
		}},
	}
}

// loadChart loads the embedded greeter chart with Helm's loader and sets its
// version and appVersion to rev's. It returns a new chart on every call:
// Helm keeps the chart it installs inside the release it stores.
func loadChart(rev Revision) (*chart.Chart, error) {
	root, err := fs.Sub(chartFiles, chartRoot)
	if err != nil {
		return nil, fmt.Errorf("open the embedded %s chart: %w", chartName, err)
	}
	var files []*archive.BufferedFile
	err = fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		files = append(files, &archive.BufferedFile{Name: name, Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the embedded %s chart: %w", chartName, err)
	}
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("load the %s chart: %w", chartName, err)
	}
	ch.Metadata.Version = rev.ChartVersion
	ch.Metadata.AppVersion = rev.AppVersion
	if err := ch.Validate(); err != nil {
		return nil, fmt.Errorf("chart %s version %q: %w", chartName, rev.ChartVersion, err)
	}
	return ch, nil
}
