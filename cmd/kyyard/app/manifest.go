package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// tokenTimeout bounds --kubeconfig-for's read of the token Secret.
const tokenTimeout = 30 * time.Second

const manifestLong = `Print the YAML an administrator applies (kubectl apply -f) to give a
person or a pod least-privilege access for kyyard:

  - a ServiceAccount (--name, default kyyard) in the first --namespace (default:
    the kubeconfig context's namespace) and its token Secret (type
    kubernetes.io/service-account-token: the cluster fills in the token);
  - a Role and a RoleBinding in each --namespace with exactly the verbs kyyard's
    features use, and a small ClusterRole (access reviews; get of those
    namespaces, for their Pod Security level);
  - with --all-namespaces, one ClusterRole and ClusterRoleBinding instead, which
    also grants the cluster-scoped kinds (nodes, namespaces, persistentvolumes,
    storageclasses, clusterroles).

--readonly grants browsing only: get, list and watch of every kind kyyard
shows and pods/log, no write verb (access reviews, which change nothing,
aside), and nothing on Secrets (a list returns their data: the secrets view
then says forbidden). The full manifest adds what restart, scale, delete, the
workload form, shell, debug, port-forward, deploy and remove need; deploy
writes Secrets, and RBAC cannot narrow create or list to names, so it can read
the namespace's Secrets. The printed YAML names, per rule, what needs it.

--apply adds what kyyard apply and the YAML edit (E) need: patch and create
of every kind kyyard knows (Pods and RBAC objects among them, which is why it is not in the full
manifest unasked). Not with --readonly.

Without --all-namespaces, the cluster-scoped kinds are forbidden: their screens
say so, the namespace picker (ctrl+n) asks for a typed name, and the header's
node count is unknown. Kinds the API server serves beyond kyyard's built-in
ones (CRDs) are not granted: add rules for them yourself.

--kubeconfig-for NAME reads the token Secret of ServiceAccount NAME (in the
first --namespace) with your kubeconfig and prints a kubeconfig that uses it:
the server and CA of your current context's cluster. kyyard running in a pod
with that ServiceAccount uses the strict policy by default.`

// manifestOptions are `kyyard manifest`'s flags.
type manifestOptions struct {
	namespaces    []string
	name          string
	readonly      bool
	apply         bool
	all           bool
	kubeconfigFor string
}

// newManifestCommand returns `kyyard manifest`. flags are kubectl's
// connection flags (the default namespace, and the cluster
// --kubeconfig-for reads from); connect makes the client that reads the
// token Secret.
func newManifestCommand(flags *genericclioptions.ConfigFlags, connect connectFunc) *cobra.Command {
	opts := manifestOptions{}
	cmd := &cobra.Command{
		Use:   "manifest",
		Short: "Print RBAC for a least-privilege kyyard ServiceAccount, or a kubeconfig that uses it",
		Long:  manifestLong,
		Example: `  kyyard manifest -n team-a -n team-b | kubectl apply -f -
  kyyard manifest --readonly --name viewer -n team-a > viewer.yaml
  kyyard manifest --all-namespaces -n kyyard | kubectl apply -f -
  kyyard manifest --kubeconfig-for viewer -n team-a > viewer.kubeconfig`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.kubeconfigFor != "" {
				if cmd.Flags().Changed("name") || opts.readonly || opts.apply || opts.all {
					return errors.New("--kubeconfig-for takes only --namespace (and the connection flags): --name, --readonly, --apply and --all-namespaces are for the manifest")
				}
				return runKubeconfigFor(cmd.Context(), cmd.OutOrStdout(), flags, connect, opts)
			}
			return runManifest(cmd.OutOrStdout(), flags, opts)
		},
	}
	f := cmd.Flags()
	// This --namespace (repeatable) shadows kubectl's persistent one.
	f.StringArrayVarP(&opts.namespaces, "namespace", "n", nil, "a namespace to grant (repeat for more); the ServiceAccount lives in the first; default the kubeconfig context's namespace")
	f.StringVar(&opts.name, "name", kube.DefaultManifestName, "the ServiceAccount's name (also of its Roles, bindings and token Secret <name>-token)")
	f.BoolVar(&opts.readonly, "readonly", false, "grant browsing only: no write verb, no Secret read")
	f.BoolVar(&opts.apply, "apply", false, "grant kyyard apply and the YAML edit (E) too: patch and create of every kind kyyard knows")
	f.BoolVarP(&opts.all, "all-namespaces", "A", false, "grant every namespace and the cluster-scoped kinds with a ClusterRole")
	f.StringVar(&opts.kubeconfigFor, "kubeconfig-for", "", "print a kubeconfig for ServiceAccount NAME from its token Secret (read with your kubeconfig) instead of the manifest")
	return cmd
}

// namespacesOf is opts' namespaces, or the kubeconfig context's namespace
// (kubectl's rule: "default" when the context names none).
func namespacesOf(flags *genericclioptions.ConfigFlags, opts manifestOptions) ([]string, error) {
	if len(opts.namespaces) > 0 {
		return opts.namespaces, nil
	}
	ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, fmt.Errorf("no --namespace, and the kubeconfig's namespace cannot be read: %w", err)
	}
	return []string{ns}, nil
}

// runManifest prints kube.Manifest for opts. It makes no request.
func runManifest(out io.Writer, flags *genericclioptions.ConfigFlags, opts manifestOptions) error {
	nss, err := namespacesOf(flags, opts)
	if err != nil {
		return err
	}
	b, err := kube.Manifest(kinds.Builtin(), kube.ManifestOptions{Name: opts.name, Namespaces: nss, ReadOnly: opts.readonly, Apply: opts.apply, AllNamespaces: opts.all})
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}

// runKubeconfigFor prints a kubeconfig for ServiceAccount
// opts.kubeconfigFor in the first namespace: its token (read from the
// token Secret with the caller's credentials), the server and CA of the
// caller's current cluster.
func runKubeconfigFor(ctx context.Context, out io.Writer, flags *genericclioptions.ConfigFlags, connect connectFunc, opts manifestOptions) error {
	nss, err := namespacesOf(flags, opts)
	if err != nil {
		return err
	}
	if len(nss) != 1 {
		return fmt.Errorf("--kubeconfig-for reads one namespace's token Secret; %d namespaces given", len(nss))
	}
	if ctx == nil {
		ctx = context.Background()
	}
	client, done, err := connect()
	if err != nil {
		return err
	}
	defer done()
	defer client.Close()
	ctx, cancel := context.WithTimeout(ctx, tokenTimeout)
	defer cancel()
	tok, err := client.ServiceAccountToken(ctx, nss[0], opts.kubeconfigFor)
	if err != nil {
		return err
	}
	cfg, err := kubeconfigFor(flags, tok)
	if err != nil {
		return err
	}
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}

// kubeconfigFor builds the kubeconfig of tok's ServiceAccount: one
// cluster (the current context's name, server, TLS server name and CA,
// else the token Secret's ca.crt; insecure-skip-tls-verify when the
// caller's is), one user with the token, one context (namespace: the
// ServiceAccount's) made current.
func kubeconfigFor(flags *genericclioptions.ConfigFlags, tok kube.ServiceAccountToken) (*clientcmdapi.Config, error) {
	rc, err := flags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	clusterName := "cluster"
	if raw, err := flags.ToRawKubeConfigLoader().RawConfig(); err == nil {
		current := raw.CurrentContext
		if flags.Context != nil && *flags.Context != "" {
			current = *flags.Context
		}
		if c := raw.Contexts[current]; c != nil && c.Cluster != "" {
			clusterName = c.Cluster
		}
	}
	if flags.ClusterName != nil && *flags.ClusterName != "" {
		clusterName = *flags.ClusterName
	}
	cluster := &clientcmdapi.Cluster{Server: rc.Host, TLSServerName: rc.ServerName, InsecureSkipTLSVerify: rc.Insecure}
	if !rc.Insecure {
		cluster.CertificateAuthorityData = rc.CAData
		if len(cluster.CertificateAuthorityData) == 0 && rc.CAFile != "" {
			if cluster.CertificateAuthorityData, err = os.ReadFile(rc.CAFile); err != nil {
				return nil, fmt.Errorf("read the cluster's CA: %w", err)
			}
		}
		if len(cluster.CertificateAuthorityData) == 0 {
			cluster.CertificateAuthorityData = tok.CA
		}
	}
	user := "system:serviceaccount:" + tok.Namespace + ":" + tok.Name
	ctxName := tok.Name + "@" + clusterName
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[clusterName] = cluster
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: tok.Token}
	cfg.Contexts[ctxName] = &clientcmdapi.Context{Cluster: clusterName, AuthInfo: user, Namespace: tok.Namespace}
	cfg.CurrentContext = ctxName
	return cfg, nil
}
