//go:build long

package main

import "testing"

// TestServeSurvivesKill9Long is TestServeSurvivesKill9 with the issue's
// stream of 10,000 updates (go test -tags long -run Kill9Long ./cmd/rgnn).
func TestServeSurvivesKill9Long(t *testing.T) {
	testServeKill(t, 10000)
}
