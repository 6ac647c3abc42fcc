package bridge

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Split splits a command line into words like a POSIX shell would, without
// running a shell: words are separated by blanks, single quotes keep
// everything literally, double quotes keep blanks (a backslash escapes ",
// \ and $ in them), a backslash outside quotes escapes the next character.
// Variables, globs and pipes are not interpreted.
func Split(command string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(command); i++ {
		ch := command[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case ch == '\'':
			j := strings.IndexByte(command[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("command %q: unterminated single quote", command)
			}
			cur.WriteString(command[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(command) && command[i] != '"'; i++ {
				if command[i] == '\\' && i+1 < len(command) && strings.IndexByte("\"\\$`", command[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(command[i])
			}
			if i >= len(command) {
				return nil, fmt.Errorf("command %q: unterminated double quote", command)
			}
			inWord = true
		case ch == '\\':
			if i+1 >= len(command) {
				return nil, fmt.Errorf("command %q: ends in a backslash", command)
			}
			i++
			cur.WriteByte(command[i])
			inWord = true
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}

// interpreters are program names that run the script named after them.
var interpreters = map[string]bool{"python": true, "python3": true, "env": true, "uv": true, "run": true,
	"node": true, "Rscript": true, "julia": true, "sh": true, "bash": true, "conda": true, "-m": true}

// ShortName names a command for tables and messages: the base name of its
// script (the first word that is not an interpreter or an option), e.g.
// "my_model.py" for "python3 -u my_model.py --weights w.npz".
func ShortName(command string) string {
	words, err := Split(command)
	if err != nil || len(words) == 0 {
		return strings.TrimSpace(command)
	}
	for _, w := range words {
		b := filepath.Base(w)
		if strings.HasPrefix(w, "-") || interpreters[b] || strings.HasPrefix(b, "python3.") {
			continue
		}
		return b
	}
	return filepath.Base(words[0])
}
