package viewtest

// ReplicasInput is one row of ReplicasInputs: what is typed into a
// replicas field, and what every screen that reads one must make of it
// (kube.ParseReplicas): the number, or the reason shown (Err).
type ReplicasInput struct {
	Typed string
	Want  int32
	Err   string
}

// ReplicasInputs is the one table of replicas inputs that the workload
// form and the scale dialog are both tested with: spaces around the number
// are trimmed alike, and a refusal says the same words on both screens.
var ReplicasInputs = []ReplicasInput{
	{Typed: "4", Want: 4},
	{Typed: " 3", Want: 3},
	{Typed: " 4", Want: 4},
	{Typed: "5 ", Want: 5},
	{Typed: "\t6 ", Want: 6},
	{Typed: "07", Want: 7},
	{Typed: "0", Want: 0},
	{Typed: "10000", Want: 10000},
	{Typed: "", Err: "required"},
	{Typed: "   ", Err: "required"},
	{Typed: "3q", Err: "a whole number"},
	{Typed: "2.5", Err: "a whole number"},
	{Typed: "1 2", Err: "a whole number"},
	{Typed: "-1", Err: "between 0 and 10000"},
	{Typed: "10001", Err: "between 0 and 10000"},
	{Typed: "99999999999999999999", Err: "between 0 and 10000"},
}
