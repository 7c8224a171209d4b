package components

// AuditPolicy is the API server's audit policy: request bodies (level Request)
// for every write verb, metadata for every other request, nothing at stage
// RequestReceived (each request is logged once it has a response). Tests use
// the audit log as an oracle for what was written and what was read.
const AuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages:
- RequestReceived
rules:
- level: Request
  verbs: [create, update, patch, delete, deletecollection]
- level: Metadata
`
