package importers

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/novelapi/novelapi/pool"
)

// A KeywordPair is one renaming of APICoder's private-library pools (Zan et
// al. 2022, microsoft/PyCodeGPT apicoder/private-eval): a name of the real
// library and the name it has in the renamed pool ("DataFrame",
// "KnowledgeFrame"). The tasks carry the table ([pool.Task.Keywords]).
type KeywordPair = pool.KeywordPair

// A KeywordTable is the ordered renaming of a library (MonkeyEval renames
// pandas, BeatNumEval numpy). Order matters: the original harness replaces
// the pairs one after the other.
type KeywordTable []KeywordPair

// ReadKeywordTable reads a keyword table: one JSON object mapping each
// original name to its renamed form, in the harness's order
// (pandas_keywords.jsonl, numpy_keywords.jsonl; the file holds one object,
// not one per line, whatever its name says). Errors name the file.
func ReadKeywordTable(path string) (KeywordTable, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	bad := func(err error) error { return fmt.Errorf("%s: keyword table: %w", path, err) }
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, bad(errors.New("want one JSON object of original name -> renamed name"))
	}
	var out KeywordTable
	seen := map[string]bool{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil, bad(fmt.Errorf("value of %q: %w", k, err))
		}
		key := k.(string)
		if key == "" || v == "" || seen[key] {
			return nil, bad(fmt.Errorf("entry %q: %q: names must be non-empty and keys unique", key, v))
		}
		seen[key] = true
		out = append(out, KeywordPair{Original: key, Renamed: v})
	}
	if len(out) == 0 {
		return nil, bad(errors.New("no entries"))
	}
	return out, nil
}

// ConvertBack translates a completion written against the renamed library
// back to the real one exactly as APICoder's harness does before running
// it (private_eval/execution.py, check_correctness.convert_back): when the
// completion names an original name that is not also a renamed one, it
// becomes the text "error!" (a SyntaxError when run); otherwise every
// renamed name is replaced by its original, pair after pair, by plain
// substring replacement. The harness applies the same rule to model
// completions at run time (evalharness/py/runner.py).
func (k KeywordTable) ConvertBack(completion string) string {
	orig, renamed := map[string]bool{}, map[string]bool{}
	for _, p := range k {
		orig[p.Original], renamed[p.Renamed] = true, true
	}
	for _, name := range names(completion) {
		if orig[name] && !renamed[name] {
			return "error!"
		}
	}
	for _, p := range k {
		completion = strings.ReplaceAll(completion, p.Renamed, p.Original)
	}
	return completion
}

// names returns what the original harness takes for the names of s:
// Python's re.findall(r'\b[a-zA-Z_][a-zA-Z0-9_]*\b', s) on a str, whose \b
// is a Unicode word boundary. A match is therefore a whole maximal run of
// word characters (letters, numbers, '_'), kept only when that run is an
// ASCII identifier: "éDataFrame" yields nothing, as in Python.
func names(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			i += n
			continue
		}
		j := i
		ascii := true
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !isWordRune(r) {
				break
			}
			if r >= utf8.RuneSelf {
				ascii = false
			}
			j += n
		}
		if run := s[i:j]; ascii && (run[0] < '0' || run[0] > '9') {
			out = append(out, run)
		}
		i = j
	}
	return out
}

// isWordRune reports whether r is a word character of Python's re on str
// patterns: alphanumeric (str.isalnum) or '_'.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}
