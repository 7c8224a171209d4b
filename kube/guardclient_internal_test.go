package kube

import "github.com/kyyard/kyyard/kube/internal/guards"

// setGuardOptions changes the Client's guard policy and read-only mode
// after it was made, as a Client made with those Options would have them.
func (c *Client) setGuardOptions(policy Policy, readOnly bool) {
	c.opts.Policy, c.opts.ReadOnly = policy, readOnly
	c.guards = guards.New(c.cs, policy, readOnly)
}
