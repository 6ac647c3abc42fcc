package protocol

import (
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
)

func TestMain(m *testing.M) { fixture.Main(m) }
