// Package actions runs the everyday actions on one workload or pod
// (restart, scale, delete, pause, resume, undo: Actor.Operate) and on a
// CronJob (trigger, suspend, unsuspend: operatecronjob.go), the guards
// they run first (Actor.Plan, for a confirmation screen: the action's own
// rules, the access review, the fresh read against what the person saw,
// another tool's markers, Pod Security, an autoscaler, the claims a
// StatefulSet drops) and which of a kind's actions the user may not do
// (Actor.Permissions). Actor takes what it needs as plain inputs (a
// clientset, the guard pipeline of kube/internal/guards, the kind
// resolver); what a kind supports is the vocabulary's KindInfo
// (kube/vocab). Package kube's Client builds an Actor and delegates
// PlanOperation, Operate and Permissions to it, re-exporting Operation,
// OperateOutcome, RestartedAtAnnotation, InstantiateAnnotation and
// TriggeredJobName. It imports the vocabulary,
// kube/internal/guards, kube/internal/objects and client-go, never package
// kube.
package actions
