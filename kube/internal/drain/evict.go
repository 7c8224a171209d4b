package drain

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// State is where one pod's eviction stands.
type State string

// States of a pod's eviction, in the order they come.
const (
	// Evicting: the eviction is being asked.
	Evicting State = "evicting"
	// Blocked: a PodDisruptionBudget allows no disruption now (the API
	// server's 429); the eviction is asked again after Retry.
	Blocked State = "blocked"
	// Evicted: the API server took the eviction; the pod is terminating.
	Evicted State = "evicted"
	// Gone: the pod is deleted (or another pod took its name).
	Gone State = "gone"
	// Failed: the eviction was refused for another reason (forbidden, the
	// API server's error); it is not asked again.
	Failed State = "failed"
	// Stopped: the drain ended (timeout, cancelled) before this pod did.
	Stopped State = "stopped"
)

// Event is one pod's progress.
type Event struct {
	// Namespace and Name name the pod.
	Namespace, Name string
	// State is its new state.
	State State
	// Budget names the PodDisruptionBudget that blocks it (Blocked), when
	// the API server says.
	Budget string
	// Detail is the API server's text (Blocked, Failed) or the end's.
	Detail string
	// Err is the error of Failed and Stopped.
	Err error
}

// Evicter evicts pods through the Eviction API.
type Evicter struct {
	// CS sends the evictions and reads the pods.
	CS kubernetes.Interface
	// Retry is how long a blocked eviction waits before it is asked again
	// (kubectl drain: 5 s); 0 is 5 s.
	Retry time.Duration
	// Poll is how often an evicted pod is read until it is gone; 0 is 1 s.
	Poll time.Duration
}

// budgetName finds the budget's name in the API server's text of a 429
// ("The disruption budget web-pdb needs 2 healthy pods ...").
var budgetName = regexp.MustCompile(`disruption budget (\S+)`)

// Evict evicts every pod of pods at once, each with its UID as the
// eviction's precondition (a pod made again under the same name is not
// evicted in its place), telling each one's progress on events (which it
// never closes; a send waits for ctx too). It returns when every pod is
// gone, failed, or ctx ended (each pod left then Stopped). Errors: the
// first pod that failed or was stopped, nil when all are gone.
func (e Evicter) Evict(ctx context.Context, pods []*corev1.Pod, events chan<- Event) error {
	var wg sync.WaitGroup
	errs := make([]error, len(pods))
	for i, p := range pods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = e.evictOne(ctx, p, events)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// evictOne evicts p and waits until it is gone.
func (e Evicter) evictOne(ctx context.Context, p *corev1.Pod, events chan<- Event) error {
	tell := func(ev Event) {
		ev.Namespace, ev.Name = p.Namespace, p.Name
		select {
		case events <- ev:
		case <-ctx.Done():
		}
	}
	stopped := func() error {
		err := fmt.Errorf("%s/%s: %w", p.Namespace, p.Name, context.Cause(ctx))
		tell(Event{State: Stopped, Err: err, Detail: "the drain ended before it did"})
		return err
	}
	retry, poll := e.Retry, e.Poll
	if retry <= 0 {
		retry = 5 * time.Second
	}
	if poll <= 0 {
		poll = time.Second
	}
	uid := p.UID
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace},
		DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}}
	tell(Event{State: Evicting})
	for {
		err := e.CS.CoreV1().Pods(p.Namespace).EvictV1(ctx, ev)
		switch {
		case err == nil:
			tell(Event{State: Evicted})
			return e.waitGone(ctx, p, poll, tell, stopped)
		case apierrors.IsNotFound(err):
			tell(Event{State: Gone, Detail: "gone before its eviction"})
			return nil
		case apierrors.IsTooManyRequests(err):
			budget := ""
			if m := budgetName.FindStringSubmatch(causeText(err)); m != nil {
				budget = m[1]
			}
			tell(Event{State: Blocked, Budget: budget, Detail: causeText(err)})
		case ctx.Err() != nil:
			return stopped()
		default:
			tell(Event{State: Failed, Err: err, Detail: err.Error()})
			return fmt.Errorf("%s/%s: %w", p.Namespace, p.Name, err)
		}
		select {
		case <-ctx.Done():
			return stopped()
		case <-time.After(retry):
		}
	}
}

// waitGone reads p until it is deleted, or another pod has its name.
func (e Evicter) waitGone(ctx context.Context, p *corev1.Pod, poll time.Duration, tell func(Event), stopped func() error) error {
	for {
		got, err := e.CS.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || err == nil && got.UID != p.UID {
			tell(Event{State: Gone})
			return nil
		}
		select {
		case <-ctx.Done():
			return stopped()
		case <-time.After(poll):
		}
	}
}

// causeText is the API server's explanation of err: its causes'
// messages, else its message.
func causeText(err error) string {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		if d := st.Status().Details; d != nil {
			for _, c := range d.Causes {
				if c.Message != "" {
					return c.Message
				}
			}
		}
	}
	return err.Error()
}
