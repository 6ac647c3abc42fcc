package experiment

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/experiment/store"
)

// offline makes every dataset download fail at once (a mirror that is not
// listening) and returns an empty data directory.
func offline(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(nil)
	srv.Close()
	t.Setenv(data.MirrorEnv, srv.URL)
	return filepath.Join(t.TempDir(), "data")
}

// A grid on a dataset that is missing stops at the first run that needs it
// and returns that one error; no run is recorded as failed.
func TestExecuteStopsAtMissingDataset(t *testing.T) {
	dir := offline(t)
	for _, workers := range []int{1, 3} {
		st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
		if err != nil {
			t.Fatal(err)
		}
		e, err := Parse([]byte("name: offline\nfixed: {dataset: cora_ml, model: gcn}\n" +
			"grid: {seed: [0, 1, 2, 3, 4, 5], kind: [train, eval]}\n"))
		if err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		env := &Env{Store: st, Kinds: DefaultKinds(), DataDir: dir}
		sum, err := Execute(context.Background(), env, e, RunOptions{Workers: workers, Progress: &log})
		var me *data.MissingError
		if !errors.As(err, &me) || me.Dataset != "cora_ml" || me.Dir != dir {
			t.Fatalf("workers=%d: %v, want a *data.MissingError", workers, err)
		}
		if n := strings.Count(err.Error(), "dataset cora_ml is not available"); n != 1 {
			t.Errorf("workers=%d: the error says it %d times:\n%v", workers, n, err)
		}
		if sum.Failed != 0 || sum.Ran != 0 || strings.Contains(log.String(), "FAIL") ||
			strings.Contains(log.String(), "not available") {
			t.Errorf("workers=%d: summary %+v, log:\n%s", workers, sum, log.String())
		}
		if f, _ := st.Failures(context.Background()); len(f) != 0 {
			t.Errorf("workers=%d: %d failures recorded", workers, len(f))
		}
		st.Close()
	}
}
