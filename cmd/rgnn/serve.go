package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/serve"
	"github.com/rgnn/rgnn/task"
)

// serveReady is what `rgnn serve --json` prints once it listens.
type serveReady struct {
	Listen  string `json:"listen"`
	URL     string `json:"url"`
	Model   string `json:"model"`
	Updates string `json:"updates"`
}

func newServeCmd() *cobra.Command {
	spec := task.Serve{}.Defaults()
	opts := serve.Options{}.Defaults()
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve predictions, certificates and alerts over HTTP while the graph changes",
		Long: `Load the dataset, the model and its weights once and answer over HTTP/JSON
(docs/openapi.yaml, docs/SERVING.md): GET /v1/health, POST /v1/predict,
POST /v1/edges and POST /v1/nodes (graph updates), GET /v1/certificate?node=u,
GET /v1/alerts and GET /metrics (Prometheus).

Every update is appended to a write-ahead log in --state and fsynced before it
is acknowledged with its graph version; a restart replays the log. Predictions
of version N reflect the first N updates: PPRGo models recompute the push-PPR
rows and logits an edit reaches, GDC models with --ppr-eps > 0 the rows and then
the layers, other models everything in the background (the last consistent
version is served meanwhile; "min_version" in a predict request waits for one).

Background certificates (randomized smoothing of the structure, --p-add,
--p-del, --cert-samples, as rgnn certify) are re-run for every new version;
alerts list the updates that touched a node whose certified radius is no
larger than the edits its neighbourhood received since.

The server listens on loopback unless --listen says otherwise. With
--token-file (or $RGNN_SERVE_TOKEN) every endpoint but /v1/health requires
"Authorization: Bearer <token>". SIGTERM or Ctrl-C drains the requests in
flight and closes the log.`,
		Example: `  rgnn train --dataset cora_ml --model sm_gdc --ppr-eps 1e-4 --seed 0 --out sm_gdc.npz
  rgnn serve --dataset cora_ml --model sm_gdc --ppr-eps 1e-4 --weights sm_gdc.npz --state serve-state/
  curl -s localhost:8080/v1/predict -H 'Content-Type: application/json' -d '{"nodes":[0,1,2]}'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runServe(c, &spec, &opts) },
	}
	// the training protocol's flags do not apply: the weights are given
	bind(c, &spec, "lr", "max-epochs", "patience", "weight-decay", "batch-size")
	bind(c, &opts)
	addJSONFlag(c)
	return c
}

func runServe(c *cobra.Command, spec *task.Serve, opts *serve.Options) error {
	if err := spec.Validate(); err != nil {
		return specErr(spec, err)
	}
	if err := opts.Validate(); err != nil {
		var oe *serve.OptionError
		if errors.As(err, &oe) {
			return usagef("%s: %s", flagOf(opts, oe.Param), oe.Msg)
		}
		return err
	}
	opts.Token = os.Getenv("RGNN_SERVE_TOKEN")
	if opts.TokenFile != "" {
		b, err := os.ReadFile(opts.TokenFile)
		if err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
		opts.Token = strings.TrimSpace(string(b))
		if opts.Token == "" {
			return usagef("--token-file %s: the file is empty", opts.TokenFile)
		}
	}
	ctx, stop := interruptible(c)
	defer stop()
	l := &task.Loader{Dir: dataDir(c), Progress: progressWriter()}
	s, err := serve.New(ctx, *spec, *opts, l, progressWriter())
	if err != nil {
		return specErr(spec, err)
	}
	scheme := "http"
	if opts.TLSCert != "" {
		scheme = "https"
	}
	return s.Run(ctx, func(addr string) {
		r := serveReady{Listen: addr, URL: scheme + "://" + addr, Model: spec.Model.Model, Updates: s.Mode()}
		if wantJSON(c) {
			if err := writeJSON(c.OutOrStdout(), r); err != nil {
				fmt.Fprintln(progressWriter(), err)
			}
			return
		}
		fmt.Fprintf(c.OutOrStdout(), "rgnn serve: %s (%s) listening on %s\n", r.Model, r.Updates, r.URL)
	})
}
