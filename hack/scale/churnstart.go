package main

// A start while the cluster churns (issue 25): seed --no-wait creates the
// pods and returns while kwok is still starting most of them, and measure
// --interleave then times one bare LIST right before each start of kyyard,
// so that each start is held to a LIST of its own minute (the churn, and
// with it the API server's load, falls as kwok catches up).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// printInterleaved reports measure --interleave: each start's all-rows
// time beside the bare LIST timed right before it, and how many of the
// pods were not Running yet at that LIST. Start i ran binaries[i %
// len(binaries)]; with several, each one's ratios are summed up apart.
func printInterleaved(binaries []string, listed int, lists, alls []time.Duration, notRunning []int) {
	fmt.Printf("  each start beside a bare protobuf LIST of all %d pods timed right before it (a start while the cluster churns; target ≤ 1.5):\n", listed)
	ratios := map[string][]float64{}
	for i := range alls {
		bin := binaries[i%len(binaries)]
		r := alls[i].Seconds() / lists[i].Seconds()
		ratios[bin] = append(ratios[bin], r)
		fmt.Printf("    start %d (%s): LIST %s, kyyard's all rows %s = %.2f× (%d of %d pods not Running yet at the LIST)\n",
			i+1, bin, lists[i].Round(time.Millisecond), alls[i].Round(time.Millisecond), r, notRunning[i], listed)
	}
	for _, bin := range binaries {
		sorted := slices.Sorted(slices.Values(ratios[bin]))
		if len(sorted) == 0 {
			continue
		}
		fmt.Printf("    %s's all rows / the LIST of its minute: best %.2f, median %.2f, worst %.2f\n",
			bin, sorted[0], sorted[(len(sorted)-1)/2], sorted[len(sorted)-1])
	}
}

// podReads counts kyyard's reads of pods (the core API's, not the metrics
// API's) in one start, from the audit log.
type podReads struct {
	streaming int // watches with sendInitialEvents (a streaming list)
	watches   int // other watches (resuming from a resourceVersion)
	lists     int // LISTs, whole or one page each
	pages     int // of which pages (a limit or a continue token)
}

// String says the counts as a sentence.
func (r podReads) String() string {
	return fmt.Sprintf("%d streaming list(s), %d LIST request(s) (%d of them pages), %d watch(es) resumed from a resourceVersion",
		r.streaming, r.lists, r.pages, r.watches)
}

// auditPodReads counts kyyard's reads of pods received in [from, to) in
// the audit log at path (and its rotated backups).
func auditPodReads(path string, from, to time.Time) (podReads, error) {
	var r podReads
	err := auditScan(path, from, func(line []byte) error {
		var e struct {
			Verb      string    `json:"verb"`
			Stage     string    `json:"stage"`
			URI       string    `json:"requestURI"`
			Received  time.Time `json:"requestReceivedTimestamp"`
			ObjectRef *struct {
				APIGroup string `json:"apiGroup"`
				Resource string `json:"resource"`
			} `json:"objectRef"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			return err
		}
		if e.Received.Before(from) || !e.Received.Before(to) || e.ObjectRef == nil ||
			e.ObjectRef.APIGroup != "" || e.ObjectRef.Resource != "pods" {
			return nil
		}
		q := url.Values{}
		if _, raw, ok := strings.Cut(e.URI, "?"); ok {
			q, _ = url.ParseQuery(raw)
		}
		switch {
		case e.Verb == "watch" && e.Stage == "ResponseStarted" && q.Get("sendInitialEvents") == "true":
			r.streaming++
		case e.Verb == "watch" && e.Stage == "ResponseStarted":
			r.watches++
		case e.Verb == "list" && e.Stage == "ResponseComplete":
			r.lists++
			if q.Get("limit") != "" || q.Get("continue") != "" {
				r.pages++
			}
		}
		return nil
	})
	return r, err
}

// listOnce times one unpaged LIST of every pod in protobuf, decoded, and
// counts the pods listed and those not Running yet (kwok still starting
// them).
func listOnce(ctx context.Context, cs kubernetes.Interface) (took time.Duration, items, notRunning int, err error) {
	start := time.Now()
	list, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("bare list: %w", err)
	}
	took = time.Since(start)
	for i := range list.Items {
		if list.Items[i].Status.Phase != corev1.PodRunning {
			notRunning++
		}
	}
	items = len(list.Items)
	list = nil
	runtime.GC()
	return took, items, notRunning, nil
}
