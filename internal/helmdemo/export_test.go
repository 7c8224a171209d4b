package helmdemo

// LoadChart exposes loadChart to the external tests.
var LoadChart = loadChart
