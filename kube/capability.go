package kube

// kindInfo describes the kind a plugin id or alias names (Lookup: the
// built-in registry, then the kinds Discover found); for a kind the Client
// does not serve, a KindInfo with that ID and no capability.
func (c *Client) kindInfo(kind Kind) KindInfo {
	if info, ok := c.Kind(string(kind)); ok {
		return info
	}
	return KindInfo{ID: kind}
}

// supports reports whether the kind a plugin id or alias names has action
// a (its plugin's Capabilities).
func (c *Client) supports(kind Kind, a Action) bool { return c.kindInfo(kind).Supports(a) }
