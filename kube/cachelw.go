package kube

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/watchlist"
)

// noticingListerWatcher is a ListerWatcher that shows the options of each
// list and watch to note before sending it (as client-go's
// tweakListOptions does for the informer factory's informers), so that a
// cache knows whether its first list streams (a watch with
// sendInitialEvents) or arrives at once.
type noticingListerWatcher struct {
	lw   cache.ListerWatcher
	note func(*metav1.ListOptions)
}

// noticingLW wraps lw so that note sees every request's options.
func noticingLW(lw cache.ListerWatcher, note func(*metav1.ListOptions)) cache.ListerWatcher {
	return &noticingListerWatcher{lw: lw, note: note}
}

// List lists through the wrapped ListerWatcher.
func (n *noticingListerWatcher) List(options metav1.ListOptions) (runtime.Object, error) {
	n.note(&options)
	return n.lw.List(options)
}

// Watch watches through the wrapped ListerWatcher.
func (n *noticingListerWatcher) Watch(options metav1.ListOptions) (watch.Interface, error) {
	n.note(&options)
	return n.lw.Watch(options)
}

// IsWatchListSemanticsUnSupported passes on whether the wrapped
// ListerWatcher supports watch-lists (client-go's reflector asks).
func (n *noticingListerWatcher) IsWatchListSemanticsUnSupported() bool {
	return watchlist.DoesClientNotSupportWatchListSemantics(n.lw)
}
