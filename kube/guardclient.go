package kube

import "github.com/kyyard/kyyard/kube/internal/guards"

// policy returns the Client's guard policy (interactive when unset).
func (c *Client) policy() Policy {
	if c.opts.Policy == PolicyStrict {
		return PolicyStrict
	}
	return PolicyInteractive
}

// Policy returns the guard policy the Client runs its writes under.
func (c *Client) Policy() Policy { return c.policy() }

// ReadOnly reports whether the Client refuses every write (--readonly).
func (c *Client) ReadOnly() bool { return c.opts.ReadOnly }

// ManagedBy is guards.ManagedBy: the tool that manages an object, named
// from its labels and annotations (Helm, Argo CD, Flux, kyyard's deploy
// form), "" when none does.
func ManagedBy(labels, annotations map[string]string) string {
	return guards.ManagedBy(labels, annotations)
}
