package forwarding

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// forwardDialer opens the streaming connection of a port-forward to one
// pod. Tests replace the real one (Forwarder.dialPortForward) through
// Registry.dial.
type forwardDialer func(ctx context.Context, namespace, pod string) (httpstream.Connection, error)

// dialPortForward opens pods/portforward on a pod: SPDY tunnelled over a
// WebSocket first, plain SPDY when the WebSocket upgrade is refused or a
// proxy does not pass it (what kubectl port-forward does,
// k8s.io/kubectl/pkg/cmd/portforward createDialer, with client-go's
// portforward.NewFallbackDialer).
func (fw Forwarder) dialPortForward(_ context.Context, namespace, pod string) (httpstream.Connection, error) {
	if fw.Config == nil {
		return nil, vocab.ErrExecUnavailable
	}
	u := fw.CS.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(pod).SubResource("portforward").URL()
	transport, upgrader, err := spdy.RoundTripperFor(fw.Config)
	if err != nil {
		return nil, err
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, u)
	tunnel, err := portforward.NewSPDYOverWebsocketDialer(u, fw.Config)
	if err != nil {
		return nil, err
	}
	dialer = portforward.NewFallbackDialer(tunnel, dialer, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
	conn, protocol, err := dialer.Dial(portforward.PortForwardProtocolV1Name)
	if err != nil {
		return nil, err
	}
	if protocol != portforward.PortForwardProtocolV1Name {
		conn.Close()
		return nil, fmt.Errorf("the API server offered protocol %q, not %q", protocol, portforward.PortForwardProtocolV1Name)
	}
	return conn, nil
}

// counted counts the bytes written through it.
type counted struct {
	w io.Writer
	n *atomic.Int64
}

func (c counted) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// podForwardError is what the pod's side (the kubelet) reported on a
// connection's error stream ("error forwarding port 8080 to pod p, uid …:
// no forward found for port 8080 in pod …"), its innermost cause first.
// The streaming connection itself is sound.
type podForwardError struct{ cause, context string }

// Error returns "<cause> (<context>)".
func (e *podForwardError) Error() string {
	if e.context == "" {
		return e.cause
	}
	return e.cause + " (" + e.context + ")"
}

// carry copies one local connection through conn to the pod's port: an
// error stream and a data stream with the port-forward protocol's headers
// (the protocol of client-go's PortForwarder.handleConnection), bytes
// counted into in (pod to local) and out (local to pod). It returns the
// error the pod's side reported on the error stream, if any (a
// *podForwardError), or why the streams could not be made or read; the
// local connection is closed.
func carry(local net.Conn, conn httpstream.Connection, port int32, requestID int, in, out *atomic.Int64) error {
	defer local.Close()
	headers := http.Header{}
	headers.Set(corev1.StreamType, corev1.StreamTypeError)
	headers.Set(corev1.PortHeader, strconv.Itoa(int(port)))
	headers.Set(corev1.PortForwardRequestIDHeader, strconv.Itoa(requestID))
	errStream, err := conn.CreateStream(headers)
	if err != nil {
		return fmt.Errorf("create error stream: %w", err)
	}
	errStream.Close() // nothing is written to it
	defer conn.RemoveStreams(errStream)
	errc := make(chan error, 1)
	go func() {
		msg, err := io.ReadAll(errStream)
		switch {
		case err != nil:
			errc <- fmt.Errorf("read error stream: %w", err)
		case len(strings.TrimSpace(string(msg))) > 0:
			cause, context := vocab.SplitCause(string(msg))
			errc <- &podForwardError{cause: cause, context: context}
		default:
			errc <- nil
		}
	}()
	headers.Set(corev1.StreamType, corev1.StreamTypeData)
	data, err := conn.CreateStream(headers)
	if err != nil {
		return fmt.Errorf("create data stream: %w", err)
	}
	defer conn.RemoveStreams(data)

	remoteDone := make(chan struct{})
	localFailed := make(chan struct{})
	go func() {
		_, _ = io.Copy(counted{w: local, n: in}, data)
		close(remoteDone)
	}()
	go func() {
		defer data.Close() // no more data to send
		if _, err := io.Copy(counted{w: data, n: out}, local); err != nil && !strings.Contains(err.Error(), "use of closed network connection") {
			close(localFailed)
		}
	}()
	select {
	case <-remoteDone:
	case <-localFailed:
	}
	_ = data.Reset() // unblocks the error stream (client-go does the same)
	return <-errc
}
