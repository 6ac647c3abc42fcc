package memlimit

import "testing"

func TestDefault(t *testing.T) {
	const meminfo = "MemTotal:       24684032 kB\nMemFree:        22880256 kB\n"
	total := int64(24684032) << 10
	frac := func(v int64) int64 { return int64(float64(v) * Fraction) }
	for _, c := range []struct {
		name, meminfo, cgroup string
		want                  int64
	}{
		{"machine", meminfo, "", frac(total)},
		{"cgroup without limit", meminfo, "max\n", frac(total)},
		{"cgroup below the machine", meminfo, "8589934592\n", frac(8589934592)},
		{"cgroup above the machine", meminfo, "99999999999999\n", frac(total)},
		{"cgroup only", "", "1073741824", frac(1073741824)},
		{"nothing known", "garbage", "max", 0},
	} {
		if got := Default(c.meminfo, c.cgroup); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

func TestSetKeepsTheUsersLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	if got := Set(); got != 0 {
		t.Errorf("Set with GOMEMLIMIT set applied %d", got)
	}
}
