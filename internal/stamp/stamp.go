// Package stamp decides whether a stage's output can be reused. Each output
// (a file or a directory) gets a stamp beside it, OUT.stamp.json, saying
// which stage made it under which rules version and options, from which
// inputs (by digest). A later run builds the stamp it would write and asks
// [Stale] why the output cannot be reused; "" means it can.
//
// Rules versions are the stages' own constants (bundles.DiffRules,
// bundles.ExtractRules, construct.TaskRules, index.UnitRules,
// index.RankingVersion); their history is in docs/changelog.md.
package stamp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/internal/atomicfile"
)

// A Stamp records how one output was made. Two stamps are equal when every
// field is; [Stale] names the first field that differs.
type Stamp struct {
	// Stage names the stage that made the output, e.g. "discover numpy".
	Stage string `json:"stage"`
	// Rules is the rules version of the code that made the output: a
	// number or a dated name, compared as a string.
	Rules string `json:"rules"`
	// Options are the options that change the output, as JSON; nil means
	// none.
	Options json.RawMessage `json:"options,omitempty"`
	// Inputs maps each input's name to its digest ([FileDigest], an
	// environment's key, an index generation).
	Inputs map[string]string `json:"inputs,omitempty"`
}

// New returns the stamp of stage under rules with the given options
// (marshalled to JSON; nil for none) and no inputs yet.
func New(stage string, rules any, options any) (Stamp, error) {
	s := Stamp{Stage: stage, Rules: fmt.Sprint(rules), Inputs: map[string]string{}}
	if options != nil {
		b, err := json.Marshal(options)
		if err != nil {
			return s, fmt.Errorf("stamp %s: options: %w", stage, err)
		}
		s.Options = b
	}
	return s, nil
}

// WithInput returns s with the input name recorded as digest.
func (s Stamp) WithInput(name, digest string) Stamp {
	in := maps.Clone(s.Inputs)
	if in == nil {
		in = map[string]string{}
	}
	in[name] = digest
	s.Inputs = in
	return s
}

// WithFile returns s with the file at path recorded as input name, by its
// [FileDigest].
func (s Stamp) WithFile(name, path string) (Stamp, error) {
	d, err := FileDigest(path)
	if err != nil {
		return s, err
	}
	return s.WithInput(name, d), nil
}

// FileDigest returns "sha256:" and the hex SHA-256 of the file at path.
func FileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("digest %s: %w", path, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Path returns where the stamp of the output out lives: out + ".stamp.json".
func Path(out string) string { return strings.TrimSuffix(out, "/") + ".stamp.json" }

// Write records s as the stamp of out, atomically.
func Write(out string, s Stamp) error {
	return atomicfile.WriteJSON(Path(out), s)
}

// Read returns the stamp of out; the error wraps fs.ErrNotExist when out
// has none.
func Read(out string) (Stamp, error) {
	var s Stamp
	data, err := os.ReadFile(Path(out))
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("%s: %w", Path(out), err)
	}
	if len(s.Options) > 0 { // written indented; compare as compact JSON
		var b bytes.Buffer
		if err := json.Compact(&b, s.Options); err != nil {
			return s, fmt.Errorf("%s: options: %w", Path(out), err)
		}
		s.Options = b.Bytes()
	}
	return s, nil
}

// Remove deletes out (a file or a directory tree) and its stamp; missing
// ones are not an error.
func Remove(out string) error {
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	if err := os.Remove(Path(out)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Stale says why the output out cannot be reused by a run that would stamp
// it want: it is missing, it has no readable stamp, or its stamp differs
// (the stage, the rules version, an option, or an input). It returns ""
// when out exists and its stamp equals want.
func Stale(out string, want Stamp) string {
	if _, err := os.Stat(out); err != nil {
		return "no " + out
	}
	got, err := Read(out)
	if errors.Is(err, fs.ErrNotExist) {
		return "no stamp beside " + out
	}
	if err != nil {
		return err.Error()
	}
	return Diff(got, want)
}

// Diff says how the stamp got differs from want, "" when they are equal.
func Diff(got, want Stamp) string {
	switch {
	case got.Stage != want.Stage:
		return fmt.Sprintf("stage %q → %q", got.Stage, want.Stage)
	case got.Rules != want.Rules:
		return fmt.Sprintf("%s rules %s → %s", want.Stage, got.Rules, want.Rules)
	}
	if d := optionsDiff(got.Options, want.Options); d != "" {
		return d
	}
	var changed []string
	for _, name := range slices.Sorted(maps.Keys(want.Inputs)) {
		if got.Inputs[name] != want.Inputs[name] {
			changed = append(changed, name)
		}
	}
	for name := range got.Inputs {
		if _, ok := want.Inputs[name]; !ok {
			changed = append(changed, name)
		}
	}
	if len(changed) > 0 {
		slices.Sort(changed)
		return "changed: " + strings.Join(slices.Compact(changed), ", ")
	}
	return ""
}

// optionsDiff names the options whose JSON values differ ("change_only
// false → true"), "" when the two are equal.
func optionsDiff(got, want json.RawMessage) string {
	if bytes.Equal(got, want) {
		return ""
	}
	var a, b map[string]json.RawMessage
	if json.Unmarshal(got, &a) != nil || json.Unmarshal(want, &b) != nil {
		return "options changed"
	}
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if !bytes.Equal(a[k], b[k]) {
			x, y := a[k], b[k]
			if x == nil {
				x = json.RawMessage("null")
			}
			diffs = append(diffs, fmt.Sprintf("%s %s → %s", k, x, y))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if _, ok := b[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s %s → null", k, a[k]))
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	return "options changed: " + strings.Join(diffs, ", ")
}
