// Package filecopy is the pure part of copying files to and from a
// container (`kubectl cp`'s job, tar over exec): Pack writes local files
// and folders as a tar stream, Stage reads a tar stream from a container
// into a staging folder inside the chosen local folder, refusing every
// entry that could write outside it, and Meter reports the bytes done at
// a bounded rate. It imports no Kubernetes package; kube/filecopy.go runs
// the tar commands in the container.
//
// The archive shapes refused are those of kubectl cp's path traversal
// faults: CVE-2018-1002100 (`../` in an entry's name), CVE-2019-1002101
// (a symbolic link whose target leaves the folder, then a file written
// through it), CVE-2019-11246 (the same through a link made relative to
// an earlier link) and CVE-2019-11249 (a link whose target, resolved
// through other links of the archive, leaves the folder).
package filecopy
