package report

import (
	"context"
	"encoding/base64"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"

	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/npz"
)

// Report holds the rendered tables and figures.
type Report struct {
	Title   string
	Notes   []string
	Tables  []Table
	Figures []Figure
}

// Options configure Build.
type Options struct {
	Title  string
	Filter store.Filter
	// Notes are printed under the title (e.g. "quick mode: 1 seed").
	Notes []string
	// Dataset keeps the results of this dataset and those without one
	// (the bias curves); "" keeps all.
	Dataset string
}

// Build reads the matching results from the store and renders them.
func Build(ctx context.Context, st *store.Store, o Options) (*Report, error) {
	rs, err := st.Query(ctx, o.Filter)
	if err != nil {
		return nil, err
	}
	rows := decodeRows(rs)
	if o.Dataset != "" {
		kept := rows[:0]
		for _, r := range rows {
			if r.Dataset == "" || r.Dataset == o.Dataset {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	return fromRows(rows, o)
}

// FromResults renders results (as read from a store).
func FromResults(rs []store.Result, o Options) (*Report, error) {
	return fromRows(decodeRows(rs), o)
}

func fromRows(rows []row, o Options) (*Report, error) {
	r := &Report{Title: o.Title, Notes: o.Notes}
	if r.Title == "" {
		r.Title = "rgnn report"
	}
	r.Tables = append(r.Tables, certificationTables(rows)...)
	r.Tables = append(r.Tables, attackTables(rows)...)
	r.Tables = append(r.Tables, targetedTables(rows)...)
	r.Tables = append(r.Tables, comparisonTables(rows)...)
	r.Tables = append(r.Tables, runtimeTables(rows)...)
	for _, f := range []func([]row) ([]Figure, error){
		certRatioFigures, attackFigures, temperatureFigures, degreeFigures, biasFigures, messagesFigures,
	} {
		figs, err := f(rows)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		r.Figures = append(r.Figures, figs...)
	}
	if len(rows) == 0 {
		r.Notes = append(r.Notes, "The store holds no results.")
	}
	if len(ofKind(rows, "attack")) == 0 {
		r.Notes = append(r.Notes, "No attack results: the global-attack and Nettack tables and the accuracy-over-budget figures are empty.")
	}
	return r, nil
}

// Markdown renders the tables, and links the figures as figDir/<name>.png
// (no links if figDir is empty).
func (r *Report) Markdown(figDir string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.Title)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("## Tables\n\n")
	for _, t := range r.Tables {
		b.WriteString(t.Markdown())
		b.WriteString("\n")
	}
	if figDir != "" && len(r.Figures) > 0 {
		b.WriteString("## Figures\n\n")
		for _, f := range r.Figures {
			fmt.Fprintf(&b, "![%s](%s/%s.png)\n\n%s ([SVG](%s/%s.svg))\n\n", f.Title, figDir, f.Name, f.Caption, figDir, f.Name)
		}
	}
	return b.String()
}

// HTML renders one self-contained page: the tables and every figure as an
// embedded PNG data URI; no external resources.
func (r *Report) HTML() (string, error) {
	var b strings.Builder
	e := html.EscapeString
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; }
td { text-align: right; font-variant-numeric: tabular-nums; }
td:first-child, th:first-child { text-align: left; }
th { background: #f3f3f3; }
figure { display: inline-block; margin: 0 1rem 1.5rem 0; width: 34rem; vertical-align: top; }
figure img { width: 100%%; border: 1px solid #ddd; }
figcaption { font-size: 0.85rem; color: #555; }
.caption { color: #555; font-size: 0.9rem; }
</style>
</head>
<body>
<h1>%s</h1>
`, e(r.Title), e(r.Title))
	if len(r.Notes) > 0 {
		b.WriteString("<ul>\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "<li>%s</li>\n", e(n))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("<h2>Tables</h2>\n")
	for _, t := range r.Tables {
		fmt.Fprintf(&b, "<h3 id=\"%s\">%s</h3>\n<p class=\"caption\">%s</p>\n", e(t.ID), e(t.Title), e(t.Caption))
		if t.Summary != "" {
			fmt.Fprintf(&b, "<p class=\"summary\">%s</p>\n", e(t.Summary))
		}
		b.WriteString("<table>\n<tr>")
		for _, h := range t.Header {
			fmt.Fprintf(&b, "<th>%s</th>", e(h))
		}
		b.WriteString("</tr>\n")
		for _, row := range t.Rows {
			b.WriteString("<tr>")
			for _, c := range row {
				fmt.Fprintf(&b, "<td>%s</td>", e(c))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
	}
	if len(r.Figures) > 0 {
		b.WriteString("<h2>Figures</h2>\n")
	}
	for _, f := range r.Figures {
		png, err := f.Render("png")
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "<figure id=\"%s\"><img alt=\"%s\" src=\"data:image/png;base64,%s\"><figcaption>%s</figcaption></figure>\n",
			e(f.Name), e(f.Title), base64.StdEncoding.EncodeToString(png), e(f.Caption))
	}
	// The one script: flags images that failed to decode (the browser
	// check in .ci reads data-images and the console).
	b.WriteString(`<script>
window.addEventListener("load", function () {
  var bad = Array.prototype.filter.call(document.images, function (i) { return !i.complete || i.naturalWidth === 0; });
  document.body.setAttribute("data-images", bad.length ? "broken" : "ok");
  if (bad.length) { console.error("report: " + bad.length + " images failed to load"); }
});
</script>
</body>
</html>
`)
	return b.String(), nil
}

// WriteDir writes dir/report.md, dir/report.html and dir/figures/*.png|svg,
// each file atomically, and returns the paths written.
func (r *Report) WriteDir(dir string) ([]string, error) {
	figDir := filepath.Join(dir, "figures")
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var paths []string
	for _, f := range r.Figures {
		for _, ext := range []string{"png", "svg"} {
			b, err := f.Render(ext)
			if err != nil {
				return nil, err
			}
			p := filepath.Join(figDir, f.Name+"."+ext)
			if err := npz.AtomicWrite(p, b); err != nil {
				return nil, fmt.Errorf("report: %w", err)
			}
			paths = append(paths, p)
		}
	}
	md := filepath.Join(dir, "report.md")
	if err := npz.AtomicWrite(md, []byte(r.Markdown("figures"))); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	h, err := r.HTML()
	if err != nil {
		return nil, err
	}
	hp := filepath.Join(dir, "report.html")
	if err := npz.AtomicWrite(hp, []byte(h)); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return append([]string{md, hp}, paths...), nil
}
