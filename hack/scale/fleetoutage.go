package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// stamped is one change of the restarted member's state on the screen.
type stamped struct {
	at   time.Time
	text string
}

// outageResult is what the outage measured.
type outageResult struct {
	member string
	// began: the restart command started (it sends SIGTERM at once);
	// refused: the API server's port first refused a connection; exited:
	// its process was gone (the clients' connections with it); stopped: the
	// command said it stopped; accepting: the port accepted again; ready:
	// the command said it is ready (/readyz) again; finished: it exited.
	began, refused, exited, stopped, accepting, ready, finished time.Time
	othersRestarted                                             []string // other members whose API server restarted meanwhile (not by this run)
	cmdErr                                                      error
	cmdOut                                                      string
	left                                                        time.Time // the member first showed no count
	leftText                                                    string
	staleAt                                                     time.Time
	staleText                                                   string
	othersAtStale                                               string // the other clusters' entries then
	othersBroke                                                 string // the first entry of another cluster that was no count while the member was away; "" none
	backAt                                                      time.Time
	backText                                                    string
	timeline                                                    []stamped
	reads                                                       []auditRequest // kyyard's requests of the member's pods since began
	otherRequests                                               map[string]int // its other requests to the member since began, by verb
	auditErr                                                    error
}

// stop is the outage's origin: the API server's process gone (until then
// it keeps serving the connections it has, kyyard's watches among them,
// though it refuses new ones), else the command's "stopped", else its
// start.
func (r outageResult) stop() time.Time {
	switch {
	case !r.exited.IsZero():
		return r.exited
	case !r.stopped.IsZero():
		return r.stopped
	}
	return r.began
}

// outage stops member i's API server for o.down (fleet restart-apiserver,
// in the background in its own process group) while the fleet's kyyard
// runs, and follows the states line every 20 ms until the member shows
// its count again; then reads kyyard's requests of its pods from its audit
// log.
func (o fleetOptions) outage(i int, scale []int) (outageResult, error) {
	res := outageResult{member: o.restart, otherRequests: map[string]int{}}
	u, err := url.Parse(o.hosts[i])
	if err != nil {
		return res, err
	}
	screen, err := capture(o.session)
	if err != nil {
		return res, err
	}
	for j, name := range o.contexts {
		if st := parseStates(screen)[name]; st.class != "count" || st.rows < scale[j] {
			return res, fmt.Errorf("before the outage %s shows %q, not its count", name, st.text)
		}
	}
	servers := o.apiServers()
	if servers[i] == 0 {
		return res, fmt.Errorf("no API server of %s runs", o.restart)
	}
	out, err := os.CreateTemp("", "kyyard-fleet-restart-*.log")
	if err != nil {
		return res, err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	cmd := exec.Command(o.clusterTool, "fleet", "restart-apiserver", "--cluster", o.restart, "--down", o.down.String())
	cmd.Stdout, cmd.Stderr = out, out // a file: the command outlives an interrupted run unharmed
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	res.began = time.Now()
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("%s fleet restart-apiserver: %w", o.clusterTool, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// The port: when it first refuses, and accepts again after that; the
	// process: when it is gone.
	var pmu sync.Mutex
	var refused, accepting, exited time.Time
	stopWatch := make(chan struct{})
	defer close(stopWatch)
	go func() {
		for {
			select {
			case <-stopWatch:
				return
			default:
			}
			if !alive(servers[i]) {
				pmu.Lock()
				exited = time.Now()
				pmu.Unlock()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	go func() {
		for {
			select {
			case <-stopWatch:
				return
			default:
			}
			c, err := net.DialTimeout("tcp", u.Host, 500*time.Millisecond)
			now := time.Now()
			if c != nil {
				c.Close()
			}
			pmu.Lock()
			if err != nil && refused.IsZero() {
				refused = now
			} else if err == nil && !refused.IsZero() {
				accepting = now
				pmu.Unlock()
				return
			}
			pmu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	}()

	deadline := res.began.Add(o.down + 3*time.Minute)
	finished := false
	lastClass := ""
	for {
		now := time.Now()
		screen, err := capture(o.session)
		if err != nil {
			return res, err
		}
		states := parseStates(screen)
		st, ok := states[o.restart]
		if !ok {
			st = clusterState{class: "(no entry)", text: "(no entry)"}
		}
		if st.class != lastClass {
			res.timeline = append(res.timeline, stamped{now, st.text})
			lastClass = st.class
		}
		switch {
		case res.left.IsZero() && st.class != "count":
			res.left, res.leftText = now, st.text
		case !res.left.IsZero() && res.backAt.IsZero() && st.class == "count":
			res.backAt, res.backText = now, st.text
		}
		if res.staleAt.IsZero() && st.class == "stale" {
			res.staleAt, res.staleText = now, st.text
			var others []string
			for _, name := range o.contexts {
				if name != o.restart {
					others = append(others, name+" "+states[name].text)
				}
			}
			res.othersAtStale = strings.Join(others, " · ")
		}
		if !res.left.IsZero() && res.backAt.IsZero() && res.othersBroke == "" {
			for j, name := range o.contexts {
				if other := states[name]; name != o.restart && (other.class != "count" || other.rows < scale[j]) {
					res.othersBroke = fmt.Sprintf("%s %q at %s after the stop", name, other.text, now.Sub(res.stop()).Round(time.Millisecond))
				}
			}
		}
		if text, err := os.ReadFile(out.Name()); err == nil {
			if res.stopped.IsZero() && bytes.Contains(text, []byte("restart-apiserver: stopped")) {
				res.stopped = now
			}
			if res.ready.IsZero() && bytes.Contains(text, []byte("ready again")) {
				res.ready = now
			}
		}
		pmu.Lock()
		res.refused, res.accepting, res.exited = refused, accepting, exited
		pmu.Unlock()
		if !finished {
			select {
			case res.cmdErr = <-done:
				finished, res.finished = true, now
			default:
			}
		}
		if finished && (!res.backAt.IsZero() || res.cmdErr != nil) {
			break
		}
		if now.After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	text, _ := os.ReadFile(out.Name())
	res.cmdOut = strings.TrimSpace(string(text))
	if res.cmdErr != nil {
		return res, fmt.Errorf("fleet restart-apiserver: %w", res.cmdErr)
	}
	if !finished {
		return res, fmt.Errorf("fleet restart-apiserver had not finished %s after it began", time.Since(res.began).Round(time.Second))
	}
	if res.backAt.IsZero() {
		return res, fmt.Errorf("%s did not show its count again within %s of the restart", o.restart, o.down+3*time.Minute)
	}
	// What kyyard asks after it is back, for a while more.
	time.Sleep(10 * time.Second)
	for j, name := range o.contexts {
		if j != i && apiServerPID(o.hosts[j]) != servers[j] {
			res.othersRestarted = append(res.othersRestarted, name)
		}
	}
	reqs, err := auditRequestsAs(o.audit(o.restart), o.as, res.began.Add(-time.Second))
	if err != nil {
		res.auditErr = err
		return res, nil
	}
	for _, r := range reqs {
		if r.received.Before(res.began) {
			continue
		}
		// The core group's pods only: a read of metrics.k8s.io's pods
		// (every member runs metrics-server) is no list of the pods.
		if r.group == "" && r.resource == "pods" && r.namespace == "" && r.subresource == "" && (r.verb == "list" || r.verb == "watch") {
			res.reads = append(res.reads, r)
		} else {
			res.otherRequests[r.verb]++
		}
	}
	return res, nil
}

// print reports the outage.
func (r outageResult) print(o fleetOptions) {
	if r.began.IsZero() {
		return
	}
	stop := r.stop()
	after := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.Sub(stop).Round(time.Millisecond).String()
	}
	fmt.Printf("  one API server stopped mid-run: %s fleet restart-apiserver --cluster %s --down %s (in the background)\n",
		o.clusterTool, r.member, o.down)
	fmt.Printf("    %s's API server: SIGTERM at the command's start; its port refused new connections %s after, its process gone %s after (it served the connections it had until then); the stop below: the process gone\n",
		r.member, durOrNever(r.began, r.refused), durOrNever(r.began, r.exited))
	stale := r.staleAt.Sub(stop)
	if r.staleAt.IsZero() {
		fmt.Printf("    %s stale: never shown (first left its count %s after the stop: %q) (target ≤ %s): NOT met\n", r.member, after(r.left), r.leftText, fleetStaleTarget)
	} else {
		fmt.Printf("    %s stale: %s after the stop (%q; target ≤ %s): %s; %s after SIGTERM; first left its count %s after the stop (%q)\n",
			r.member, stale.Round(time.Millisecond), r.staleText, fleetStaleTarget, verdict(stale <= fleetStaleTarget),
			durOrNever(r.began, r.staleAt), after(r.left), r.leftText)
		fmt.Printf("      the other clusters then: %s\n", r.othersAtStale)
	}
	if r.othersBroke == "" {
		fmt.Printf("      the other clusters showed their counts throughout, until %s was back: yes\n", r.member)
	} else {
		fmt.Printf("      the other clusters showed their counts throughout: NO, first %s\n", r.othersBroke)
	}
	fmt.Printf("    back: the port accepted again %s after the stop, the API server ready (/readyz) %s after the stop; the command finished %s after it\n",
		after(r.accepting), after(r.ready), after(r.finished))
	if !r.backAt.IsZero() {
		fmt.Printf("    %s's count again (%s): %s after the API server was ready, %s after its port accepted (%s after the stop)\n",
			r.member, r.backText, durOrNever(r.ready, r.backAt), durOrNever(r.accepting, r.backAt), after(r.backAt))
	}
	if len(r.othersRestarted) > 0 {
		fmt.Printf("    NOTE: the API server of %s restarted meanwhile (not by this run)\n", strings.Join(r.othersRestarted, ", "))
	}
	var tl []string
	for _, s := range r.timeline {
		tl = append(tl, fmt.Sprintf("%s %q", after(s.at), s.text))
	}
	fmt.Printf("    %s on the states line (time after the stop): %s\n", r.member, strings.Join(tl, " → "))
	if r.auditErr != nil {
		fmt.Printf("    %s's audit log: %v\n", r.member, r.auditErr)
		return
	}
	if len(r.reads) == 0 && len(r.otherRequests) == 0 {
		return
	}
	fmt.Printf("    kyyard's reads of all pods of %s from the outage on (audit log; time after the stop; the API server ready at %s, the count back at %s):\n",
		r.member, after(r.ready), after(r.backAt))
	var full []auditRequest
	for _, q := range r.reads {
		end := ""
		if !q.completed.IsZero() {
			end = fmt.Sprintf(", answered in %s", q.completed.Sub(q.received).Round(time.Millisecond))
		}
		fmt.Printf("      %9s %-5s %-36s HTTP %d%s  %s\n", after(q.received), q.verb, q.kind(), q.code, end, q.uri)
		// A refused request (429 while the API server starts) read nothing.
		if q.full() && !q.received.Before(stop) && q.code < 400 {
			full = append(full, q)
		}
	}
	if len(r.otherRequests) > 0 {
		var parts []string
		for _, v := range slices.Sorted(maps.Keys(r.otherRequests)) {
			parts = append(parts, fmt.Sprintf("%s %d", v, r.otherRequests[v]))
		}
		fmt.Printf("      its other requests to %s over the same time: %s\n", r.member, strings.Join(parts, ", "))
	}
	// A full read runs from its request until its answer (a LIST's
	// completion; a streaming list's end of initial events, taken as the
	// member's count shown again on the screen after it began).
	var beside, reads []string
	for a := range full {
		endA := r.readEnd(full[a])
		reads = append(reads, fmt.Sprintf("%s %s–%s", full[a].kind(), after(full[a].received), after(endA)))
		for b := a + 1; b < len(full); b++ {
			if full[b].received.Before(endA) {
				beside = append(beside, fmt.Sprintf("%s at %s beside %s at %s", full[b].kind(), after(full[b].received), full[a].kind(), after(full[a].received)))
			}
		}
	}
	fmt.Printf("    full reads of all pods after the stop (answered, LISTs without continue and streaming lists): %d: %s\n", len(full), strings.Join(reads, "; "))
	if len(beside) == 0 {
		fmt.Printf("    catch-up with no second full list beside a running one: yes (none overlapped)\n")
	} else {
		fmt.Printf("    catch-up with no second full list beside a running one: NO: %s\n", strings.Join(beside, "; "))
	}
}

// readEnd is when full read q had answered: a LIST's completion; a
// streaming list's, the first moment after it began that the member
// showed its count on the screen (its completion if earlier).
func (r outageResult) readEnd(q auditRequest) time.Time {
	end := q.completed
	if q.verb == "list" && !end.IsZero() {
		return end
	}
	for _, s := range r.timeline {
		if s.at.After(q.received) && isCount(s.text) {
			if end.IsZero() || s.at.Before(end) {
				end = s.at
			}
			break
		}
	}
	if end.IsZero() {
		end = time.Now()
	}
	return end
}

// auditRequest is one request of an audit log, its stages merged.
type auditRequest struct {
	id, verb, uri                    string
	resource, namespace, subresource string
	group                            string    // the API group ("" for core; metrics.k8s.io's pods are another resource)
	received, completed              time.Time // completed: zero until its ResponseComplete
	code                             int
}

// query is the request's URL query.
func (q auditRequest) query() url.Values {
	u, err := url.Parse(q.uri)
	if err != nil {
		return url.Values{}
	}
	return u.Query()
}

// full says whether q reads every pod from the start: a LIST with no
// continue (a first page or an unpaged list), or a watch with
// sendInitialEvents (a streaming list); a watch from a resourceVersion
// resumes and is no full read.
func (q auditRequest) full() bool {
	v := q.query()
	switch q.verb {
	case "list":
		return v.Get("continue") == ""
	case "watch":
		return v.Get("sendInitialEvents") == "true"
	}
	return false
}

// kind names what q is: "full LIST (rv \"\")", "watch from rv 123", ...
func (q auditRequest) kind() string {
	v := q.query()
	rv := "no rv"
	if vs, ok := v["resourceVersion"]; ok {
		rv = fmt.Sprintf("rv %q", vs[0])
	}
	switch {
	case q.verb == "list" && v.Get("continue") != "":
		return "LIST page (continue)"
	case q.verb == "list":
		return "full LIST (" + rv + ")"
	case q.full():
		return "streaming list (sendInitialEvents)"
	}
	return "watch from " + rv
}

// auditRequestsAs reads the requests of the kyyard impersonating as
// received since from in the audit log at path, in the order received.
func auditRequestsAs(path, as string, from time.Time) ([]auditRequest, error) {
	byID := map[string]*auditRequest{}
	var order []string
	err := auditScanAs(path, as, from, func(line []byte) error {
		var e struct {
			AuditID   string    `json:"auditID"`
			Stage     string    `json:"stage"`
			Verb      string    `json:"verb"`
			URI       string    `json:"requestURI"`
			Received  time.Time `json:"requestReceivedTimestamp"`
			StageTime time.Time `json:"stageTimestamp"`
			ObjectRef *struct {
				APIGroup    string `json:"apiGroup"`
				Resource    string `json:"resource"`
				Namespace   string `json:"namespace"`
				Subresource string `json:"subresource"`
			} `json:"objectRef"`
			ResponseStatus *struct {
				Code int `json:"code"`
			} `json:"responseStatus"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			return err
		}
		if e.Received.Before(from) {
			return nil
		}
		q, ok := byID[e.AuditID]
		if !ok {
			q = &auditRequest{id: e.AuditID, verb: e.Verb, uri: e.URI, received: e.Received}
			if e.ObjectRef != nil {
				q.resource, q.namespace, q.subresource, q.group = e.ObjectRef.Resource, e.ObjectRef.Namespace, e.ObjectRef.Subresource, e.ObjectRef.APIGroup
			}
			byID[e.AuditID] = q
			order = append(order, e.AuditID)
		}
		if e.ResponseStatus != nil && e.ResponseStatus.Code != 0 {
			q.code = e.ResponseStatus.Code
		}
		if e.Stage == "ResponseComplete" || e.Stage == "Panic" {
			q.completed = e.StageTime
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]auditRequest, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	slices.SortStableFunc(out, func(a, b auditRequest) int { return a.received.Compare(b.received) })
	return out, nil
}
