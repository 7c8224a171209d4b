package kube

import (
	"context"
	"strings"
	"time"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
)

// ClusterOverview is vocab.ClusterOverview.
type ClusterOverview = vocab.ClusterOverview

// overviewTimeout bounds an overview's reads.
const overviewTimeout = 15 * time.Second

// Overview reads the cluster's health at a glance: the API server's
// version and the latency of that request first (a server that does not
// answer ends it there, Reason and Message saying why); then the Nodes,
// Pods and events of every namespace from the caches (informers started on
// first use, as a screen's: a refresh costs no request), the Pods and
// events of the context's namespace instead when the account may not list
// Pods everywhere (Namespace says so), the Nodes' usage from the metrics
// API meanwhile, and the access reviews of list and watch pods (where
// they were counted) and patch deployments in the context's namespace. A part that cannot be read is named in Unread, the rest is
// filled. It never fails.
func (c *Client) Overview(ctx context.Context) ClusterOverview {
	ctx, cancel := context.WithTimeout(ctx, overviewTimeout)
	defer cancel()
	var o ClusterOverview
	o.ReadOnly = c.opts.ReadOnly
	start := time.Now()
	v, err := c.serverVersion(ctx)
	o.Latency = time.Since(start)
	if err != nil {
		o.Reason, o.Message = ReasonOf(err), err.Error()
		if o.Reason == "" {
			o.Reason = ReasonUnavailable
		}
		return o
	}
	o.Version = v.GitVersion
	metrics := make(chan Metrics, 1)
	go func() { metrics <- c.Metrics(ctx, MetricsRequest{Kind: KindNodes}) }()
	snap := c.Snapshot(ctx, SnapshotRequest{Kinds: []Kind{KindNodes, KindPods, "events"}})
	if forbidden(snap, KindPods) && c.namespace != "" {
		// An account of one namespace: count that namespace's Pods and
		// events instead of none.
		nodes, _ := snap.Table(KindNodes)
		var trs []Truncation
		for _, tr := range snap.Truncated {
			if tr.Kind == KindNodes {
				trs = append(trs, tr)
			}
		}
		snap = c.Snapshot(ctx, SnapshotRequest{Kinds: []Kind{KindPods, "events"}, Namespace: c.namespace})
		snap.Tables, snap.Truncated = append(snap.Tables, nodes), append(snap.Truncated, trs...)
		o.Namespace = c.namespace
	}
	now := time.Now()
	for _, tr := range snap.Truncated {
		o.Unread = append(o.Unread, string(tr.Kind)+": "+string(tr.Reason))
	}
	summarizeOverview(&o, snap, now)
	for _, t := range snap.Tables {
		o.Reading = o.Reading || t.Reading
	}
	for _, a := range []struct {
		to  *bool
		chk guards.AccessCheck
	}{
		{&o.MayList, guards.AccessCheck{Verb: "list", Resource: "pods", Namespace: o.Namespace}},
		{&o.MayWatch, guards.AccessCheck{Verb: "watch", Resource: "pods", Namespace: o.Namespace}},
		{&o.MayWrite, guards.AccessCheck{Verb: "patch", Group: "apps", Resource: "deployments", Namespace: c.namespace}},
	} {
		*a.to = c.guards.Access(ctx, a.chk).Outcome == OutcomePass
	}
	m := <-metrics
	if m.Truncated != nil {
		o.MetricsReason = m.Truncated.Reason
	} else {
		o.Metrics = true
		for _, n := range m.Nodes {
			o.Used.CPU += max(n.Usage.CPU, 0)
			o.Used.Memory += max(n.Usage.Memory, 0)
		}
	}
	o.Answered = now
	return o
}

// forbidden reports whether snap could not read kind for want of
// permission.
func forbidden(snap Snapshot, kind Kind) bool {
	for _, tr := range snap.Truncated {
		if tr.Kind == kind && tr.Reason == ReasonForbidden {
			return true
		}
	}
	return false
}

// summarizeOverview counts the Nodes, Pods and Warning events of snap
// into o, as of now.
func summarizeOverview(o *ClusterOverview, snap Snapshot, now time.Time) {
	if t, ok := snap.Table(KindNodes); ok {
		for _, r := range t.Rows {
			o.NodesTotal++
			if r.Status == "Ready" || strings.HasPrefix(r.Status, "Ready,") {
				o.NodesReady++
			}
			if r.Resources != nil {
				o.Allocatable.CPU += max(r.Resources.Allocatable.CPU, 0)
				o.Allocatable.Memory += max(r.Resources.Allocatable.Memory, 0)
			}
		}
	}
	if t, ok := snap.Table(KindPods); ok {
		for _, r := range t.Rows {
			o.PodsTotal++
			switch r.Fields["status.phase"] {
			case "Running":
				o.PodsRunning++
			case "Pending":
				o.PodsPending++
			case "Failed":
				o.PodsFailed++
			}
		}
	}
	if t, ok := snap.Table("events"); ok {
		for _, r := range t.Rows {
			if r.Status == "Warning" && len(r.Cells) > 0 && !r.Cells[0].Since.IsZero() && now.Sub(r.Cells[0].Since) <= time.Hour {
				o.Warnings++
			}
		}
	}
}
