package experiment

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rgnn/rgnn/experiment/store"
)

// FileError is a mistake in an experiment file — YAML syntax, an unknown
// key, parameter or kind, a bad grid — at its line (1-based; 0 when the
// line is not known). The command line reports it as a usage error.
type FileError struct {
	Line int
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

func fileErrorf(line int, format string, args ...any) *FileError {
	return &FileError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// keywords are the keys a block may hold besides named sub-blocks; the
// top-level ones hold metadata and are allowed at the top only.
var (
	blockKeywords    = []string{"fixed", "grid", "random"}
	topLevelKeywords = []string{"name", "description", "seml", "slurm"}
)

// editDistance is the Levenshtein distance of a and b (in bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// closest returns the name in known nearest to name, if at most two edits
// away (and fewer edits than name has letters), else "". Ties go to the
// first.
func closest(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(name, k); d < bestD && d < len(name) {
			best, bestD = k, d
		}
	}
	return best
}

// didYouMean is " (did you mean X?)" for the known name closest to name, or
// "".
func didYouMean(name string, known []string) string {
	if c := closest(name, known); c != "" && c != name {
		return " (did you mean " + c + "?)"
	}
	return ""
}

// paramNames lists the parameters the kinds of reg declare, "kind" included.
func paramNames(reg *Kinds) []string {
	names := []string{"kind"}
	for n := range reg.types {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// badSubBlock checks the value v of key k, a key of a block that is no
// keyword and so names a sub-block: v must be a mapping whose keys are
// keywords or sub-blocks in turn. It returns nil if so, else the error, put
// where the mistake most likely is: a misspelt keyword (`fixd: {seed: 1}`:
// "fixd: did you mean fixed?"), a parameter outside fixed and grid, a
// top-level keyword in a sub-block, or a value that is no mapping.
func badSubBlock(path string, k, v *yaml.Node) error {
	if wellFormed(v, 0) {
		return nil
	}
	chain := []*yaml.Node{k}
	paths := []string{path}
	bad := v
	for bad.Kind == yaml.MappingNode {
		next := bad
		for i := 0; i+1 < len(bad.Content); i += 2 {
			ck, cv := bad.Content[i], bad.Content[i+1]
			if !isOneOf(ck.Value, blockKeywords) && !wellFormed(cv, 0) {
				chain = append(chain, ck)
				paths = append(paths, joinName(paths[len(paths)-1], ck.Value))
				next = cv
				break
			}
		}
		if next == bad {
			break // unreachable: bad is not well formed
		}
		bad = next
	}
	last := chain[len(chain)-1]
	params := paramNames(DefaultKinds())
	// The nearest enclosing key that is a misspelt fixed or grid (and no
	// parameter: "seed" is two edits from "seml").
	typo := func(keys []*yaml.Node, ps []string) error {
		for i := len(keys) - 1; i >= 0; i-- {
			if isOneOf(keys[i].Value, params) {
				continue
			}
			if c := closest(keys[i].Value, []string{"fixed", "grid"}); c != "" {
				return fileErrorf(keys[i].Line, "%s: did you mean %s?", ps[i], c)
			}
		}
		return nil
	}
	name := paths[len(paths)-1]
	switch {
	case isOneOf(last.Value, params):
		if err := typo(chain[:len(chain)-1], paths); err != nil {
			return err
		}
		return fileErrorf(last.Line, "%s: a parameter goes inside a fixed or grid block", name)
	case isOneOf(last.Value, topLevelKeywords):
		return fileErrorf(last.Line, "%s: %s is allowed at the top level only", name, last.Value)
	}
	if c := closest(last.Value, append(append([]string{}, blockKeywords...), topLevelKeywords...)); c != "" && len(chain) == 1 {
		return fileErrorf(last.Line, "%s: did you mean %s?", name, c)
	}
	if err := typo(chain, paths); err != nil {
		return err
	}
	if c := closest(last.Value, params); c != "" && bad.Kind == yaml.ScalarNode {
		return fileErrorf(last.Line, "%s: unknown key (did you mean %s? a parameter goes inside a fixed or grid block)", name, c)
	}
	return fileErrorf(last.Line, "%s: a block must be a mapping of fixed, grid and named sub-blocks, got %s",
		name, nodeKind(bad))
}

// wellFormed reports whether v is a block: a mapping whose keys are
// keywords or name sub-blocks in turn.
func wellFormed(v *yaml.Node, depth int) bool {
	if v.Kind != yaml.MappingNode || depth > 10000 {
		return false
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		if !isOneOf(v.Content[i].Value, blockKeywords) && !wellFormed(v.Content[i+1], depth+1) {
			return false
		}
	}
	return true
}

func isOneOf(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias (write the block out)"
	case yaml.MappingNode:
		return "a mapping"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return fmt.Sprintf("%q", n.Value)
}

var yamlLine = regexp.MustCompile(`^line (\d+): `)

// syntaxError is the *FileError of a YAML error of src. yaml.v3's line is
// missing for mistakes on the first line (and for a few others, e.g. an
// unknown anchor) and off by one for some: the line is that of the
// shortest prefix of the file that fails with the same message.
func syntaxError(src []byte, err error) *FileError {
	fe := yamlLineError(strings.TrimPrefix(err.Error(), "yaml: "), "YAML syntax: ")
	lines := bytes.SplitAfter(src, []byte("\n"))
	if len(lines) > 500 {
		return fe
	}
	for k := 1; k <= len(lines); k++ {
		var n yaml.Node
		e := yaml.Unmarshal(bytes.Join(lines[:k], nil), &n)
		if e != nil && yamlLineError(strings.TrimPrefix(e.Error(), "yaml: "), "YAML syntax: ").Msg == fe.Msg {
			fe.Line = k
			break
		}
	}
	return fe
}

// yamlLineError reads yaml.v3's "line N: " prefix off msg.
func yamlLineError(msg, prefix string) *FileError {
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &FileError{Line: line, Msg: prefix + msg[len(m[0]):]}
	}
	return &FileError{Msg: prefix + msg}
}

// check reports, at the place written, the first parameter no kind of reg
// declares, value of the wrong type, or kind reg does not have, in b and
// its sub-blocks.
func (b block) check(reg *Kinds) error {
	declaring := map[string]*Kind{}
	for _, n := range reg.Names() {
		k, _ := reg.Lookup(n)
		for _, p := range k.Params() {
			declaring[p.Name] = cmp.Or(declaring[p.Name], k)
		}
	}
	return b.checkWith(reg, declaring)
}

func (b block) checkWith(reg *Kinds, declaring map[string]*Kind) error {
	type entry struct {
		line   int
		where  string
		name   string
		values []any
	}
	var es []entry
	for n, v := range b.fixed {
		es = append(es, entry{b.fixedLines[n], joinName(b.name, "fixed"), n, []any{v}})
	}
	for _, g := range b.grid {
		es = append(es, entry{b.gridLines[g.name], joinName(b.name, "grid"), g.name, g.values})
	}
	sort.Slice(es, func(i, j int) bool {
		return es[i].line < es[j].line || es[i].line == es[j].line && es[i].name < es[j].name
	})
	for _, e := range es {
		if e.name != "kind" {
			k, ok := declaring[e.name]
			if !ok {
				return fileErrorf(e.line, "%s: unknown parameter %q%s", e.where, e.name, didYouMean(e.name, paramNames(reg)))
			}
			for _, v := range e.values {
				if _, err := k.Decode(store.Params{e.name: v}); err != nil {
					return fileErrorf(e.line, "%s: %v", e.where, err)
				}
			}
			continue
		}
		for _, v := range e.values {
			s, _ := v.(string)
			if _, ok := reg.Lookup(s); !ok {
				return fileErrorf(e.line, "%s: unknown kind %q%s (known: %s)", e.where, fmt.Sprint(v),
					didYouMean(s, reg.Names()), strings.Join(reg.Names(), ", "))
			}
		}
	}
	for _, s := range b.subs {
		if err := s.checkWith(reg, declaring); err != nil {
			return err
		}
	}
	return nil
}

// decodeError is the *FileError of decoding the fixed or grid block v (at
// path at) into a mapping.
func decodeError(at string, v *yaml.Node, err error) error {
	if v.Kind != yaml.MappingNode && v.Kind != yaml.AliasNode {
		return fileErrorf(v.Line, "%s: want a mapping of parameters to values, got %s", at, nodeKind(v))
	}
	fe := &FileError{Msg: err.Error()}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		fe = yamlLineError(te.Errors[0], "")
	}
	fe.Line = cmp.Or(fe.Line, v.Line)
	fe.Msg = at + ": " + fe.Msg
	return fe
}

// keyLines records the line of every parameter of a fixed block (nested
// mappings flattened to dotted names, as flatten does).
func keyLines(prefix string, n *yaml.Node, out map[string]int, depth int) {
	if n.Kind != yaml.MappingNode || depth > 100 {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name := joinName(prefix, k.Value)
		if v.Kind == yaml.MappingNode {
			keyLines(name, v, out, depth+1)
			continue
		}
		if out[name] == 0 {
			out[name] = k.Line
		}
	}
}
