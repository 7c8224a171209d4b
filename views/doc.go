// Package views holds what every screen shares: the Screen interface, the
// Context handed to screen constructors (client, styles, keys, config,
// sizes), and the message types screens return to the root model. A screen
// package imports views, never ui.
package views
