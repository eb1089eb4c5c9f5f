package bundles

import (
	"fmt"
	"strconv"
	"strings"
)

// Render returns the knowledge text of bundle b under condition c, exactly
// as the published render_knowledge (docs/protocol.md §2.2); "" for
// [CondNone]. See [RenderComponents] for the rules.
func Render(b *Bundle, c Condition) string {
	return RenderComponents(b, c.Components())
}

// RenderNonEmpty is [Render] for the oracle runner: it fails, wrapping
// [ErrEmptyKnowledge], when a condition other than none renders "" for b
// (docs/protocol.md §2.2).
func RenderNonEmpty(b *Bundle, c Condition) (string, error) {
	s := Render(b, c)
	if s == "" && c != CondNone {
		return "", fmt.Errorf("%w: %s under condition %s", ErrEmptyKnowledge, b.APIName, c)
	}
	return s, nil
}

// RenderComponents renders the selected components of b in the fixed order
// S_name, S_param, E, M, C, each only when selected and non-empty, joined by
// a blank line (docs/protocol.md §2.2):
//
//   - S_name: "API: {s_name}" (api_name when s_name is empty).
//   - S_param, if the list is non-empty: "Parameters:" then one line per
//     parameter, "  - {name}", then " ({type})" if the type is non-empty,
//     ", default={default}" if the default is non-empty (the string "None"
//     renders as default=None; a null or "" default renders nothing), and
//     ": {description}" if the description is non-empty. Constraints are
//     never shown.
//   - E: "Example {i}:\n```python\n{code}\n```" for each served example
//     (1-based), joined by a blank line. The published renderer numbers
//     every example of the file, which holds only executed and static ones;
//     novelapi's files may also record failed examples, which are skipped
//     and not numbered.
//   - M: "Conceptual background:\n" followed by the non-empty ones of the
//     text, "Related work: " + references joined by "; ", and
//     "Changelog notes: {changelog_notes}", joined by a blank line.
//   - C: "Implementation source:\n```python\n{implementation}\n```".
//
// return_type, is_modified, old_signature, old_parameters and provenance are
// never rendered. An empty set renders "".
func RenderComponents(b *Bundle, comps Components) string {
	var parts []string
	if comps.Has(CompSName) {
		name := b.SName
		if name == "" {
			name = b.APIName
		}
		if name != "" {
			parts = append(parts, "API: "+name)
		}
	}
	if comps.Has(CompSParam) && len(b.SParam) > 0 {
		parts = append(parts, renderParams(b.SParam))
	}
	if comps.Has(CompE) {
		if s := renderExamples(b.Examples); s != "" {
			parts = append(parts, s)
		}
	}
	if comps.Has(CompM) {
		if s := RenderMechanism(b.Mechanism); s != "" {
			parts = append(parts, "Conceptual background:\n"+s)
		}
	}
	if comps.Has(CompC) && b.Implementation != "" {
		parts = append(parts, "Implementation source:\n```python\n"+b.Implementation+"\n```")
	}
	return strings.Join(parts, "\n\n")
}

func renderParams(ps []Parameter) string {
	var sb strings.Builder
	sb.WriteString("Parameters:")
	for _, p := range ps {
		sb.WriteString("\n  - ")
		sb.WriteString(p.Name)
		if p.Type != nil && *p.Type != "" {
			sb.WriteString(" (" + *p.Type + ")")
		}
		if p.Default != nil && *p.Default != "" {
			sb.WriteString(", default=" + *p.Default)
		}
		if p.Description != "" {
			sb.WriteString(": " + p.Description)
		}
	}
	return sb.String()
}

func renderExamples(es []Example) string {
	var blocks []string
	for _, e := range es {
		if !e.Served() {
			continue
		}
		blocks = append(blocks, "Example "+strconv.Itoa(len(blocks)+1)+":\n```python\n"+e.Code+"\n```")
	}
	return strings.Join(blocks, "\n\n")
}

// RenderMechanism is the published Mechanism.render(): the non-empty ones of
// the text, "Related work: " + references joined by "; " (when there are
// references) and "Changelog notes: {changelog_notes}", joined by a blank
// line (docs/protocol.md §2.2). It has no "Conceptual background:"
// header.
func RenderMechanism(m Mechanism) string {
	var parts []string
	if m.Text != "" {
		parts = append(parts, m.Text)
	}
	if len(m.References) > 0 {
		parts = append(parts, "Related work: "+strings.Join(m.References, "; "))
	}
	if m.ChangelogNotes != nil && *m.ChangelogNotes != "" {
		parts = append(parts, "Changelog notes: "+*m.ChangelogNotes)
	}
	return strings.Join(parts, "\n\n")
}
