package vocab

// OwnerNode is one object of an owner tree (Client.OwnerTree): what it
// is, how it stands, and what it owns (by metadata.ownerReferences) or
// selects (a Service's Pods).
type OwnerNode struct {
	// Kind is the plugin id of the object's kind; Namespace, Name and UID
	// name it.
	Kind                 Kind
	Namespace, Name, UID string
	// Status is the row's status cell; Health kyyard's judgement of it.
	Status string
	Health Health
	// Worst is the worst Health of the node and everything under it: a
	// failed Pod deep down shows at the top.
	Worst Health
	// Selected says the node is under its parent by the parent's selector
	// (a Service's Pods), not by an owner reference.
	Selected bool
	// Target marks the object the tree was asked for.
	Target bool
	// Children are what the node owns (and selects), by kind then name.
	Children []*OwnerNode
}

// OwnerTree is the tree around one object: Root is the topmost owner
// found above it (the object itself when it has none), and everything
// under Root. Notes say what could not be followed (an owner of a kind
// not read, a kind the account may not list).
type OwnerTree struct {
	Root  *OwnerNode
	Notes []string
}
