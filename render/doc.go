// Package render will turn a deployment request (image, ports, replicas,
// resources) into the Kubernetes objects that Deploy applies. It is part of
// the agreed layout (see the design) and holds no code until the deploy
// screen is built; nothing imports it yet.
package render
