package kinds

// ParseHumanDuration exposes parseHumanDuration to the external tests.
var ParseHumanDuration = parseHumanDuration
