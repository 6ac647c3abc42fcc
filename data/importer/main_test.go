package importer

import (
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
)

// TestMain reports the fixture checks skipped in this package.
func TestMain(m *testing.M) { fixture.Main(m) }
