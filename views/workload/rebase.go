package workload

import "github.com/kyyard/kyyard/kube"

// rebase lays the person's edits (base -> edited) onto the object read
// again after a conflict and lists the clashes: the paths the server
// changed too (casebook C18, C21). A variable so that tests can watch it.
var rebase = kube.Rebase
