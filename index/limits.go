package index

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/novelapi/novelapi/bundles"
)

// Defaults for [Limits], in characters (code points), per bundle
// (docs/serving.md §5). The largest components of the 937 bundles `novelapi
// up` builds for numpy, scipy and pandas are S 16,281, E 4,948, M 1,042 and
// C 11,935 characters, all within them.
const (
	DefaultMaxS         = 32_000 // parameter names, types, defaults and descriptions together
	DefaultMaxParamText = 4_000  // one parameter's type, default or description
	DefaultMaxParams    = 300
	DefaultMaxE         = 16_000 // the examples' code together
	DefaultMaxM         = 8_000
	DefaultMaxC         = 16_000 // bundles.MaxImplementation is 12,000 at extraction
	DefaultMaxField     = 4_000  // old signature, return type
)

// Limits bounds the text of one bundle at index build. A zero field
// selects its default; text over a limit is cut with a marker saying what
// was left out.
type Limits struct {
	S, ParamText, Params, E, M, C, Field int
}

func (l Limits) withDefaults() Limits {
	def := func(v, d int) int {
		if v <= 0 {
			return d
		}
		return v
	}
	return Limits{S: def(l.S, DefaultMaxS), ParamText: def(l.ParamText, DefaultMaxParamText), Params: def(l.Params, DefaultMaxParams),
		E: def(l.E, DefaultMaxE), M: def(l.M, DefaultMaxM), C: def(l.C, DefaultMaxC), Field: def(l.Field, DefaultMaxField)}
}

// cutMarker is what replaces the end of a text cut at index build.
func cutMarker(what string, omitted, limit int) string {
	return fmt.Sprintf("[… novelapi: %d characters of %s omitted at index build (limit %d)]", omitted, what, limit)
}

// cutChars returns s cut to at most n characters, at a line boundary when
// there is one in its second half, followed by a marker naming what and
// how much was left out; ok reports whether s was cut.
func cutChars(s string, n int, what string) (string, bool) {
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s, false
	}
	r := []rune(s)
	t := string(r[:n])
	if i := strings.LastIndexByte(t, '\n'); i > len(t)/2 {
		t = t[:i]
	}
	return t + "\n" + cutMarker(what, total-utf8.RuneCountInString(t), n), true
}

// limit cuts the text of b to lim in place and returns one line per
// component it cut ("numpy.foo: C 41000000 → 16000 characters").
func limit(b *bundles.Bundle, lim Limits) []string {
	// b shares its slices with the caller's bundle: copy before cutting.
	b.SParam, b.Examples = slices.Clone(b.SParam), slices.Clone(b.Examples)
	var cuts []string
	note := func(comp string, before int, after string) {
		cuts = append(cuts, fmt.Sprintf("%s: %s %d → %d characters", b.APIName, comp, before, utf8.RuneCountInString(after)))
	}
	if n := utf8.RuneCountInString(b.Implementation); n > lim.C {
		b.Implementation, _ = cutChars(b.Implementation, lim.C, "the implementation source (C)")
		note("C", n, b.Implementation)
	}
	if n := utf8.RuneCountInString(b.Mechanism.Text); n > lim.M {
		b.Mechanism.Text, _ = cutChars(b.Mechanism.Text, lim.M, "the mechanism (M)")
		note("M", n, b.Mechanism.Text)
	}
	for _, f := range []**string{&b.OldSignature, &b.ReturnType} {
		if *f != nil {
			if s, cut := cutChars(**f, lim.Field, "this field"); cut {
				note("S", utf8.RuneCountInString(**f), s)
				*f = &s
			}
		}
	}
	// E: whole examples while their code fits, then the first that does
	// not, cut; the marker says how many were left out.
	used, before := 0, 0
	for i := range b.Examples {
		before += utf8.RuneCountInString(b.Examples[i].Code)
	}
	for i := range b.Examples {
		n := utf8.RuneCountInString(b.Examples[i].Code)
		if used+n <= lim.E {
			used += n
			continue
		}
		dropped := len(b.Examples) - i - 1
		code, _ := cutChars(b.Examples[i].Code, max(lim.E-used, 0), "this example")
		b.Examples[i].Code = code
		if dropped > 0 {
			b.Examples[i].Code += fmt.Sprintf("\n[… novelapi: %d more example(s) omitted at index build (limit %d characters of examples)]", dropped, lim.E)
		}
		b.Examples = b.Examples[:i+1]
		after := 0
		for _, e := range b.Examples {
			after += utf8.RuneCountInString(e.Code)
		}
		cuts = append(cuts, fmt.Sprintf("%s: E %d → %d characters", b.APIName, before, after))
		break
	}
	// S: each parameter's texts, then whole parameters while they fit.
	sBefore, sCut := 0, false
	for i := range b.SParam {
		p := &b.SParam[i]
		sBefore += paramChars(p)
		if d, cut := cutChars(p.Description, lim.ParamText, "this description"); cut {
			p.Description, sCut = d, true
		}
		for _, f := range []**string{&p.Type, &p.Default} {
			if *f != nil {
				if s, cut := cutChars(**f, lim.ParamText, "this field"); cut {
					*f, sCut = &s, true
				}
			}
		}
	}
	used = 0
	for i := range b.SParam {
		used += paramChars(&b.SParam[i])
		if used > lim.S || i >= lim.Params {
			left := len(b.SParam) - i
			b.SParam = b.SParam[:i]
			if i > 0 {
				b.SParam[i-1].Description += fmt.Sprintf("\n[… novelapi: %d more parameter(s) omitted at index build (limits %d parameters, %d characters)]", left, lim.Params, lim.S)
			}
			sCut = true
			break
		}
	}
	if sCut {
		after := 0
		for i := range b.SParam {
			after += paramChars(&b.SParam[i])
		}
		cuts = append(cuts, fmt.Sprintf("%s: S %d → %d characters", b.APIName, sBefore, after))
	}
	return cuts
}

// paramChars counts the characters of one parameter's texts.
func paramChars(p *bundles.Parameter) int {
	n := utf8.RuneCountInString(p.Name) + utf8.RuneCountInString(p.Description)
	for _, f := range []*string{p.Type, p.Default} {
		if f != nil {
			n += utf8.RuneCountInString(*f)
		}
	}
	return n
}
